"""Shared builders for the GOSDT tests: problems from arrays or shared files, the brute-force optimum."""

import itertools

import numpy as np

from conftest import shared_dataset
from solver.data import Roles, make_problem, read_file
from solver.gosdt.dpb.search import SWITCHES, class_scale
from solver.problem import Problem
from tests.oracles import best_additive, misclassification_leaf_cost

ADDITIVE = ("accuracy", "balanced_accuracy", "weighted_accuracy")


def problem(X, y, weights=None, n_classes=2):
    """Return a classification ``Problem`` of a 0/1 matrix."""
    X = np.asarray(X, dtype=np.uint8)
    return Problem(
        X=X,
        features=[{"kind": "binary", "column": f"x{j}"} for j in range(X.shape[1])],
        y=np.asarray(y, dtype=np.int64),
        classes=[str(c) for c in range(n_classes)],
        sample_weight=weights,
    )


def shared(name):
    """Return the ``Problem`` of a binary shared dataset (label last)."""
    table = read_file(shared_dataset(f"{name}.csv"))
    return make_problem(table, Roles(label=table.names[-1]), "none")


def row_weights(p, objective, cost_weight=1.0):
    """Return each row's loss when misclassified (spec §1.4), sample weights included."""
    mass = np.bincount(p.y, weights=p.weights, minlength=p.n_classes)
    return p.weights * class_scale(objective, mass, cost_weight)[p.y]


def brute_force(p, objective, lam, depth=None, cost_weight=1.0):
    """Return the optimum by the plain recursion over every split (Appendix E, no bounds)."""
    cost = misclassification_leaf_cost(p.y, row_weights(p, objective, cost_weight), lam, p.n_classes)
    return best_additive(p.X, cost, depth=p.n_features if depth is None else depth)


def objective_of(model, p, objective, lam, cost_weight=1.0):
    """Recompute loss + λ × leaves of ``model`` from the data."""
    wrong = model.predict(p.X) != p.y
    return float(row_weights(p, objective, cost_weight)[wrong].sum() + lam * model.n_leaves)


def switch_combinations():
    return [dict(zip(SWITCHES, values)) for values in itertools.product((True, False), repeat=len(SWITCHES))]
