"""Counting, filtering, ranking, sampling and voting over the Rashomon graph (spec §3, §4.1).

Every operation is a dynamic program over the and/or graph: a vertex's histogram (subtrees per
(mistakes, leaves) cell) is its leaf plus, for each option, the pairs of its children's cells whose
keys fit the vertex's budget. A filter changes which leaves and options are allowed (features that
must not be used, a depth limit) or which root cells are read (leaves, training score), so a filtered
count costs one pass over the graph and never lists a tree. Listing, the k best and uniform samples
unrank integers into trees (spec §3.2).

``TreeSet`` reads the graph from a plain dict (``TreeSet.to_dict``), so the same code runs in the
solver right after the search and on the web from a stored result.
"""

from __future__ import annotations

import base64
import io
import random
import time
import zlib
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

import numpy as np

from solver.rashomon.graph import combine, leaf_pairs
from solver.rashomon.objective import Keys


@dataclass(frozen=True)
class Filter:
    """Which trees of the set to keep.

    ``exclude``: features no split may use; ``include``: features every tree must use somewhere;
    ``max_depth``: most splits on a path; ``leaves``/``mistakes``: inclusive (low, high) ranges, None
    for open ends.
    """

    exclude: frozenset = field(default_factory=frozenset)
    include: frozenset = field(default_factory=frozenset)
    max_depth: int | None = None
    leaves: tuple = (None, None)
    mistakes: tuple = (None, None)

    def cell_ok(self, m, h):
        return _within(h, self.leaves) and _within(m, self.mistakes)


def _within(x, bounds):
    lo, hi = bounds
    return (lo is None or x >= lo) and (hi is None or x <= hi)


NO_FILTER = Filter()

TICK = 256  # vertices computed between two looks at the clock
LIST_CELL = 200_000  # a root cell with at most this many trees is listed whole (``TreeSet._all``), not rank by rank


class OutOfTime(Exception):
    """A computation on the set passed its ``TreeSet.deadline``; nothing it cached is wrong, it is only unfinished."""


class TreeSet:
    """The Rashomon set stored as its graph; every statistic is computed on the graph.

    Attributes (parallel lists over vertices)
    -----------------------------------------
    leaf_m, label, budget : list of int
    options : list of list of (feature, child for 0, child for 1)
    counts : list of (float, float)
        Training (weighted) class counts of the rows reaching the vertex (for drawing trees).
    root : int
        The root vertex, or -1 for an empty set.
    theta : int
        The key bound of the set (every tree has key ≤ theta).
    alt : list of tuple of int, optional
        ``leaf_labels="any"``: every vertex's leaf mistakes per label (each label's leaf is a tree); None
        when leaves predict their majority label.
    cells : list, optional
        Every vertex's unfiltered cells as the search built them (``Graph.cells``), so counting the
        whole set, ranking and sampling read them instead of recomputing them.
    deadline : float or None
        A ``time.perf_counter()`` value: a dynamic program still running then raises ``OutOfTime``.
    """

    def __init__(self, keys, leaf_m, label, budget, options, counts, root, theta, trivial=True, cells=None, alt=None):
        self.keys, self.alt = keys, alt
        self.leaf_m, self.label, self.budget, self.options, self.counts = leaf_m, label, budget, options, counts
        self.root, self.theta, self.trivial = root, theta, trivial
        self._hists = {}
        self._built = cells
        self.deadline = None
        self._ticks = 0

    def _tick(self):
        self._ticks += 1
        if self.deadline is not None and self._ticks % TICK == 0 and time.perf_counter() > self.deadline:
            raise OutOfTime

    # -- the histogram DP -------------------------------------------------------------------------

    def hist(self, v, flt=NO_FILTER, depth=None, cache=None):
        """Return (key-sorted cells, {cell: count}) of the subtrees of ``v`` allowed by ``flt`` (``depth``: splits left)."""
        cache = self._cache(flt) if cache is None else cache
        state = (v, depth)
        hit = cache.get(state)
        if hit is not None:
            return hit
        if self._built is not None and depth is None and not flt.exclude:
            cells = self._built[v]  # the search's own cells: the same dynamic program, already done
            cache[state] = hit = (cells, {(m, h): n for _, m, h, n in cells})
            return hit
        self._tick()
        out = {}
        for _, m in self.leaves(v):
            out[(m, 1)] = out.get((m, 1), 0) + 1
        if depth is None or depth > 0:
            below = None if depth is None else depth - 1
            for j, c0, c1 in self.options[v]:
                if j in flt.exclude:
                    continue
                cells0 = self.hist(c0, flt, below, cache)[0]
                cells1 = self.hist(c1, flt, below, cache)[0]
                for cell, n in combine(cells0, cells1, self.budget[v], self._pairs(c0, c1)).items():
                    out[cell] = out.get(cell, 0) + n
        cells = sorted((self.keys.key(m, h), m, h, n) for (m, h), n in out.items() if n)
        cache[state] = hit = (cells, {(m, h): n for _, m, h, n in cells})
        return hit

    def leaves(self, v):
        """Return ``[(label, mistakes)]`` of the leaves of vertex ``v`` within its budget (its trees with one leaf)."""
        options = [(self.label[v], self.leaf_m[v])] if self.alt is None else list(enumerate(self.alt[v]))
        return [(c, m) for c, m in options if self.keys.key(m, 1) <= self.budget[v]]

    def _pairs(self, c0, c1):
        return leaf_pairs(self.keys, self.trivial, self.label, self.alt, c0, c1)

    def leaf_of(self, v, label):
        """Return the nested-tuple leaf of vertex ``v`` predicting ``label``: ``(v,)`` for its majority label."""
        return (v,) if label == self.label[v] else (v, label)

    def leaf_label(self, t):
        return self.label[t[0]] if len(t) == 1 else t[1]

    def leaf_mistakes(self, t):
        return self.leaf_m[t[0]] if len(t) == 1 else self.alt[t[0]][t[1]]

    def mistakes(self, tree):
        """Return the (integer) mistakes of a nested-tuple tree."""
        return sum(self.leaf_mistakes(t) for t in leaf_nodes(tree))

    def _cache(self, flt):
        key = (flt.exclude, flt.max_depth)
        return self._hists.setdefault(key, {})

    def _root_hist(self, flt):
        if self.root < 0:
            return [], {}
        return self.hist(self.root, flt, flt.max_depth)

    def cells(self, flt=NO_FILTER):
        """Return the root's cells ``(key, mistakes, leaves, count)`` that ``flt`` keeps, by objective.

        ``flt.include`` is applied by inclusion–exclusion over its features: trees using all of them =
        Σ over subsets A of (−1)^|A| · trees using none of A.
        """
        include = sorted(flt.include - flt.exclude) if not (flt.include & flt.exclude) else None
        if include is None:
            return []
        total = {}
        for size in range(len(include) + 1):
            for subset in combinations(include, size):
                sub = Filter(exclude=flt.exclude | frozenset(subset), max_depth=flt.max_depth)
                for k, m, h, n in self._root_hist(sub)[0]:
                    if k <= self.theta and flt.cell_ok(m, h):
                        total[(k, m, h)] = total.get((k, m, h), 0) + (-1) ** size * n
        return [(k, m, h, n) for (k, m, h), n in sorted(total.items()) if n]

    def count(self, flt=NO_FILTER):
        """Return the exact number of trees of the set that ``flt`` keeps (a Python int)."""
        return sum(n for *_, n in self.cells(flt))

    # -- trees ----------------------------------------------------------------------------------

    def unrank(self, v, cell, r, flt=NO_FILTER, depth=None):
        """Return tree number ``r`` of the subtrees of ``v`` in ``cell`` (``flt.exclude`` and depth apply).

        Trees are nested tuples of vertex ids: ``(v,)`` for a leaf, ``(v, feature, left, right)``.
        """
        m, h = cell
        if h == 1:
            for label, mc in self.leaves(v):
                if mc == m:
                    if r == 0:
                        return self.leaf_of(v, label)
                    r -= 1
            raise IndexError("rank out of range")
        below = None if depth is None else depth - 1
        for j, c0, c1 in self.options[v]:
            if j in flt.exclude:
                continue
            cells0 = self.hist(c0, flt, below)[0]
            table1 = self.hist(c1, flt, below)[1]
            pairs = self._pairs(c0, c1)
            if pairs and h == 2:
                for _, mm, a, b in pairs:
                    if mm == m:
                        if r == 0:
                            return (v, j, self.leaf_of(c0, a), self.leaf_of(c1, b))
                        r -= 1
            for _, m0, h0, n0 in cells0:
                n1 = table1.get((m - m0, h - h0))
                if not n1 or (pairs is not None and h0 == 1 and h - h0 == 1):
                    continue
                n = n0 * n1
                if r < n:
                    a, b = divmod(r, n1)
                    return (
                        v,
                        j,
                        self.unrank(c0, (m0, h0), a, flt, below),
                        self.unrank(c1, (m - m0, h - h0), b, flt, below),
                    )
                r -= n
        raise IndexError("rank out of range")

    def _pick(self, cells, rank):
        for k, m, h, n in cells:
            if rank < n:
                return (m, h), rank
            rank -= n
        raise IndexError("rank out of range")

    def tree_at(self, rank, flt=NO_FILTER):
        """Return tree number ``rank`` in objective order (ties in a fixed but arbitrary order).

        With ``flt.include``, trees are drawn from the set without ``flt.include``'s exclusions and
        skipped when they miss an included feature, so ranks then follow that order too.
        """
        if flt.include:
            raise ValueError("tree_at takes no 'must use' filter; use trees() or sample()")
        cell, r = self._pick(self.cells(flt), rank)
        return self.unrank(self.root, cell, r, flt, flt.max_depth)

    def trees(self, flt=NO_FILTER, limit=None):
        """Yield (key, tree) in non-decreasing objective, at most ``limit`` of them (the k best)."""
        base = Filter(exclude=flt.exclude, max_depth=flt.max_depth, leaves=flt.leaves, mistakes=flt.mistakes)
        given, memo = 0, {}
        for k, m, h, n in self.cells(base):
            if n <= LIST_CELL and (limit is None or limit - given >= n):  # a whole cell: built once, in rank order
                cell = iter(self._all(self.root, (m, h), base, base.max_depth, memo))
            else:
                cell = (self.unrank(self.root, (m, h), r, base, base.max_depth) for r in range(n))
            for tree in cell:
                if limit is not None and given >= limit:
                    return
                if flt.include and not flt.include <= features_of(tree):
                    continue
                given += 1
                yield k, tree

    def _all(self, v, cell, flt, depth, memo):
        """Return every subtree of ``v`` in ``cell`` in ``unrank``'s order (rank 0 first), sharing sub-lists in ``memo``.

        A subtree's list is never longer than the root cell it serves (each one pairs with at least one
        sibling), so a cell of at most ``LIST_CELL`` trees costs at most that much per vertex and cell.
        """
        key = (v, cell, depth)
        hit = memo.get(key)
        if hit is not None:
            return hit
        self._tick()
        m, h = cell
        if h == 1:
            out = [self.leaf_of(v, label) for label, mc in self.leaves(v) if mc == m]
        else:
            out = []
            below = None if depth is None else depth - 1
            for j, c0, c1 in self.options[v]:
                if j in flt.exclude:
                    continue
                cells0, table1 = self.hist(c0, flt, below)[0], self.hist(c1, flt, below)[1]
                pairs = self._pairs(c0, c1)
                if pairs and h == 2:
                    out += [(v, j, self.leaf_of(c0, a), self.leaf_of(c1, b)) for _, mm, a, b in pairs if mm == m]
                for _, m0, h0, _ in cells0:
                    rest = (m - m0, h - h0)
                    if not table1.get(rest) or (pairs is not None and h0 == 1 and rest[1] == 1):
                        continue
                    rights = self._all(c1, rest, flt, below, memo)
                    out += [(v, j, a, b) for a in self._all(c0, (m0, h0), flt, below, memo) for b in rights]
        memo[key] = out
        return out

    def passes(self, tree, flt):
        """Return whether one listed tree (nested tuples, as ``trees`` yields) is kept by ``flt``."""
        used = features_of(tree)
        leaves, depth = shape(tree)
        mistakes = self.mistakes(tree)
        return (
            not (used & flt.exclude)
            and flt.include <= used
            and (flt.max_depth is None or depth <= flt.max_depth)
            and flt.cell_ok(mistakes, leaves)
        )

    def sample(self, n, seed=0, flt=NO_FILTER):
        """Return ``n`` trees drawn uniformly (with replacement) from the trees ``flt`` keeps."""
        rng = random.Random(seed)
        base = Filter(exclude=flt.exclude, max_depth=flt.max_depth, leaves=flt.leaves, mistakes=flt.mistakes)
        cells = self.cells(base)
        total = sum(c[-1] for c in cells)
        out = []
        if not total or (flt.include and not self.count(flt)):
            return out
        while len(out) < n:  # rejection on 'must use': uniform over the trees that pass
            cell, r = self._pick(cells, rng.randrange(total))
            tree = self.unrank(self.root, cell, r, base, base.max_depth)
            if not flt.include or flt.include <= features_of(tree):
                out.append(tree)
        return out

    def objective(self, key):
        return Fraction(key, self.keys.scale * self.keys.q)

    # -- statistics -----------------------------------------------------------------------------

    def features_used(self):
        """Return the features that appear in some option of the graph."""
        return sorted({j for opts in self.options for j, _, _ in opts})

    def importance(self, flt=NO_FILTER):
        """Return ``{feature: trees using it}`` over the trees ``flt`` keeps (``count`` minus the count without it)."""
        total = self.count(flt)
        return {
            j: total
            - self.count(
                Filter(
                    exclude=flt.exclude | {j},
                    include=flt.include,
                    max_depth=flt.max_depth,
                    leaves=flt.leaves,
                    mistakes=flt.mistakes,
                )
            )
            for j in self.features_used()
            if j not in flt.exclude
        }

    def votes(self, x, flt=NO_FILTER, label=1):
        """Return the number of trees ``flt`` keeps that predict ``label`` on the binary row ``x`` (spec §4.1)."""
        if flt.include:
            total_ones = 0
            include = sorted(flt.include)
            for size in range(len(include) + 1):
                for subset in combinations(include, size):
                    sub = Filter(
                        exclude=flt.exclude | frozenset(subset),
                        max_depth=flt.max_depth,
                        leaves=flt.leaves,
                        mistakes=flt.mistakes,
                    )
                    total_ones += (-1) ** size * self.votes(x, sub, label)
            return total_ones
        if self.root < 0:
            return 0
        memo = {}
        cells = self._ones(self.root, x, flt, flt.max_depth, memo, label)[0]
        return sum(n for k, m, h, n in cells if k <= self.theta and flt.cell_ok(m, h))

    def _ones(self, v, x, flt, depth, memo, target=1):
        state = (v, depth)
        hit = memo.get(state)
        if hit is not None:
            return hit
        self._tick()
        out = {}
        for label, m in self.leaves(v):
            if label == target:
                out[(m, 1)] = 1
        if depth is None or depth > 0:
            below = None if depth is None else depth - 1
            for j, c0, c1 in self.options[v]:
                if j in flt.exclude:
                    continue
                pairs = self._pairs(c0, c1)
                if x[j]:
                    cells0, cells1 = self.hist(c0, flt, below)[0], self._ones(c1, x, flt, below, memo, target)[0]
                    pairs = pairs if not pairs else [p for p in pairs if p[3] == target]
                else:
                    cells0, cells1 = self._ones(c0, x, flt, below, memo, target)[0], self.hist(c1, flt, below)[0]
                    pairs = pairs if not pairs else [p for p in pairs if p[2] == target]
                for cell, n in combine(cells0, cells1, self.budget[v], pairs).items():
                    out[cell] = out.get(cell, 0) + n
        cells = sorted((self.keys.key(m, h), m, h, n) for (m, h), n in out.items() if n)
        memo[state] = hit = (cells,)
        return hit

    # -- storage --------------------------------------------------------------------------------

    def to_dict(self):
        """Return the graph as JSON-able lists (counts are recomputed from it)."""
        return {
            "q": self.keys.q,
            "lam": self.keys.lam,
            "scale": self.keys.scale,
            "root": self.root,
            "theta": self.theta,
            "trivial": self.trivial,
            "leaf_m": self.leaf_m,
            "label": self.label,
            "budget": self.budget,
            "options": [[list(o) for o in opts] for opts in self.options],
            "counts": [list(c) for c in self.counts],
            "alt": None if self.alt is None else [list(a) for a in self.alt],
        }

    def to_packed(self):
        """Return the graph as a compact JSON-able dict: its arrays as one zlib-compressed, base64 ``.npz``.

        Falls back to ``to_dict`` when an integer does not fit 64 bits (exact weights with a huge
        common denominator). ``from_dict`` reads both.
        """
        n = len(self.leaf_m)
        big = max(self.budget, default=0) >= 2**62 or max(self.leaf_m, default=0) >= 2**62
        if big or (self.alt is not None and max((max(a) for a in self.alt), default=0) >= 2**62):
            return self.to_dict()
        start = np.zeros(n + 1, dtype=np.int64)
        flat = []
        for v, opts in enumerate(self.options):
            if v % 8192 == 0 and self.deadline is not None and time.perf_counter() > self.deadline:
                raise OutOfTime
            start[v + 1] = start[v] + len(opts)
            flat.extend(opts)
        opts = np.asarray(flat, dtype=np.int32).reshape(-1, 3)
        buffer = io.BytesIO()
        np.savez(
            buffer,
            leaf_m=np.asarray(self.leaf_m, dtype=np.int64),
            label=np.asarray(self.label, dtype=np.int8),
            budget=np.asarray(self.budget, dtype=np.int64),
            start=start,
            options=opts,
            counts=np.asarray(self.counts, dtype=np.float64).reshape(n, -1),
            **({} if self.alt is None else {"alt": np.asarray(self.alt, dtype=np.int64).reshape(n, -1)}),
        )
        return {
            "format": "npz-zlib-base64",
            "q": self.keys.q,
            "lam": self.keys.lam,
            "scale": self.keys.scale,
            "root": self.root,
            "theta": self.theta,
            "trivial": self.trivial,
            "vertices": n,
            "data": base64.b64encode(zlib.compress(buffer.getvalue(), 6)).decode("ascii"),
        }

    @classmethod
    def from_dict(cls, d):
        if d.get("format") == "npz-zlib-base64":
            a = np.load(io.BytesIO(zlib.decompress(base64.b64decode(d["data"]))))
            start, flat = a["start"].tolist(), [tuple(o) for o in a["options"].tolist()]
            options = [flat[start[v] : start[v + 1]] for v in range(len(start) - 1)]
            return cls(
                Keys(q=int(d["q"]), lam=int(d["lam"]), scale=int(d["scale"])),
                a["leaf_m"].tolist(),
                a["label"].tolist(),
                a["budget"].tolist(),
                options,
                [tuple(c) for c in a["counts"].tolist()],
                int(d["root"]),
                int(d["theta"]),
                bool(d.get("trivial", True)),
                alt=[tuple(x) for x in a["alt"].tolist()] if "alt" in a.files else None,
            )
        return cls(
            Keys(q=int(d["q"]), lam=int(d["lam"]), scale=int(d["scale"])),
            list(d["leaf_m"]),
            list(d["label"]),
            list(d["budget"]),
            [[tuple(o) for o in opts] for opts in d["options"]],
            [tuple(c) for c in d["counts"]],
            int(d["root"]),
            int(d["theta"]),
            bool(d.get("trivial", True)),
            alt=None if d.get("alt") is None else [tuple(x) for x in d["alt"]],
        )


def is_leaf(tree):
    """Whether a nested-tuple tree is a leaf: ``(v,)`` (the majority label of vertex v) or ``(v, label)``."""
    return len(tree) < 4


def features_of(tree):
    """Return the set of features a nested-tuple tree splits on."""
    if is_leaf(tree):
        return frozenset()
    return frozenset({tree[1]}) | features_of(tree[2]) | features_of(tree[3])


def leaf_nodes(tree):
    """Return the leaves (nested tuples) of a tree, left to right."""
    return [tree] if is_leaf(tree) else leaf_nodes(tree[2]) + leaf_nodes(tree[3])


def tree_text(tree, label):
    """Return ``xj?(A|B)`` notation (spec §7) with 1-based features; ``label[v]`` is each majority leaf's prediction."""
    if is_leaf(tree):
        return str(label[tree[0]] if len(tree) == 1 else tree[1])
    return f"x{tree[1] + 1}?({tree_text(tree[2], label)}|{tree_text(tree[3], label)})"


def shape(tree):
    """Return (leaves, depth) of a nested-tuple tree."""
    if is_leaf(tree):
        return 1, 0
    l0, d0 = shape(tree[2])
    l1, d1 = shape(tree[3])
    return l0 + l1, 1 + max(d0, d1)
