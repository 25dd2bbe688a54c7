"""Pair counts of a node's rows for the depth-two solver (spec §3.6, App. B; incremental counts).

``S[a, b]`` sums the rows' vectors ``A[i]`` over rows with features a and b, ``C[a, b]`` counts
them, ``tot`` sums every row (``solver.streed.depth_two.count_pairs``). When the rows' vectors are
one-hot (classes) or take a few small-integer vectors (fairness's (label, group) indicators), the
sums are popcounts over 64-row words (``solver.streed.bitcount``).
"""

from __future__ import annotations

import numpy as np

from solver.driver import in_pieces
from solver.streed import bitcount
from solver.streed.depth_two import add_pairs, count_pairs, sorted_difference

# Work (popcounts of 64-row words, or pair updates) up to which pair sums are counted in one kernel call;
# beyond it they are counted in pieces, yielding between them (the anytime contract).
ONE_CALL_WORK = 2e7
ONE_CALL_BYTES = 2**25  # tables up to this size are copied or subtracted in one numpy call, larger ones in pieces


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

    def steps(self, ids, path=()):
        """Generator: the pair sums of ``ids`` (its value), counted afresh or updated from the closest of the last two sets.

        Work estimates: a row update touches every pair of the row's present features
        (``c²/2 · (1 + R)``); a fresh count is one pass over the rows, or for one-hot
        tasks ``q²/2 · R`` popcounts per 64 rows (``solver.streed.bitcount``). A child of
        the depth-three node whose rows are packed (``pack_node``) is counted from those
        bitsets, the right one as the parent's sums minus its left sibling's (§3.6).
        Work above ``ONE_CALL_WORK`` runs in pieces with a yield between them.
        """
        q, R = self.X.shape[1], self.A.shape[1]
        node = self.packed
        if node is not None and len(path) and path[:-1] == node["path"]:
            return (yield from self._child_counts(node, ids, *path[-1]))
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
                bits, cls = bitcount.pack_rows(self.X, ids, self.labels, R)
                S, C, tot = yield from _masked(bits, cls, bitcount.row_mask(len(ids)), fresh)
            elif patterns:
                index, vectors = patterns
                bits, cls = bitcount.pack_rows(self.X, ids, index, len(vectors))
                S, C, tot = yield from _masked(bits, cls, bitcount.row_mask(len(ids)), fresh)
                S, tot = np.ascontiguousarray(S @ vectors), tot @ vectors
            elif fresh <= ONE_CALL_WORK:
                S, C, tot = count_pairs(self.X, ids, self.A)
            else:
                S, C, tot = np.zeros((q, q, R)), np.zeros((q, q), dtype=np.int64), np.zeros(R)
                yield from self._add(ids, 1, S, C, tot)
            self.counted.append((ids, S, C, tot))
            if len(self.counted) > 2:
                self.counted.pop(0)
            return S, C, tot
        _, S, C, tot = self.counted[best]
        S, C, tot = (yield from _rows_of(S, S, 0)), (yield from _rows_of(C, C, 0)), tot.copy()
        yield from self._add(plan[1], 1, S, C, tot)
        yield from self._add(plan[2], -1, S, C, tot)
        self.counted[best] = (ids, S, C, tot)
        return S, C, tot

    def _add(self, rows, sign, S, C, tot):
        # Generator: add_pairs over ``rows``, in pieces when the work is large.
        if len(rows) * self.per_row <= ONE_CALL_WORK:
            add_pairs(self.X, rows, self.A, sign, S, C, tot)
            return
        yield from in_pieces(
            len(rows),
            lambda lo, hi: add_pairs(self.X, rows[lo:hi], self.A, sign, S, C, tot),
            first=ONE_CALL_WORK / self.per_row,
        )

    def pack_node(self, ids, path):
        """Pack the rows of a node whose children are depth-two subproblems into bitsets, once."""
        bits, cls = bitcount.pack_rows(self.X, ids, self.labels, self.A.shape[1])
        full = bitcount.row_mask(len(ids))
        self.packed = {"path": path, "ids": ids, "bits": bits, "cls": cls, "full": full, "counts": None, "left": None}

    def _child_counts(self, node, ids, f, side):
        # Generator. Left child (x_f = 0): popcounts over the parent's bitsets; right: parent minus left when known.
        bits, cls, full = node["bits"], node["cls"], node["full"]
        work = bits.shape[0] ** 2 / 2 * cls.shape[0] * bits.shape[1]
        if side == 0:
            counts = yield from _masked(bits, cls, full & ~bits[f], work)
            node["left"] = (f, counts)
            return counts
        if node["left"] is not None and node["left"][0] == f:
            if node["counts"] is None:
                node["counts"] = yield from _masked(bits, cls, full, work)
            S, C, tot = node["counts"]
            Sl, Cl, tl = node["left"][1]
            return (yield from _rows_of(S, Sl, 1)), (yield from _rows_of(C, Cl, 1)), tot - tl
        return (yield from _masked(bits, cls, full & bits[f], work))


def _masked(bits, cls, mask, work):
    """Generator: ``bitcount.count_masked(bits, cls, mask)`` (its value), in pieces of rows when ``work`` is large."""
    if work <= ONE_CALL_WORK:
        return bitcount.count_masked(bits, cls, mask)
    M, S, C, tot = bitcount.masked_start(bits, cls, mask)
    q = bits.shape[0]
    per_row = q * cls.shape[0] * bits.shape[1]  # the first rows of the triangle are the longest
    yield from in_pieces(q, lambda lo, hi: bitcount.masked_rows(bits, M, S, C, lo, hi), first=ONE_CALL_WORK / per_row)
    return S, C, tot


def _rows_of(A, B, subtract):
    """Generator: a copy of ``A`` (``subtract`` 0) or ``A − B`` (1), its value; large tables in pieces of rows."""
    if A.nbytes <= ONE_CALL_BYTES:
        return A - B if subtract else A.copy()
    out = np.empty_like(A)

    def run(lo, hi):
        if subtract:
            np.subtract(A[lo:hi], B[lo:hi], out=out[lo:hi])
        else:
            out[lo:hi] = A[lo:hi]

    yield from in_pieces(len(A), run, first=ONE_CALL_BYTES / max(1, A[:1].nbytes))
    return out
