"""The equivalent-points reduction that every solver's bounds use.

Rows with identical binary feature vectors can never be separated by any
tree or rule list, so solvers work on the distinct vectors ("equivalent
points") with their per-class weights.
"""

from typing import NamedTuple

import numpy as np


class Points(NamedTuple):
    """Distinct feature vectors and what they carry.

    Attributes
    ----------
    X : array of uint8, shape (u, m)
        The distinct rows, in lexicographic order.
    class_weight : array of float64, shape (u, k)
        Total (sample-weighted) mass of each class at each distinct row.
    rows : array of int64, shape (u,)
        Number of raw rows at each distinct row.
    point_of_row : array of int64, shape (n,)
        Index of the distinct row of every raw row.
    """

    X: np.ndarray
    class_weight: np.ndarray
    rows: np.ndarray
    point_of_row: np.ndarray

    @property
    def n_points(self):
        return self.X.shape[0]

    def minority_mass(self):
        """Return the mass that every classifier must misclassify: each point's non-majority classes."""
        return float((self.class_weight.sum(axis=1) - self.class_weight.max(axis=1)).sum())


def equivalent_points(X, y, n_classes, weights=None):
    """Group identical rows of ``X`` and sum their class weights.

    Parameters
    ----------
    X : array of uint8, shape (n, m)
    y : array of int64, shape (n,)
    n_classes : int
    weights : array of float64, shape (n,), optional
    """
    X = np.ascontiguousarray(X, dtype=np.uint8)
    n, m = X.shape
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    if m == 0:
        unique, inverse = np.zeros((1 if n else 0, 0), dtype=np.uint8), np.zeros(n, dtype=np.int64)
    else:
        keys = np.packbits(X, axis=1)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        unique = X[first]
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    u = unique.shape[0]
    class_weight = np.zeros((u, n_classes))
    np.add.at(class_weight, (inverse, np.asarray(y, dtype=np.int64)), weights)
    rows = np.bincount(inverse, minlength=u).astype(np.int64)
    return Points(unique, class_weight, rows, inverse)
