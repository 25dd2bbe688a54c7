"""Shared helpers of the STreeD tests: tiny problems and running the search directly."""

import numpy as np

from solver.problem import Problem
from solver.streed.params import ALGORITHM
from solver.streed.search import STreeDSearch


def make_problem(X, y=None, group=None, treatment=None, outcome=None, n_classes=2, weights=None):
    """Return a Problem over 0/1 columns x0.. with the given roles."""
    X = np.asarray(X, dtype=np.uint8)
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(X.shape[1])]
    extra = {}
    if treatment is not None:
        extra = {
            "treatment": treatment,
            "treatments": [f"t{k}" for k in range(int(np.max(treatment)) + 1)],
            "outcome": outcome,
        }
    return Problem(
        X=X,
        features=features,
        y=y,
        classes=[str(k) for k in range(n_classes)] if y is not None else [],
        group=group,
        sample_weight=weights,
        **extra,
    )


def run(problem, params, **task_options):
    """Run the search to the end; return it."""
    config = ALGORITHM.clean(params)
    search = STreeDSearch(problem, config, **task_options)
    while not search.step(1 << 20):
        pass
    return search


def root_front(search, digits=9):
    """Return the solved root front as a set of rounded value tuples."""
    return {tuple(round(float(x), digits) for x in v) for v in search.front.values}
