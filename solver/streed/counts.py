"""Pair counts of a node's rows for the depth-two solver (spec §3.6, App. B; incremental counts).

``S[a, b]`` sums the rows' vectors ``A[i]`` over rows with features a and b, ``C[a, b]`` counts
them, ``tot`` sums every row (``solver.streed.depth_two.count_pairs``). When the rows' vectors are
one-hot (classes) or take a few small-integer vectors (fairness's (label, group) indicators), the
sums are popcounts over 64-row words (``solver.streed.bitcount``).
"""

from __future__ import annotations

import numpy as np

from solver.streed import bitcount
from solver.streed.depth_two import add_pairs, count_pairs, sorted_difference


class PairCounts:
    """The pair sums of row sets of one matrix: counted afresh, updated from a recent set, or from a packed parent.

    Parameters
    ----------
    X : array of uint8, shape (n, m)
    A : array of float64, shape (n, R)
        The task's row vectors.
    labels : array of int64 or None
        The class of each row when the rows of ``A`` are one-hot.
    """

    def __init__(self, X, A, labels):
        self.X, self.A, self.labels = X, A, labels
        self.patterns = None if labels is None else False  # see pattern_index
        present = float(X.sum()) / max(X.shape[0], 1)  # features present per row, on average
        self.per_row = max(present, 1.0) ** 2 / 2 * (1 + A.shape[1])
        self.counted = []  # the last two (ids, S, C, tot) counted
        self.packed = None  # the bitsets of the last node whose children are depth-two (see pack_node)

    def pattern_index(self):
        """Return (index per row, vectors) when the rows of A take a few distinct small-integer vectors, else False.

        Fairness rows are (label, group) indicators: four vectors. Pair sums are then the popcount
        counts per vector times that vector (exact integers), like one-hot classes. Found on first use
        (a relaxed bound's solver shares its parent's counts and never needs them).
        """
        if self.patterns is None:
            self.patterns = False
            A = self.A
            if 0 < A.shape[1] <= 7 and len(A) and (A >= 0).all() and (A <= 255).all() and (A == np.floor(A)).all():
                keys = A.astype(np.int64) @ (256 ** np.arange(A.shape[1], dtype=np.int64))
                values, index = np.unique(keys, return_inverse=True)
                if len(values) <= 8:
                    vectors = np.ascontiguousarray(
                        ((values[:, None] // 256 ** np.arange(A.shape[1])) % 256).astype(np.float64)
                    )
                    self.patterns = (np.ascontiguousarray(index.ravel(), dtype=np.int64), vectors)
        return self.patterns

    def __call__(self, ids, path=()):
        """Return the pair sums of ``ids``: counted afresh, or updated from the closest of the last two counted sets.

        Work estimates: a row update touches every pair of the row's present features
        (``c²/2 · (1 + R)``); a fresh count is one pass over the rows, or for one-hot
        tasks ``q²/2 · R`` popcounts per 64 rows (``solver.streed.bitcount``). A child of
        the depth-three node whose rows are packed (``pack_node``) is counted from those
        bitsets, the right one as the parent's sums minus its left sibling's (§3.6).
        """
        q, R = self.X.shape[1], self.A.shape[1]
        node = self.packed
        if node is not None and len(path) and path[:-1] == node["path"]:
            return self._child_counts(node, ids, *path[-1])
        patterns = self.pattern_index() if self.labels is None else False
        if self.labels is not None or patterns:
            kinds = R if self.labels is not None else len(patterns[1])
            fresh = len(ids) * q + q * (q + 1) / 2 * kinds * ((len(ids) + 63) // 64)
        else:
            fresh = len(ids) * self.per_row
        best, plan = None, None
        for i, (old, S, C, tot) in enumerate(self.counted):
            if len(old) == len(ids) and np.array_equal(old, ids):
                return S, C, tot  # counted already (the relaxed bound's solver counts a child first)
            added = sorted_difference(ids, old)
            removed = sorted_difference(old, ids)
            work = (len(added) + len(removed)) * self.per_row
            if work < fresh and (plan is None or work < plan[0]):
                best, plan = i, (work, added, removed)
        if plan is None:
            if self.labels is not None:
                S, C, tot = bitcount.count_pairs_bits(self.X, ids, self.labels, R)
            elif patterns:
                index, vectors = patterns
                S, C, tot = bitcount.count_pairs_bits(self.X, ids, index, len(vectors))
                S, tot = np.ascontiguousarray(S @ vectors), tot @ vectors
            else:
                S, C, tot = count_pairs(self.X, ids, self.A)
            self.counted.append((ids, S, C, tot))
            if len(self.counted) > 2:
                self.counted.pop(0)
            return S, C, tot
        _, S, C, tot = self.counted[best]
        S, C, tot = S.copy(), C.copy(), tot.copy()
        add_pairs(self.X, plan[1], self.A, 1, S, C, tot)
        add_pairs(self.X, plan[2], self.A, -1, S, C, tot)
        self.counted[best] = (ids, S, C, tot)
        return S, C, tot

    def pack_node(self, ids, path):
        """Pack the rows of a node whose children are depth-two subproblems into bitsets, once."""
        bits, cls = bitcount.pack_rows(self.X, ids, self.labels, self.A.shape[1])
        full = bitcount.row_mask(len(ids))
        self.packed = {"path": path, "ids": ids, "bits": bits, "cls": cls, "full": full, "counts": None, "left": None}

    def _child_counts(self, node, ids, f, side):
        # Left child (x_f = 0): popcounts over the parent's bitsets; right: parent minus left when it is known.
        if side == 0:
            counts = bitcount.count_masked(node["bits"], node["cls"], node["full"] & ~node["bits"][f])
            node["left"] = (f, counts)
            return counts
        if node["left"] is not None and node["left"][0] == f:
            if node["counts"] is None:
                node["counts"] = bitcount.count_masked(node["bits"], node["cls"], node["full"])
            S, C, tot = node["counts"]
            Sl, Cl, tl = node["left"][1]
            return S - Sl, C - Cl, tot - tl
        return bitcount.count_masked(node["bits"], node["cls"], node["full"] & node["bits"][f])
