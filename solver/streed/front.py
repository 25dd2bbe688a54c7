"""Fronts: the values of a subproblem's candidate trees, each with its tree and its number of branching nodes.

A tree is a nested tuple, ``(label,)`` or ``(feature, left, right)`` with the left child x_f = 0.
``Trees`` holds a front's trees as references, built only when read; ``decode`` and ``decode3``
turn the kernels' tree codes (``solver.streed.depth_two``, ``solver.streed.f1_fronts``) into tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.streed.depth_two import NONE

INF = float("inf")


class Trees:
    """The trees of a front, built when read: point ``i`` is row ``rows[i]`` of source ``sources[part[i]]``.

    A front can hold hundreds of thousands of points (fairness fronts below the root) of
    which the search reads a few trees; building a nested tuple per point cost more than
    the merges themselves. A source is one of

    * ``("list", trees)``: nested tuples, row ``r`` is ``trees[r]``;
    * ``("split", f, left, right, pairs)``: row ``r`` is ``(f, left[pairs[r, 0]], right[pairs[r, 1]])``;
    * ``("codes", codes, free)``: depth-two codes (``decode``), ``free`` maps their features;
    * ``("codes3", codes, free)``: depth-three codes of ``solver.streed.f1_fronts.solve_f1_depth_three``;
    * ``("codes4", codes, free)``: depth-four codes of ``solver.streed.f1_fronts.solve_f1_depth_four``.
    """

    __slots__ = ("sources", "part", "rows")

    def __init__(self, sources, part, rows):
        self.sources, self.part, self.rows = sources, part, rows

    @classmethod
    def of(cls, source, k):
        return cls([source], np.zeros(k, dtype=np.int64), np.arange(k, dtype=np.int64))

    @classmethod
    def listed(cls, trees):
        return cls.of(("list", list(trees)), len(trees))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        source, r = self.sources[self.part[i]], int(self.rows[i])
        kind = source[0]
        if kind == "list":
            return source[1][r]
        if kind == "split":
            _, f, left, right, pairs = source
            return (f, left[pairs[r, 0]], right[pairs[r, 1]])
        if kind == "codes":
            return decode(source[1][r], source[2])
        if kind == "codes3":
            return decode3(source[1][r], source[2])
        row = source[1][r]
        if row[0] == NONE:
            return (int(row[1]),)
        return (int(row[0]), decode3(row[1:16], source[2]), decode3(row[16:31], source[2]))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def take(self, keep):
        trees = Trees(self.sources, self.part[keep], self.rows[keep])
        if len(self.sources) > 32:
            trees.compact()
        return trees

    def compact(self):
        """Drop the sources no point refers to any more."""
        used, self.part = np.unique(self.part, return_inverse=True)
        self.sources = [self.sources[u] for u in used.tolist()]

    def extended(self, keep, split):
        """Return the trees of points ``keep`` of this front followed by the rows of ``split`` (a split source).

        Index ``i < len(self)`` is this front's point ``i``, ``len(self) + r`` the split's row ``r``;
        the split's pairs are cut to the rows kept, so a front does not hold every merged pair.
        """
        old = len(self)
        new = keep >= old
        kept = keep[new] - old
        part = np.full(len(keep), len(self.sources), dtype=np.int64)
        rows = np.arange(len(keep), dtype=np.int64) - np.cumsum(~new)
        part[~new] = self.part[keep[~new]]
        rows[~new] = self.rows[keep[~new]]
        _, f, left, right, pairs = split
        trees = Trees(self.sources + [("split", f, left, right, pairs[kept])], part, rows)
        if len(trees.sources) > 32:
            trees.compact()
        return trees


@dataclass
class Front:
    """Values (m, p), one tree per value (nested tuples: ``(label,)`` or ``(feature, left, right)``) and node counts.

    ``trees`` is a ``Trees`` (a list given here is wrapped in one).
    """

    values: np.ndarray
    trees: Trees
    nodes: np.ndarray

    def __post_init__(self):
        if not isinstance(self.trees, Trees):
            self.trees = Trees.listed(self.trees)

    def __len__(self):
        return len(self.trees)

    def take(self, keep):
        keep = np.asarray(keep, dtype=np.int64)
        return Front(self.values[keep], self.trees.take(keep), self.nodes[keep])


def empty(p):
    return Front(np.empty((0, p)), [], np.empty(0, dtype=np.int64))


def smallest_first(values):
    """Return the smallest first component of values (k, p), k ≥ 1 (one point: no reduction)."""
    return float(values[0, 0]) if len(values) == 1 else float(values[:, 0].min())


def below(front, ub):
    """Return the points of ``front`` whose first component is below ``ub``."""
    if ub == INF or len(front) == 0:
        return front
    if len(front) == 1:
        return front if front.values[0, 0] < ub else front.take(np.empty(0, dtype=np.int64))
    return front.take(np.flatnonzero(front.values[:, 0] < ub))


def caps_below(caps, ub):
    """Return ``caps`` with the first component kept strictly below ``ub``."""
    caps = caps.copy()
    caps[0] = min(caps[0], np.nextafter(ub, -INF))
    return caps


def count_nodes(tree):
    return 0 if len(tree) == 1 else 1 + count_nodes(tree[1]) + count_nodes(tree[2])


def decode(code, free):
    """Return the nested-tuple tree of a depth-two code (see ``solver.streed.depth_two``); ``free`` names its features."""
    f1, fl, la, lb, fr, ra, rb = code.tolist()
    if f1 == NONE:
        return (la,)
    name = (lambda f: f) if free is None else (lambda f: int(free[f]))  # None: already original features
    left = (la,) if fl == NONE else (name(fl), (la,), (lb,))
    right = (ra,) if fr == NONE else (name(fr), (ra,), (rb,))
    return (name(f1), left, right)


def decode3(code, free):
    """Return the nested-tuple tree of a depth-three code (``solver.streed.f1_fronts.solve_f1_depth_three``)."""
    if code[0] == NONE:
        return (int(code[1]),)
    return (int(code[0]), decode(code[1:8], free), decode(code[8:15], free))


def depth_three_tree(code):
    """Return the nested-tuple tree of a depth-three code of ``bitcount.solve_depth_four_root``."""
    # (feature, left depth-two code, right depth-two code, leaf label) over the original features.
    if code[0] == NONE:
        return (int(code[15]),)
    return (int(code[0]), decode(code[1:8], None), decode(code[8:15], None))
