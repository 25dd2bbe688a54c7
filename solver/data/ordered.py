"""Binary features grouped back into ordered columns: one rank per row instead of one 0/1 column per cut.

The cuts ``x ≤ t₀ < t₁ < …`` of one numeric column are nested: a row satisfies cut ``k`` iff its value's
*bucket* (the number of cuts below it) is at most ``k``. So a family of ``m`` nested binary features is
stored as one rank per row, ``0 … m`` (``m``: above every cut, or missing), and binary feature
``offset[f] + k`` is true iff ``rank[f, row] ≤ k``. A declared order of a text column nests the same
way; every other feature (0/1 columns, one-hot categories, missingness) is a family of one cut
(rank 0 where true, 1 where false).

The ordered solvers (``solver.ordered``) search these ranks directly; every other solver and the
models keep reading binary features, which ``OrderedColumns.binary`` materialises when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver import predicates


@dataclass(frozen=True, eq=False)
class OrderedColumns:
    """Families of nested binary features as ranks.

    Attributes
    ----------
    rank : array of int32, shape (F, n)
        Bucket of each row in each family, ``0 … size[f]``.
    offset : array of int64, shape (F,)
        Index of the family's first binary feature (its smallest cut).
    size : array of int64, shape (F,)
        Number of binary features (cuts) in each family.
    """

    rank: np.ndarray
    offset: np.ndarray
    size: np.ndarray

    @property
    def n_samples(self):
        return self.rank.shape[1]

    @property
    def n_features(self):
        """Number of binary features the families stand for."""
        return int(self.size.sum())

    def locate(self, feature):
        """Return ``(family, cut)`` of a binary feature index."""
        f = int(np.searchsorted(self.offset, feature, side="right")) - 1
        return f, int(feature - self.offset[f])

    def column(self, feature, rows=None):
        """Return the binary feature as an array of bool, shape (n,) (or of ``rows``)."""
        f, k = self.locate(feature)
        rank = self.rank[f] if rows is None else self.rank[f, rows]
        return rank <= k

    def binary(self, columns=None):
        """Return every binary feature (or those of ``columns``, in that order): array of uint8, shape (n, m)."""
        if columns is not None:
            columns = np.asarray(columns, dtype=np.int64)
            X = np.empty((self.n_samples, len(columns)), dtype=np.uint8)
            family = np.searchsorted(self.offset, columns, side="right") - 1
            for j, (f, k) in enumerate(zip(family.tolist(), (columns - self.offset[family]).tolist())):
                np.less_equal(self.rank[f], k, out=X[:, j], casting="unsafe")
            return X
        X = np.zeros((self.n_samples, self.n_features), dtype=np.uint8)
        for f in range(len(self.size)):
            start = int(self.offset[f])
            cuts = np.arange(int(self.size[f]))
            X[:, start : start + len(cuts)] = self.rank[f][:, None] <= cuts[None, :]
        return X

    def class_mass_at_or_below(self, y, weights, n_classes):
        """Return the weight of each class on the rows of every binary feature: array, shape (n_features, n_classes).

        Row ``offset[f] + k`` is the mass of the rows of rank ``≤ k`` in family ``f`` (one pass per family).
        """
        out = np.empty((self.n_features, n_classes))
        for f in range(len(self.size)):
            start, size = int(self.offset[f]), int(self.size[f])
            for c in range(n_classes):
                mass = np.bincount(self.rank[f], weights=np.where(y == c, weights, 0.0), minlength=size + 1)
                out[start : start + size, c] = np.cumsum(mass[:size])
        return out

    def take(self, rows):
        return OrderedColumns(rank=np.ascontiguousarray(self.rank[:, rows]), offset=self.offset, size=self.size)

    def cells(self):
        """Return how many cells the binary matrix would have."""
        return self.n_samples * self.n_features


def families(features):
    """Return ``(start, stop)`` of each family: maximal runs of nested cuts of one column, else single features.

    Cuts nest when they are ``threshold`` predicates of one column with increasing thresholds, or
    ``ordinal`` predicates of one column and order with increasing positions.
    """
    runs = []
    start = 0
    for j in range(1, len(features) + 1):
        if j < len(features) and _nests(features[j - 1], features[j]):
            continue
        runs.append((start, j))
        start = j
    return runs


def _nests(a, b):
    if a["kind"] != b["kind"] or a.get("column") != b.get("column"):
        return False
    if a["kind"] == "threshold":
        return b["threshold"] > a["threshold"]
    if a["kind"] == "ordinal":
        return a["order"] == b["order"] and a["order"].index(b["value"]) > a["order"].index(a["value"])
    return False


def from_table(features, table, runs=None, codes=None):
    """Return the ``OrderedColumns`` of ``features`` evaluated on a raw table (without the binary matrix).

    Parameters
    ----------
    features : list of dict
        Predicates (``solver.predicates``), in the binarizer's order.
    table : mapping of str to array, shape (n,)
    runs : list of (int, int), optional
        The families as ``(start, stop)`` when the caller knows them (else ``families(features)``).
    codes : dict of str to (array, array), optional
        Numeric columns' distinct values ascending and each row's index into them (-1: missing): a family's
        ranks then come from its cuts against the distinct values, not against every row.
    """
    codes = codes or {}
    runs = families(features) if runs is None else runs
    n = len(next(iter(table.values()))) if table else 0
    rank = np.zeros((len(runs), n), dtype=np.int32)
    cache = {}
    for f, (start, stop) in enumerate(runs):
        first = features[start]
        if stop - start > 1 and first["kind"] == "threshold":
            cuts = features.cuts(start, stop) if hasattr(features, "cuts") else None
            if cuts is None:
                cuts = np.array([features[j]["threshold"] for j in range(start, stop)])
            if first["column"] in codes:
                uniq, row_codes = codes[first["column"]]
                # A missing value (code -1) satisfies no cut: the last entry, above them all.
                bucket = np.append(np.searchsorted(cuts, uniq, side="left"), stop - start)
                rank[f] = bucket[row_codes]
            else:
                values = predicates._as_float(table[first["column"]])
                with np.errstate(invalid="ignore"):
                    bucket = np.searchsorted(cuts, values, side="left")
                bucket[np.isnan(values)] = stop - start  # a missing value satisfies no cut
                rank[f] = bucket
        elif stop - start > 1:  # ordinal
            truth = np.column_stack([predicates.evaluate(features[j], table, cache) for j in range(start, stop)])
            rank[f] = (stop - start) - truth.sum(axis=1)
        else:
            rank[f] = ~predicates.evaluate(first, table, cache)
    return _make(runs, rank)


def from_binary(X, features):
    """Return the ``OrderedColumns`` of a binary matrix whose nested families are given by ``features``.

    A run of features that says it nests but does not on these rows (each cut's rows must include the
    previous cut's) is kept as single features.
    """
    runs = []
    for start, stop in families(features):
        block = X[:, start:stop]
        if stop - start > 1 and not (np.diff(block.astype(np.int8), axis=1) >= 0).all():
            runs += [(j, j + 1) for j in range(start, stop)]
        else:
            runs.append((start, stop))
    rank = np.zeros((len(runs), X.shape[0]), dtype=np.int32)
    for f, (start, stop) in enumerate(runs):
        rank[f] = (stop - start) - X[:, start:stop].sum(axis=1, dtype=np.int64)
    return _make(runs, rank)


def _make(runs, rank):
    offset = np.array([a for a, _ in runs], dtype=np.int64)
    size = np.array([b - a for a, b in runs], dtype=np.int64)
    return OrderedColumns(rank=np.ascontiguousarray(rank), offset=offset, size=size)
