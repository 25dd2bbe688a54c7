"""Shared builders for the OSDT tests: problems from arrays or shared files, runs, objectives."""

import numpy as np

from conftest import shared_dataset
from solver import Limits, solve
from solver.data import Roles, make_problem, read_file
from solver.problem import Problem

SWITCHES = (
    "use_hierarchical_bound",
    "use_lookahead_bound",
    "use_equivalent_points_bound",
    "use_support_bound",
    "use_incremental_accuracy_bound",
    "use_leaf_accuracy_bound",
    "use_leaf_count_bound",
    "use_prefix_leaf_count_bound",
    "use_permutation_map",
    "use_similar_support",
)


def problem(X, y, weights=None):
    """Return a binary classification ``Problem`` of a 0/1 matrix."""
    X = np.asarray(X, dtype=np.uint8)
    return Problem(
        X=X,
        features=[{"kind": "binary", "column": f"x{j}"} for j in range(X.shape[1])],
        y=np.asarray(y, dtype=np.int64),
        classes=["0", "1"],
        sample_weight=weights,
    )


def shared(name):
    """Return the ``Problem`` of a binary shared dataset (label last)."""
    table = read_file(shared_dataset(f"{name}.csv"))
    return make_problem(table, Roles(label=table.names[-1]), "none")


def run(p, time_limit=None, **params):
    return solve(p, "osdt", params, Limits(time_limit=time_limit))


def objective(model, p, lam):
    """Recompute misclassified share + λ × leaves of ``model`` from the data."""
    wrong = model.predict(p.X) != p.y
    return float(p.weights[wrong].sum() / p.weights.sum() + lam * model.n_leaves)
