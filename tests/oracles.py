"""Brute-force oracles over binary trees on tiny data, shared by the solver tests.

They know nothing of bounds: ``enumerate_trees`` lists every tree, and
``best_additive`` is the plain recursion over all splits. Splits that leave one
side empty are skipped, as the solvers do; such a split only adds a leaf.
"""

import numpy as np


def enumerate_trees(X, rows=None, depth=3, used=()):
    """Yield every tree of at most ``depth`` splits over ``rows`` as a list of leaves.

    Each leaf is an int64 array of row indices. Features already split on along
    the path are not split again (that would leave a side empty).

    Parameters
    ----------
    X : array of uint8, shape (n, m)
    rows : array of int64, optional
    depth : int
    """
    rows = np.arange(X.shape[0]) if rows is None else rows
    yield [rows]
    if depth == 0:
        return
    for j in range(X.shape[1]):
        if j in used:
            continue
        mask = X[rows, j] == 1
        left, right = rows[~mask], rows[mask]
        if len(left) == 0 or len(right) == 0:
            continue
        rights = list(enumerate_trees(X, right, depth - 1, used + (j,)))
        for lt in enumerate_trees(X, left, depth - 1, used + (j,)):
            for rt in rights:
                yield lt + rt


def best_tree_objective(X, objective, depth=3):
    """Return the minimum of ``objective(leaves)`` over every tree of at most ``depth`` splits."""
    return min(objective(leaves) for leaves in enumerate_trees(X, depth=depth))


def best_additive(X, leaf_cost, depth=3, rows=None, used=()):
    """Return the optimal objective of an additive problem: ``min`` over trees of the sum of ``leaf_cost(rows)``.

    ``leaf_cost`` includes the per-leaf penalty λ.
    """
    rows = np.arange(X.shape[0]) if rows is None else rows
    best = leaf_cost(rows)
    if depth == 0:
        return best
    for j in range(X.shape[1]):
        if j in used:
            continue
        mask = X[rows, j] == 1
        left, right = rows[~mask], rows[mask]
        if len(left) == 0 or len(right) == 0:
            continue
        split = best_additive(X, leaf_cost, depth - 1, left, used + (j,))
        if split >= best:
            continue
        split += best_additive(X, leaf_cost, depth - 1, right, used + (j,))
        best = min(best, split)
    return best


def misclassification_leaf_cost(y, weights, lam, n_classes=2):
    """Return ``leaf_cost(rows)``: weighted minority mass + λ (accuracy-style objectives)."""

    def cost(rows):
        mass = np.bincount(y[rows], weights=weights[rows], minlength=n_classes)
        return mass.sum() - mass.max() + lam

    return cost
