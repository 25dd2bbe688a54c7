"""The Rashomon set as an and/or graph of subproblems (spec §2), built by a pausable search.

A vertex is a subproblem: the rows that reach it (a Python-int bitset), the splits it may still
make and, when subproblems are keyed by path (leaf permutation bound off), the path. Its OR choice is
"leaf" or one of its ``options`` (feature, vertex for ``x = 0``, vertex for ``x = 1``); an option is an
AND of one subtree from each child. ``cells`` is the vertex's histogram: for every (mistakes, leaves)
pair with key at most the vertex's ``budget``, the exact number of its subtrees with that key. The
number in a cell does not depend on the budget, so a vertex rebuilt with a larger budget keeps every
cell it had and its parents stay valid (spec §2.4, "sharing").

Budgets (spec §2.2): a child of a split gets its parent's budget minus a sound lower bound of its
sibling. Lower bounds come from the equivalent points (GOSDT Thm B.9), the one-step lookahead
(Thm B.2) and, once a vertex is built, its exact optimum (its smallest key) or, when it holds no tree
within its budget, that budget plus one (the hierarchical bound, Thm B.1). No incumbent prunes, and
the incremental-progress, leaf-support and similar-support rules of GOSDT are never used: they are
unsound for listing every tree within the bound (spec §2.1).
"""

from __future__ import annotations

import numpy as np

UNLIMITED = -1
MAX_KEY = 1 << 62  # keys and their sums stay below this in the kernels' int64


def combine(cells0, cells1, budget, leaf_pairs=None):
    """Return ``{(m, h): count}`` of the pairs of subtrees from two children whose keys sum to at most ``budget``.

    ``cells0``/``cells1`` are sorted by key. ``leaf_pairs``: None counts every pair; a list of ``(key, m, …)``
    replaces the pairs of two leaves by exactly those (the pairs that are not trivial extensions, spec §1.2
    rule 5: two leaves predicting the same label).
    """
    out = {}
    if not cells0 or not cells1:
        return out
    skip = leaf_pairs is not None
    min1 = cells1[0][0]
    for k0, m0, h0, n0 in cells0:
        if k0 + min1 > budget:
            break
        for k1, m1, h1, n1 in cells1:
            if k0 + k1 > budget:
                break
            if skip and h0 == 1 and h1 == 1:
                continue
            cell = (m0 + m1, h0 + h1)
            out[cell] = out.get(cell, 0) + n0 * n1
    for pair in leaf_pairs or ():
        if pair[0] <= budget:
            out[(pair[1], 2)] = out.get((pair[1], 2), 0) + 1
    return out


def leaf_pairs(keys, trivial, label, alt, v0, v1):
    """Return ``combine``'s ``leaf_pairs`` for a split into ``v0`` and ``v1``: None (every pair of leaves counts) or
    the non-trivial pairs ``(key, m, label of v0's leaf, label of v1's leaf)``.

    ``alt``: None when leaves predict their majority label, else every vertex's leaf mistakes per label
    (``leaf_labels="any"``).
    """
    if not trivial:
        return None
    if alt is None:
        if label[v0] != label[v1]:
            return None
        return []
    return [
        (keys.key(m0 + m1, 2), m0 + m1, a, b) for a, m0 in enumerate(alt[v0]) for b, m1 in enumerate(alt[v1]) if a != b
    ]


def sorted_cells(hist, keys):
    """Return ``hist`` as a key-sorted list of (key, m, h, count), dropping empty cells."""
    return sorted((keys.key(m, h), m, h, n) for (m, h), n in hist.items() if n)


class Graph:
    """The vertices, as parallel lists indexed by vertex id."""

    def __init__(self, rows):
        self.rows = rows
        self.support, self.depth, self.leaf_m, self.label = [], [], [], []
        self.budget, self.options, self.cells = [], [], []
        self.alt = None  # leaf_labels="any": every vertex's leaf mistakes per label
        self.index = {}  # (support, depth, path) -> vertex id

    def __len__(self):
        return len(self.support)

    def add(self, key, leaf_m, label, alt=None):
        v = len(self.support)
        if alt is not None:
            self.alt = [] if self.alt is None else self.alt
            self.alt.append(alt)
        self.index[key] = v
        self.support.append(key[0])
        self.depth.append(key[1])
        self.leaf_m.append(leaf_m)
        self.label.append(label)
        self.budget.append(-1)
        self.options.append([])
        self.cells.append([])
        return v

    def leaf_key(self, v):
        return self.rows.keys.key(self.leaf_m[v], 1)

    def first_cell(self, v):
        """Return ``(key, m, h, count)`` of the smallest key of vertex ``v`` (its optimum)."""
        return self.cells[v][0]


class Builder:
    """Builds the vertices a request ``(support, depth, path, budget)`` needs, a bounded number of steps at a time.

    Each vertex under construction is a generator that yields the child requests it needs and
    returns its vertex id (or -1 when it holds no tree within the budget). ``step`` runs the
    generators from an explicit stack, so the search can stop between any two steps and resume.
    """

    def __init__(
        self,
        rows,
        max_depth=None,
        lookahead=True,
        equivalent=True,
        hierarchical=True,
        permutation=True,
        trivial=True,
        any_label=False,
    ):
        self.rows, self.keys = rows, rows.keys
        self.graph = Graph(rows)
        self.any_label = any_label  # every label's leaf is a tree, not only the majority's (arborenum's default)
        self.lookahead, self.equivalent, self.hierarchical = lookahead, equivalent, hierarchical
        self.permutation, self.trivial = permutation, trivial
        self.root_depth = UNLIMITED if max_depth is None else int(max_depth)
        self.proved = {}  # vertex key -> proved lower bound on its best subtree (exact optimum once built)
        self.empty = {}  # vertex key -> largest budget under which it holds no tree
        self.cheap = {}  # support -> (leaf mistakes, label, lower bound of a split)
        self.stack, self.value = [], None
        self.expansions = 0

    # -- bounds ---------------------------------------------------------------------------------

    def _facts(self, support):
        f = self.cheap.get(support)
        if f is None:
            m, label = self.rows.leaf(support)
            ep = self.rows.unavoidable(support) if self.equivalent else 0  # Thm B.9
            split = ep * self.keys.q + (2 if self.lookahead else 1) * self.keys.lam  # Thm B.2: two leaves at least
            f = self.cheap[support] = (m, label, split)
        return f

    def lower(self, key):
        """Return a sound lower bound on the key of every subtree of vertex ``key``."""
        support, depth, _ = key
        m, _, split = self._facts(support)
        leaf = self.keys.key(m, 1)
        bound = leaf if depth == 0 or support & (support - 1) == 0 else min(leaf, split)
        if self.hierarchical:
            bound = max(bound, self.proved.get(key, bound))
        return bound

    # -- requests -------------------------------------------------------------------------------

    def resolve(self, key, budget):
        """Return the vertex id, -1 (no tree within ``budget``), or None when the vertex must be (re)built."""
        if budget < self.lower(key) or budget <= self.empty.get(key, -1):
            return -1
        v = self.graph.index.get(key)
        if v is not None and self.graph.budget[v] >= budget:
            return v if self.graph.cells[v] and self.graph.cells[v][0][0] <= budget else -1
        return None

    def request(self, key, budget):
        """Start building ``key`` under ``budget`` (call ``step`` until it returns True; then read ``result``)."""
        self.result = self.resolve(key, budget)
        if self.result is None:
            self.stack = [self._build(key, budget)]
            self.value = None

    def step(self, work):
        """Advance the build by at most ``work`` generator steps; return True when the request is answered."""
        stack = self.stack
        while stack and work > 0:
            try:
                child = stack[-1].send(self.value)
            except StopIteration as done:
                stack.pop()
                self.value = done.value
                continue
            resolved = self.resolve(*child)
            if resolved is not None:
                self.value = resolved
                continue
            stack.append(self._build(*child))
            self.value = None
            work -= 1
            self.expansions += 1
        if not stack:
            self.result = self.value
            return True
        return False

    # -- one vertex -----------------------------------------------------------------------------

    def _child_key(self, key, feature, side, rows):
        support, depth, path = key
        child_depth = depth - 1 if depth > 0 else depth
        return rows, child_depth, path if self.permutation else (path, feature, side)

    def _build(self, key, budget):
        support, depth, _ = key
        m, label, _ = self._facts(support)
        keys, g = self.keys, self.graph
        hist = {}
        alt = self.rows.leaves(support) if self.any_label else None
        for mc in (m,) if alt is None else alt:
            if keys.key(mc, 1) <= budget:
                hist[(mc, 1)] = hist.get((mc, 1), 0) + 1
        options = []
        if depth != 0:
            for j, col in enumerate(self.rows.cols):
                ones = support & col
                if ones == 0 or ones == support:
                    continue  # an empty side is not a split (spec §1.1)
                k0 = self._child_key(key, j, 0, support ^ ones)
                k1 = self._child_key(key, j, 1, ones)
                lb0, lb1 = self.lower(k0), self.lower(k1)
                if lb0 + lb1 > budget:
                    continue  # hierarchical bound: the split cannot fit
                v0 = yield k0, budget - lb1
                if v0 < 0:
                    continue
                min0 = g.cells[v0][0][0]
                v1 = yield k1, budget - (min0 if self.hierarchical else lb0)
                if v1 < 0:
                    continue
                pairs = combine(
                    g.cells[v0], g.cells[v1], budget, leaf_pairs(keys, self.trivial, g.label, g.alt, v0, v1)
                )
                if pairs:
                    options.append((j, v0, v1))
                    for cell, n in pairs.items():
                        hist[cell] = hist.get(cell, 0) + n
        cells = sorted_cells(hist, keys)
        if not cells:
            self.empty[key] = max(budget, self.empty.get(key, -1))
            self.proved[key] = max(self.proved.get(key, 0), budget + 1)
            return -1
        v = g.index.get(key)
        if v is None:
            v = g.add(key, m, label, alt)
        g.budget[v], g.options[v], g.cells[v] = budget, options, cells
        self.proved[key] = cells[0][0]  # every subtree within the budget is here: the smallest key is the optimum
        return v


class Overflow(Exception):
    """A count or key of the set does not fit in int64: the Python builder (``Builder``) builds it instead."""


def words_of(bits, words):
    """Return a Python-int bitset as ``words`` uint64 words."""
    return np.frombuffer(bits.to_bytes(8 * words, "little"), dtype=np.uint64).copy()


def _table(items, words):
    out = np.zeros((len(items), words), dtype=np.uint64)
    for i, bits in enumerate(items):
        out[i] = words_of(bits, words)
    return out


def data_of(rows, b):
    """Return ``kernels.Data`` for ``rows`` and the switches of builder ``b``; raise ``Overflow`` when keys may not fit."""
    from solver.rashomon import kernels

    words = max(1, (rows.n + 63) // 64)
    keys = rows.keys
    total = sum(cost * bits.bit_count() for _, cost, bits in rows.groups)
    if (total + 1) * keys.q + 2 * (rows.n + 2) * keys.lam >= MAX_KEY:
        raise Overflow
    return kernels.Data(
        cols=_table(rows.cols, words),
        grp_rows=_table([g[2] for g in rows.groups], words),
        grp_class=np.array([g[0] for g in rows.groups], dtype=np.int64),
        grp_cost=np.array([g[1] for g in rows.groups], dtype=np.int64),
        mixed_rows=_table([g[0] for g in rows.mixed], words),
        mixed_cost=np.array([g[1] for g in rows.mixed], dtype=np.int64),
        k=int(rows.n_classes),
        q=int(keys.q),
        lam=int(keys.lam),
        lookahead=bool(b.lookahead),
        equivalent=bool(b.equivalent),
        hierarchical=bool(b.hierarchical),
        permutation=bool(b.permutation),
        trivial=bool(b.trivial),
        any_label=bool(b.any_label),
    )


class KernelGraph:
    """The built vertices as ``Graph``'s parallel lists, read from the kernel's arrays when asked."""

    def __init__(self, builder):
        self.builder = builder
        self._lists, self._version = None, -1

    def __len__(self):
        return int(self.builder.st.counts[4])

    def _read(self):
        b = self.builder
        if self._version != b.version:
            st, n = b.st, len(self)
            c = st.counts
            key, m, h, cnt = (a[: c[5]].tolist() for a in (st.c_key, st.c_m, st.c_h, st.c_n))
            oj, o0, o1 = (a[: c[6]].tolist() for a in (st.o_j, st.o_v0, st.o_v1))
            cells, options = [], []
            for s, ln, os_, ol in zip(
                st.v_cstart[:n].tolist(), st.v_clen[:n].tolist(), st.v_ostart[:n].tolist(), st.v_olen[:n].tolist()
            ):
                cells.append(list(zip(key[s : s + ln], m[s : s + ln], h[s : s + ln], cnt[s : s + ln])))
                options.append(list(zip(oj[os_ : os_ + ol], o0[os_ : os_ + ol], o1[os_ : os_ + ol])))
            entries = st.v_entry[:n]
            self._lists = {
                "cells": cells,
                "options": options,
                "leaf_m": st.v_m[:n].tolist(),
                "label": st.v_label[:n].tolist(),
                "budget": st.v_budget[:n].tolist(),
                "depth": st.edepth[entries].tolist(),
                "alt": [tuple(a) for a in st.v_alt[:n].tolist()] if b.any_label and n else None,
            }
            self._version = b.version
        return self._lists

    def first_cell(self, v):
        """Return ``(key, m, h, count)`` of the smallest key of vertex ``v``, without reading the whole graph."""
        st = self.builder.st
        i = int(st.v_cstart[v])
        return tuple(int(a[i]) for a in (st.c_key, st.c_m, st.c_h, st.c_n))

    @property
    def support(self):
        st, n = self.builder.st, len(self)
        return [int.from_bytes(row.tobytes(), "little") for row in st.ekeys[st.v_entry[:n]]]

    def __getattr__(self, name):
        if name in ("cells", "options", "leaf_m", "label", "budget", "depth", "alt"):
            return self._read()[name]
        raise AttributeError(name)


class KernelBuilder:
    """``Builder``'s build in compiled kernels (``solver.rashomon.kernels``): the same requests, steps and graph.

    ``step`` runs ``kernels.run`` for at most ``work`` vertex builds, grows the arrays it asks for and returns,
    so the driver checks its limits between steps. A count or key past int64 raises ``Overflow`` (the search
    then builds with ``Builder``, whose Python integers have no limit).
    """

    def __init__(
        self,
        rows,
        max_depth=None,
        lookahead=True,
        equivalent=True,
        hierarchical=True,
        permutation=True,
        trivial=True,
        any_label=False,
    ):
        from solver.rashomon import kernels

        self.kernels = kernels
        self.rows, self.keys = rows, rows.keys
        self.any_label = any_label
        self.lookahead, self.equivalent, self.hierarchical = lookahead, equivalent, hierarchical
        self.permutation, self.trivial = permutation, trivial
        self.data = data_of(rows, self)
        self.words = self.data.cols.shape[1] if self.data.cols.shape[0] else max(1, (rows.n + 63) // 64)
        self.st = self.kernels.new_state(self.words, self.data.k)
        self.paths = kernels.new_paths()
        self.need = np.zeros(2, dtype=np.int64)
        self.graph = KernelGraph(self)
        self.expansions = self.growths = 0
        self.version = 0
        self.result = None

    def request(self, key, budget):
        """Start building the root ``key`` (its rows are every row) under ``budget``."""
        support, depth, _ = key
        bits = words_of(support, self.words)
        self.version += 1
        while True:
            self.result = self.kernels.request(self.st, self.data, bits, int(depth), int(budget), self.need)
            if self.result != self.kernels.NEEDS:
                break
            self.st = self.kernels.grown(self.st, self.need)
        self.result = None if self.result == self.kernels.BUILD else int(self.result)

    def step(self, work):
        if self.result is not None:
            return True
        left = max(1, int(work))
        while True:
            status, done = self.kernels.run(self.st, self.data, self.paths, left, self.need)
            self.expansions += done
            left -= done
            if status != self.kernels.NEEDS_MEMORY:
                break
            self.st = self.kernels.grown(self.st, self.need)
            self.growths += 1
        self.version += 1
        if status == self.kernels.OVERFLOW:
            raise Overflow
        if status == self.kernels.DONE:
            self.result = int(self.st.counts[7])
            return True
        return False

    def state_bytes(self):
        return sum(a.nbytes for a in self.st)
