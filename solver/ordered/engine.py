"""The Python side of the ordered search: set it up, run it in bounded steps, read its trees.

``Engine(rank, cost, depth, nodes, cc=...)`` minimises, over binary trees of depth ≤ ``depth`` with
≤ ``nodes`` branching nodes whose splits are ``rank[f] < u``, the sum over leaves of
``min_l Σ_{rows} cost[row, l]`` plus ``cc`` per branching node. STreeD's scalar tasks give
``cost`` and ``cc = 0``; GOSDT's additive objectives give per-row losses and ``cc = λ``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from solver.ordered import cache, kernel
from solver.ordered import state as sm

UNLIMITED = 1 << 40
LOWER_BOUND_AFTER = 0.02  # seconds of search before the root's bound is read (a quick search ends proved)
# Features × rows up to which the root searches its features in turns (a slot of about 60 bytes per row each).
ROUND_ROBIN_CELLS = 4_000_000


def dense_ranks(values):
    """Return the dense rank of every value of each row of ``values`` (F, N), as int32 (equal values, equal ranks)."""
    values = np.asarray(values)
    out = np.empty(values.shape, dtype=np.int32)
    for f in range(values.shape[0]):
        _, inverse = np.unique(values[f], return_inverse=True)
        out[f] = inverse.reshape(-1)
    return out


def stable_order(rank):
    """Return the stable argsort of each row of ``rank`` (F, N) as int32 (F, N).

    A row whose ranks fit 16 bits is sorted as ``uint16``, which numpy sorts by radix: on flights (336,776 rows,
    10 columns) 0.13 s instead of 0.95 s for int32 (its merge sort), the largest part of the search's set-up.
    """
    F, N = rank.shape
    order = np.empty((F, N), dtype=np.int32)
    for f in range(F):
        row = rank[f]
        if N and row.min() >= 0 and row.max() < 2**16:
            row = row.astype(np.uint16)
        order[f] = np.argsort(row, kind="stable")
    return order


def class_rows(cost):
    """Return the class of every row when ``cost[r]`` is ``w[r]`` under all labels but one and 0 under it, else None.

    Rows of zero cost everywhere fit any class (0).
    """
    N, L = cost.shape
    w = cost.max(axis=1)
    ty = cost.argmin(axis=1)
    expected = np.repeat(w[:, None], L, axis=1)
    expected[np.arange(N), ty] = 0.0
    return ty.astype(np.int32) if np.array_equal(expected, cost) else None


ALL_RANKS = 2**31 - 1


def root_bounds(F, features):
    """Return ``Inputs.root``: per feature the ranks ``[lo, hi)`` of the root's splits ``rank < u`` (None: all).

    ``features``: entries ``f`` (every threshold of feature ``f``) or ``(f, lo, hi)`` (its splits with
    ``lo ≤ u < hi``); the features not named are not split at the root.
    """
    bounds = np.zeros((F, 2), dtype=np.int32)
    if features is None:
        bounds[:, 1] = ALL_RANKS
        return bounds
    named = set()
    for entry in features:
        f, lo, hi = (int(entry), 0, ALL_RANKS) if np.ndim(entry) == 0 else (int(entry[0]), entry[1], entry[2])
        if f in named:
            raise ValueError(f"feature {f} is named twice in root_features (one range per feature)")
        named.add(f)
        bounds[f] = (lo, hi)
    return bounds


def class_weights(w, ty, L):
    """Return each class's row weight when the weight of class rows depends on their class alone, else empty."""
    if ty is None or len(w) == 0:
        return np.zeros(0)
    cw = np.zeros(L)
    cw[ty] = w
    return cw if np.array_equal(cw[ty], w) else np.zeros(0)


HIST_MIN_ROWS = 20_000  # below, the depth-two walks are as fast as the histograms' set-up
HIST_RATIO = 128.0  # histograms when they cost at most this many depth-two walks


def hist_ratio(use_histograms, N):
    """Return ``Params.hist_ratio``: ``use_histograms`` None (auto: on large data), True (always) or False."""
    if use_histograms is None:
        return HIST_RATIO if N >= HIST_MIN_ROWS else 0.0
    return np.inf if use_histograms else 0.0


class Engine:
    """One ordered search over ``rank`` (F, N) and ``cost`` (N, L), run in bounded steps.

    Parameters
    ----------
    rank : array of int, shape (F, N)
        Ranks (any integers whose order is the feature's order; equal values must be equal).
    cost : array of float64, shape (N, L)
        Non-negative cost of each row under each leaf label.
    depth : int or None
        Most branching nodes on a root-to-leaf path (None: unlimited).
    nodes : int or None
        Most branching nodes in the tree (None: as many as the depth allows).
    cc : float
        Cost of each branching node.
    min_leaf : int
    switches : bool
        ``use_upper_bound``, ``use_interval``, ``use_cache``, ``use_depth_two``, ``order_features``,
        ``round_robin`` (None: when features × rows ≤ ``ROUND_ROBIN_CELLS``), ``use_histograms`` (None: on
        ``HIST_MIN_ROWS`` rows or more, when cheaper; True: whenever they fit): each leaves the optimum unchanged.
    upper : float
        Look only for trees worth less than ``upper`` (the value of a tree the caller holds: a warm start). A
        search that ends without one proves the optimum ``≥ upper`` (``found`` is False, ``lower_bound`` says
        so); ``tighten`` lowers it during the search.
    order : array of int, shape (F, N), optional
        Each feature's rows sorted by rank (any order of tied rows), when the caller has it: no sort again.
    root_features : sequence, optional
        The only splits the root may make (one piece of a split search, ``solver.ordered.split``): entries
        ``f`` (every threshold of feature ``f``) or ``(f, lo, hi)`` (``rank < u`` for ``lo ≤ u < hi``); all of
        them by default. Deeper nodes split on every feature.
    """

    def __init__(
        self,
        rank,
        cost,
        depth=None,
        nodes=None,
        cc=0.0,
        min_leaf=1,
        use_upper_bound=True,
        use_interval=True,
        use_cache=True,
        use_depth_two=True,
        order_features=True,
        round_robin=None,
        use_histograms=None,
        seed=0x5EED,
        upper=math.inf,
        order=None,
        root_features=None,
    ):
        rank = np.ascontiguousarray(rank, dtype=np.int32)
        cost = np.ascontiguousarray(cost, dtype=np.float64)
        if cost.ndim != 2 or rank.ndim != 2 or rank.shape[1] != cost.shape[0]:
            raise ValueError("rank must be (F, N) and cost (N, L)")
        if (cost < 0).any() or not np.isfinite(cost).all():
            raise ValueError("costs must be finite and non-negative")
        F, N = rank.shape
        L = cost.shape[1]
        rng = np.random.default_rng(seed)
        # A given order (a helper search on the same ranks) is reused, else each row is sorted once.
        order = stable_order(rank) if order is None else np.ascontiguousarray(order, dtype=np.int32)
        w = cost.max(axis=1) if L else np.zeros(N)
        ty = class_rows(cost) if L else None
        self.inputs = sm.Inputs(
            rank=rank,
            order=order,
            cost=cost,
            w=np.ascontiguousarray(w),
            key1=rng.integers(0, 2**63, N, dtype=np.uint64),
            key2=rng.integers(0, 2**63, N, dtype=np.uint64),
            ty=np.zeros(N, dtype=np.int32) if ty is None else np.ascontiguousarray(ty),
            cw=class_weights(w, ty, L),
            root=root_bounds(F, root_features),
        )
        integral = bool(np.all(cost == np.round(cost))) and float(cc) == round(float(cc))
        scale = max(1.0, float(w.sum()))
        self.params = sm.Params(
            cc=float(cc),
            unit=1.0 if integral else 0.0,
            eps=1e-9 if integral else 1e-9 * scale,
            diag=ty is not None,
            binary=ty is not None and L == 2 and np.array_equal(self.inputs.cw, [1.0, 1.0]),
            counts=ty is not None and np.array_equal(self.inputs.cw, np.ones(L)),
            min_leaf=max(1, int(min_leaf)),
            use_upper_bound=bool(use_upper_bound),
            use_interval=bool(use_interval),
            use_cache=bool(use_cache),
            use_depth_two=bool(use_depth_two),
            order_features=bool(order_features),
            round_robin=bool(F * N <= ROUND_ROBIN_CELLS if round_robin is None else round_robin),
            hist_ratio=hist_ratio(use_histograms, N),
        )
        self.depth = UNLIMITED if depth is None else int(depth)
        self.nodes_budget = UNLIMITED if nodes is None else int(nodes)
        # A frame at remaining depth d pushes a child only when d ≥ 3 (depth two is solved in place by the depth-two
        # routine): ``depth - 1`` levels suffice (each holds three F × N arrays); more are added when needed.
        levels = max(1, min(self.depth - (1 if use_depth_two else 0), max(N, 1), 8))
        self.state = sm.make_state(
            F,
            N,
            L,
            levels=levels,
            root_slots=F if self.params.round_robin else 0,
            histograms=self.params.hist_ratio > 0,
        )
        st = self.state
        if N:
            st.ord[0, :, :] = order
            labels = self.inputs.ty.astype(np.int16)  # int16: labels < 2**15
            for f in range(F):  # row by row, without an F × N temporary for each (hundreds of MB on large data)
                np.take(rank[f], order[f], out=st.srk[0, f])
                np.take(labels, order[f], out=st.scl[0, f])
        st.fi[0, sm.I_N] = N
        st.fi[0, sm.I_D] = self.depth
        st.fi[0, sm.I_NB] = self.nodes_budget
        st.fi[0, sm.I_PHASE] = sm.START
        st.ff[0, sm.F_U] = float(upper)
        st.fh[0, 0] = np.uint64(int(self.inputs.key1.sum(dtype=np.uint64)))
        st.fh[0, 1] = np.uint64(int(self.inputs.key2.sum(dtype=np.uint64)))
        self.done = N == 0
        self.found = True  # False: the search ended proving nothing below ``upper`` (the caller's tree is optimal)
        self.best = (math.inf, 0)  # (value, tree id) of the best complete tree seen
        self._lower = 0.0  # the root's proved lower bound, as last read
        self._started = self._lower_at = time.perf_counter()
        self._lower_cost = 0.0
        if N == 0:
            self.best = (0.0, -1)

    # -- running -----------------------------------------------------------
    def step(self, work):
        """Run about ``work`` units (rows visited); return True when the optimum is proved."""
        while not self.done:
            outcome = kernel.run(self.inputs, self.params, self.state, int(max(1, work)))
            if outcome == sm.DONE:
                self.done = True
                value, tree = float(self.state.reg[0]), int(self.state.cnt[sm.C_RET_TREE])
                if self.state.cnt[sm.C_RET_OK] == 1:
                    self.best = (value, tree)
                else:  # nothing below ``upper``: ``value`` (≥ upper) is the proved bound
                    self.found = False
                    self._lower = value
                return True
            if outcome == sm.OUT_OF_BUDGET:
                break
            self._grow(outcome)
        if not self.done:
            self._anytime()
            self._read_lower_bound()
        return self.done

    def tighten(self, upper):
        """Look from now on only for trees worth less than ``upper`` (the caller holds one worth ``upper``).

        Sound at any moment: the root's bound only prunes, so what was found or proved under the looser bound
        stays true, and the root's end (``kernel._end``) compares its incumbent with the bound it has then.
        """
        st = self.state
        if not self.done and upper < st.ff[0, sm.F_U]:
            st.ff[0, sm.F_U] = float(upper)

    def _read_lower_bound(self):
        """Refresh the root's proved bound, at most ~10% of the search's time (it walks every queued interval).

        Any bound read earlier stays valid (the optimum does not move), so a search of a few milliseconds
        skips it and ends with its optimum as its bound.
        """
        now = time.perf_counter()
        if now - self._started < LOWER_BOUND_AFTER or now - self._lower_at < 10 * self._lower_cost:
            return
        self._lower = float(kernel.root_lower_bound(self.params, self.state, self.inputs.rank.shape[0]))
        self._lower_at = time.perf_counter()
        self._lower_cost = self._lower_at - now

    def _grow(self, outcome):
        st = self.state
        if outcome == sm.NEEDS_POOL:
            self.state = sm.grow_pool(st)
        elif outcome == sm.NEEDS_CACHE:
            size = 2 * st.ck1.shape[0]
            ci = np.zeros((size, 4), dtype=np.int32)
            ci[:, 0] = sm.EMPTY
            new = dict(
                ck1=np.zeros(size, dtype=np.uint64),
                ck2=np.zeros(size, dtype=np.uint64),
                ci=ci,
                cv=np.zeros(size),
                cx=np.zeros(size, dtype=np.uint8),
            )
            cache.rehash(st.ck1, st.ck2, st.ci, st.cv, st.cx, new["ck1"], new["ck2"], new["ci"], new["cv"], new["cx"])
            self.state = st._replace(**new)
        elif outcome == sm.NEEDS_LEVELS:
            self.state = sm.grow_levels(st, 2 * st.fi.shape[0])
        else:
            raise RuntimeError(f"unexpected outcome {outcome} of the ordered search")

    def _anytime(self):
        st = self.state
        while st.cnt[sm.C_POOL] + st.cnt[sm.C_TOP] + 2 > st.pf.shape[0]:
            self.state = st = sm.grow_pool(st)
        value, tree = kernel.unwind(self.inputs, self.params, st)
        if value < self.best[0]:
            self.best = (float(value), int(tree))

    # -- reading -------------------------------------------------------------
    @property
    def upper_bound(self):
        return self.best[0]

    @property
    def lower_bound(self):
        if self.done:
            return self.best[0] if self.found else self._lower
        return min(self._lower, self.best[0])

    @property
    def counters(self):
        c = self.state.cnt
        return {
            "work": int(c[sm.C_WORK]),
            "subproblems": int(c[sm.C_NODES]),
            "depth_two_calls": int(c[sm.C_D2]),
            "threshold_evaluations": int(c[sm.C_EVALS]),
            "cache_hits": int(c[sm.C_HITS]),
            "cache_entries": int(c[sm.C_ENTRIES]),
            "splits": int(c[sm.C_SPLITS]),
            "subinterval_prunes": int(c[sm.C_SUBINTERVAL]),
            "neighbourhood_prunes": int(c[sm.C_NEIGHBOUR]),
            "zero_rule_prunes": int(c[sm.C_ZERO]),
            "skipped_children": int(c[sm.C_SKIPPED]),
        }

    def state_bytes(self):
        return sm.state_bytes(self.state) + sum(a.nbytes for a in self.inputs)

    def tree(self, tree_id=None):
        """Return the best tree as nested tuples: ``(label,)`` or ``(feature, u, left, right)`` (left: rank < u)."""
        t = self.best[1] if tree_id is None else tree_id
        st = self.state

        def build(t):
            if t < 0:
                return (-t - 1,)
            return (int(st.pf[t]), int(st.pu[t]), build(int(st.pl[t])), build(int(st.pr[t])))

        return build(int(t))


def tree_cost(tree, rank, cost, cc, rows=None):
    """Return the cost of a nested-tuple tree on ``rows`` (all rows by default): leaves' sums plus cc per split."""
    rows = np.arange(rank.shape[1]) if rows is None else rows
    if len(tree) == 1:
        return float(cost[rows, tree[0]].sum())
    f, u, left, right = tree
    go_left = rank[f, rows] < u
    return cc + tree_cost(left, rank, cost, cc, rows[go_left]) + tree_cost(right, rank, cost, cc, rows[~go_left])


def solve(rank, cost, depth=None, nodes=None, cc=0.0, **options):
    """Run an ``Engine`` to the end; return it (for tests and tools)."""
    engine = Engine(rank, cost, depth, nodes, cc, **options)
    while not engine.step(1 << 22):
        pass
    return engine
