"""Shared builders for the tests of GOSDT's F-score, AUC and pAUC search: problems, runs, oracles."""

import numpy as np

from conftest import shared_dataset
from solver import Limits, solve
from solver.data import Roles, make_problem, read_file
from solver.problem import Problem
from solver.roc import rank_loss
from tests.oracles import enumerate_trees

SWITCHES = (
    "use_hierarchical_bound",
    "use_lookahead_bound",
    "use_equivalent_points_bound",
    "use_incremental_progress_bound",
    "use_leaf_permutation_bound",
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


def counts_problem(table):
    """Return the problem of ``{"x1x2...": (positives, negatives)}`` (rows repeated by count)."""
    rows, ys = [], []
    for pattern, (p, n) in table.items():
        x = [int(c) for c in pattern]
        rows += [x] * (p + n)
        ys += [1] * p + [0] * n
    return problem(np.array(rows), np.array(ys))


def shared(name):
    """Return the ``Problem`` of a binary shared dataset (label last)."""
    table = read_file(shared_dataset(f"{name}.csv"))
    return make_problem(table, Roles(label=table.names[-1]), "none")


def run(p, time_limit=None, **params):
    return solve(p, "gosdt", params, Limits(time_limit=time_limit))


def leaf_counts(model):
    """Return the positive and negative counts of the model's leaves."""
    leaves = model.feature < 0
    return model.counts[leaves, 1], model.counts[leaves, 0]


def model_objective(model, objective, lam, omega=1.0, theta=1.0):
    """Recompute loss + λ × leaves of a fitted tree from its leaf counts (``solver.roc``, not the kernels)."""
    pos, neg = leaf_counts(model)
    return rank_loss(objective, pos, neg, omega, theta) + lam * model.n_leaves


def brute_force(X, y, objective, lam, depth, omega=1.0, theta=1.0, weights=None):
    """Return the least objective over every tree of at most ``depth`` splits (``tests.oracles``)."""
    w = np.ones(len(y)) if weights is None else weights
    best = np.inf
    for leaves in enumerate_trees(X, depth=depth):
        pos = np.array([w[rows][y[rows] == 1].sum() for rows in leaves])
        neg = np.array([w[rows][y[rows] == 0].sum() for rows in leaves])
        best = min(best, rank_loss(objective, pos, neg, omega, theta) + lam * len(leaves))
    return best
