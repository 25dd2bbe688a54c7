"""The STreeD recursion (spec §1.7, §3.7; Eq. 8 with node limits, Eq. 47), resumable.

``Solver.solve`` is a generator: it yields after every unit of work (a
depth-two solve or a branching node's split), so the search object can run
it for a bounded number of steps and return to the driver (spec §10:
"recursion in chunks"). Its value (``StopIteration.value``) is a ``Front``.

Semantics: ``T(s, d, n)`` is the front of all feasible trees of depth ≤ d
with ≤ n branching nodes — leaves are candidates at every node (erratum 4).
For one component (total order) the call takes an upper bound ``ub`` and
returns the optimum only if it is ``< ub`` (else nothing: a proof that the
optimum is ``≥ ub``, cached as a lower bound, §3.3 source 2). Fronts
(F1, fairness) are always solved completely, so a cached front is complete
for every later caller (the safe option (b) of the §3.5 caution); there the
upper bound is the node's own current front, which prunes a split whose
merged lower bound it strictly dominates everywhere (§3.3 prune test).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numba
import numpy as np

from solver.streed import bitcount, depth_two, f1_fronts, fronts

INF = float("inf")
ROOT_KERNEL_CELLS = 100_000  # rows × features up to which a depth-four root runs in one kernel call
# Worst-case work of one kernel call (pair updates, a word of 64 rows each) up to which the depth-three and
# depth-four kernels run in one call; beyond it the recursion yields between splits (the anytime contract).
KERNEL_WORK_MAX = 3e8


def kernel_work(depth, m, n):
    """Return the worst-case work of solving a depth-``depth`` node of ``n`` rows over ``m`` features in one call.

    A depth-two solve counts every feature pair over the rows' 64-bit words; each level above tries every
    feature as its split.
    """
    return float(m) ** depth * max(1, (n + 63) // 64)


class Trees:
    """The trees of a front, built when read: point ``i`` is row ``rows[i]`` of source ``sources[part[i]]``.

    A front can hold hundreds of thousands of points (fairness fronts below the root) of
    which the search reads a few trees; building a nested tuple per point cost more than
    the merges themselves. A source is one of

    * ``("list", trees)``: nested tuples, row ``r`` is ``trees[r]``;
    * ``("split", f, left, right, pairs)``: row ``r`` is ``(f, left[pairs[r, 0]], right[pairs[r, 1]])``;
    * ``("codes", codes, free)``: depth-two codes (``decode``), ``free`` maps their features;
    * ``("codes3", codes, free)``: depth-three codes of ``f1_fronts.solve_f1_depth_three``;
    * ``("codes4", codes, free)``: depth-four codes of ``f1_fronts.solve_f1_depth_four``.
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
        if row[0] == depth_two.NONE:
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


_F1_LEAVES = np.array([[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]])  # label 0 → (positives, 0), 1 → (0, negatives)


def _first(values):
    """Return the smallest first component of values (k, p), k ≥ 1 (one point: no reduction)."""
    return float(values[0, 0]) if len(values) == 1 else float(values[:, 0].min())


def count_nodes(tree):
    return 0 if len(tree) == 1 else 1 + count_nodes(tree[1]) + count_nodes(tree[2])


class Solver:
    """The DP over one task and one binary matrix.

    Parameters
    ----------
    task : Task
    X : array of uint8, shape (n, m)
    config : dict
        Cleaned parameters (``use_*`` switches, ``min_samples_leaf``).
    """

    def __init__(self, task, X, config):
        self.task = task
        self.X = np.ascontiguousarray(X, dtype=np.uint8)
        self._columns = None  # the features as boolean columns, made when the recursion first splits
        self.p = task.p
        self.scalar = self.p == 1
        self.min_leaf = int(config.get("min_samples_leaf", 1))
        self.use_ub = bool(config.get("use_upper_bound", True))
        self.use_lb = bool(config.get("use_lower_bound", True))
        self.use_d2 = bool(config.get("use_depth_two_solver", True))
        # Sound only when every tree of the smaller dataset stays a candidate of the larger one (min leaf 1).
        self.use_sim = (bool(config.get("use_similarity_lower_bound", True)) and task.similarity and self.use_lb
                        and self.min_leaf == 1)
        self.use_branch = bool(config.get("use_branch_caching", False))
        self.use_dataset = bool(config.get("use_dataset_caching", True))
        self.worst = task.worst if self.use_sim else None
        self.worst_first = np.ascontiguousarray(self.worst[:, 0]) if self.use_sim else None
        self.no_rows, self.zero_bounds = np.empty(0, dtype=np.int64), np.zeros(X.shape[1])
        self.branch_cache, self.dataset_cache, self.archive = {}, {}, {}
        self.counters = {"subproblems": 0, "depth_two_calls": 0, "depth_three_calls": 0, "cache_hits": 0, "bound_prunes": 0,
                         "similarity_prunes": 0, "splits": 0}
        self.incumbent = None  # the root's best front so far (anytime)
        self.counted = []  # the last two (ids, S, C, tot) of the depth-two solver
        self.packed = None  # the bitsets of the last node whose children are depth-two (see _pack_node)
        m = self.X.shape[1]
        self.free_costs = (np.zeros(m), np.zeros((m, m)))
        # One component, no constraint, free branching: depth-three nodes go to one kernel.
        self.simple = self.scalar and task.test_cost is None and not np.isfinite(task.caps).any()  # branching is free unless the task has test costs
        # One-hot 0/1 row vectors: pair sums are counts, computed by popcount (solver.streed.bitcount).
        A = task.A
        self.labels = None
        if A.shape[0] and ((A == 0) | (A == 1)).all() and (A.sum(axis=1) == 1).all():
            self.labels = np.ascontiguousarray(A.argmax(axis=1), dtype=np.int64)
        self.patterns = None if self.labels is None else False  # see _patterns
        self.zero_worst = np.zeros(A.shape[0])
        present = float(self.X.sum()) / max(self.X.shape[0], 1)  # features present per row, on average
        self.per_row = max(present, 1.0) ** 2 / 2 * (1 + A.shape[1])
        # F1's (FN, FP) fronts have their own depth-two kernel (solver.streed.f1_fronts).
        self.f1 = self.labels is not None and task.L.shape == (2, 2, 2) and np.array_equal(task.L, _F1_LEAVES)
        # A constrained task (fairness, capacity): its first component is bounded by the unconstrained optimum
        # (a lower-bound source of ``lower``, solved by this scalar solver over the same rows).
        self.relaxed = None
        if self.use_lb and not self.scalar and task.test_cost is None and np.isfinite(task.caps[1:]).any():
            self.relaxed = Solver(task.first_component(), X, config)
            self.relaxed._counts = self._counts  # the same rows and sums (A): share the pair counts and their cache
        self.f1_children = None  # F1 depth-two fronts shared between depth-three kernels (see _depth_three_f1)
        self.split_bounds = {}  # budget -> (rows, lower bound per root split) of the last depth-three node

    def columns(self):
        if self._columns is None:
            self._columns = [np.ascontiguousarray(self.X[:, f]).astype(bool) for f in range(self.X.shape[1])]
        return self._columns

    # -- cache -------------------------------------------------------------
    def _keys(self, ids, path, d, n):
        keys = []
        if self.use_branch:
            keys.append((self.branch_cache, (frozenset(path), d, n)))
        if self.use_dataset:
            context = self.task.test_cost.context(f for f, _ in path) if self.task.test_cost is not None else None
            keys.append((self.dataset_cache, (ids.tobytes(), context, d, n)))
        return keys

    def _lookup(self, keys):
        for table, key in keys:
            entry = table.get(key)
            if entry is not None:
                return entry
        return None

    def _store(self, keys, entry):
        for table, key in keys:
            table[key] = entry

    # -- bounds ------------------------------------------------------------
    def _leaves(self, ids):
        if self.labels is not None:  # one-hot rows: the sums are class counts
            sums = np.bincount(self.labels[ids], minlength=self.task.A.shape[1]).astype(np.float64)
        else:
            sums = self.task.A[ids].sum(axis=0)
        values = self.task.leaf_values(sums)
        keep = fronts.pareto(values, np.zeros(len(values), dtype=np.int64), self.task.caps)
        return Front(values[keep], [(int(k),) for k in keep], np.zeros(len(keep), dtype=np.int64))

    def lower(self, ids, path, d, n, relaxed=True):
        """Return a lower-bound set (k, p) of T(ids, d, n): every solution is weakly dominated by a point.

        Sources (§3.3): the cache, the similarity bound, and for a constrained task the optimum of
        its unconstrained first component (``self.relaxed``) with every other component at 0.
        """
        n = min(n, 2 ** d - 1)
        d = min(d, n)
        if d == 0:
            return self._leaves(ids).values if len(ids) else np.zeros((1, self.p))
        if not self.use_lb:
            return np.zeros((1, self.p))
        entry = self._lookup(self._keys(ids, path, d, n))
        if entry is not None:
            return entry[1]
        if self.use_sim:
            bound = self._similarity(ids, d, n)
            if bound is not None:
                return bound
        bound = np.zeros((1, self.p))
        if relaxed and self.relaxed is not None:
            bound[0, 0] = self._relaxed_bound(ids, path, d, n)
        return bound

    def _relaxed_bound(self, ids, path, d, n):
        """Return the unconstrained optimum of the first component (``self.relaxed``'s task) for budget (d, n).

        Depth two straight from the pair counts, which the node's own solve reuses (``_counts``);
        deeper through the relaxed solver's search (scalar, with its own cache and bounds).
        """
        if d <= 2 and self.use_d2:
            S, C, tot = self._counts(ids, path)
            values, _ = depth_two.solve_scalar(self.relaxed.task.L, S, C, tot, len(ids), *self.free_costs, self.min_leaf, n)
            return float(values[n - 1])
        return self.relaxed.optimum(ids, path, d, n)

    def optimum(self, ids, path, d, n):
        """Return the optimal (first) value of T(ids, d, n), solved to the end (a scalar task's bound for another)."""
        run = self.solve(ids, path, d, n)
        while True:
            try:
                next(run)
            except StopIteration as stop:
                return float(stop.value.values[:, 0].min())

    def _entry(self, front, ub):
        """Return a cache entry: (front or None, lower-bound set, the bound below which the front is complete).

        A front found under ``ub`` holds every solution with first component
        below ``ub``; the others are covered by the point (ub, 0, …) (§3.3
        sources 1–2). A scalar optimum found under any ``ub`` is complete.
        """
        floor = np.zeros((1, self.p))
        floor[0, 0] = ub
        if front is None:
            return None, floor, -INF
        if self.scalar:
            return front, front.values, INF
        if ub == INF:
            return front, front.values, INF
        return front, np.vstack([front.values, floor]), ub

    def _similarity(self, ids, d, n):
        """Similarity lower bound (Eq. 45 with erratum 9): subtract the worst case of every removed row."""
        best = None
        for cached_ids, values in self.archive.get((d, n), ()):
            removed = depth_two.sorted_difference(cached_ids, ids)
            if 2 * len(removed) > len(ids):
                continue  # the ref-impl's cut-off: too different to help
            if self.scalar:
                bound = np.array([[max(values[0, 0] - self.worst_first[removed].sum(), 0.0)]])
                if best is None or bound[0, 0] > best[0, 0]:
                    best = bound
                continue
            bound = np.maximum(values - self.worst[removed].sum(axis=0), 0.0)
            if best is None:  # fronts: the first that applies
                best = bound
        return best

    def _remember(self, ids, d, n, values):
        if self.use_sim:
            entries = self.archive.setdefault((d, n), [])
            entries.append((ids, values))
            if len(entries) > 2:
                entries.pop(0)

    def _below(self, front, ub):
        if ub == INF or len(front) == 0:
            return front
        if len(front) == 1:
            return front if front.values[0, 0] < ub else front.take(np.empty(0, dtype=np.int64))
        return front.take(np.flatnonzero(front.values[:, 0] < ub))

    # -- the recursion -----------------------------------------------------
    def solve(self, ids, path, d, n, ub=INF, root=False, lb=None):
        """Generator: the front of T(ids, d, n) restricted to first component ``< ub`` (scalar: the optimum if ``< ub``).

        ``lb``: ``lower(ids, path, d, n)`` when the caller has it (a split bounds its children first).
        """
        n = min(n, 2 ** d - 1)
        d = min(d, n)  # erratum 3: a tree with n branching nodes has depth ≤ n
        if root or d == 0:
            leaves = self._leaves(ids)
            self.incumbent = leaves if root else self.incumbent
            if d == 0:
                return self._below(leaves, ub)
        keys = self._keys(ids, path, d, n)
        entry = self._lookup(keys)
        if entry is not None and entry[0] is not None and entry[2] >= ub:
            self.counters["cache_hits"] += 1
            return self._below(entry[0], ub)
        # The relaxed bound prunes only under an upper bound (the root has none: it would cost a whole search).
        if lb is None:
            lb = self.lower(ids, path, d, n, relaxed=ub < INF) if self.use_lb else np.zeros((1, self.p))
        if _first(lb) >= ub:
            self.counters["bound_prunes"] += 1
            return empty(self.p)  # §3.3: the cached bound proves nothing here is below ub
        self.counters["subproblems"] += 1
        if self.use_d2 and d <= 2:
            result = self._depth_two(ids, path, n, ub, relax=root and self.task.root_scalar and self.use_ub)
            yield
        elif self.use_d2 and d == 4 and root and self.simple and self.labels is not None \
                and len(ids) * self.X.shape[1] <= ROOT_KERNEL_CELLS and self._bounded(4, ids):
            result = self._depth_four_root(ids, n, ub)
            yield
        elif self.use_d2 and d == 4 and root and self.f1 and self.task.test_cost is None \
                and len(ids) * self.X.shape[1] <= ROOT_KERNEL_CELLS and self._bounded(4, ids):
            result = self._depth_four_f1(ids, n, ub)
            yield
        elif self.use_d2 and d == 3 and self.simple and self._bounded(3, ids):
            result = self._depth_three(ids, n, ub)
            yield
        elif self.use_d2 and d == 3 and self.f1 and self.task.test_cost is None and self._bounded(3, ids):
            result = self._depth_three_f1(ids, path, n, ub)
            yield
        else:
            result = yield from self._branch(ids, path, d, n, ub, self._leaves(ids), lb, root)
        if result is None or len(result) == 0:  # nothing below ub: keep ub as a lower bound (§3.3 source 2)
            floor = max(ub, _first(lb))
            self._store(keys, self._entry(None, floor))
            if self.scalar and np.isfinite(floor):
                self._remember(ids, d, n, np.array([[floor]]))  # a proved bound feeds the similarity bound too
            return empty(self.p)
        self._store(keys, self._entry(result, ub))
        if ub == INF or self.scalar:
            self._remember(ids, d, n, result.values)
        if root:
            self.incumbent = result
        return self._below(result, ub)

    def _bounded(self, depth, ids):
        """Whether a node of this depth over these rows is small enough to solve in one kernel call."""
        return kernel_work(depth, self.X.shape[1], len(ids)) <= KERNEL_WORK_MAX

    def _splits(self, ids, path):
        """Yield ``(f, left rows, right rows)`` for every split worth trying at this node.

        Without test costs a feature that repeats or complements an earlier one on these rows
        (``bitcount.distinct_splits``) is left out: its split has the same two children, swapped,
        so every tree through it has a same-valued, same-sized tree through the earlier feature,
        which comes first anyway. With test costs the twin may cost less, so all are tried.
        """
        on_path = {f for f, _ in path}
        features = range(self.X.shape[1])
        if self.task.test_cost is None:
            features = bitcount.distinct_splits(self.X, ids)[1].tolist()
        for f in features:
            if f in on_path:
                continue  # never branch twice on a feature (one child would be empty)
            right = self.columns()[f][ids]
            n_right = int(right.sum())
            if n_right < self.min_leaf or len(ids) - n_right < self.min_leaf:
                continue  # an empty (or too small) child: never better than the leaf
            yield f, ids[~right], ids[right]

    def _branch_cost(self, ids, path, f):
        extra = np.zeros(self.p)
        if self.task.test_cost is not None:
            extra[0] = len(ids) * self.task.test_cost.costs([g for g, _ in path], [f])[0]
        return extra

    def _branch(self, ids, path, d, n, ub, leaves, lb, root):
        """Generator: try every split and node allocation (Eq. 47); return the node's front or None."""
        best = self._below(leaves, ub)
        limit = ub if len(best) == 0 else min(ub, _first(best.values))
        relax = root and self.task.root_scalar and self.use_ub  # the root prunes on its first component
        half = 2 ** (d - 1) - 1
        if d == 3 and self.use_d2 and self.labels is not None:
            self._pack_node(ids, path)
        for f, left, right in self._splits(ids, path):
            if self.scalar and len(best) and best.values[0, 0] <= lb[0, 0]:
                break  # the node's lower bound is reached: nothing can be better (early stop, §3.3)
            extra = self._branch_cost(ids, path, f)
            lpath, rpath = path + ((f, 0),), path + ((f, 1),)
            for n_left in range(max(0, n - 1 - half), min(n - 1, half) + 1):
                n_right = n - 1 - n_left
                d_left, d_right = min(d - 1, n_left), min(d - 1, n_right)
                self.counters["splits"] += 1
                lb_left = self.lower(left, lpath, d_left, n_left)
                lb_right = self.lower(right, rpath, d_right, n_right)
                if self.scalar:
                    found = yield from self._split_scalar(left, right, lpath, rpath, (d_left, n_left),
                                                          (d_right, n_right), lb_left, lb_right, extra, limit, f)
                    if found is not None:
                        best, limit = found, found.values[0, 0]
                else:
                    best = yield from self._split_front(left, right, lpath, rpath, (d_left, n_left),
                                                        (d_right, n_right), lb_left, lb_right, extra, best, f,
                                                        limit if relax else ub, fewest_first=relax)
                    if relax and len(best):
                        limit = _first(best.values)  # the root needs only the fewest errors (ref-impl)
                if root and len(best):
                    self.incumbent = best
            yield
        return best if len(best) else None

    def _split_scalar(self, left, right, lpath, rpath, lbud, rbud, lb_left, lb_right, extra, limit, f):
        if self.use_lb and lb_left[0, 0] + lb_right[0, 0] + extra[0] >= limit:
            self.counters["bound_prunes"] += 1
            return None  # §3.3: merged children bounds reach the best value at this node
        ub_left = limit - lb_right[0, 0] - extra[0] if self.use_ub else INF
        tl = yield from self.solve(left, lpath, *lbud, ub=ub_left, lb=lb_left)
        if len(tl) == 0:
            return None
        ub_right = limit - tl.values[0, 0] - extra[0] if self.use_ub else INF
        tr = yield from self.solve(right, rpath, *rbud, ub=ub_right, lb=lb_right)
        if len(tr) == 0:
            return None
        value = tl.values[0] + tr.values[0] + extra
        if value[0] >= limit:
            return None
        tree = (f, tl.trees[0], tr.trees[0])
        return Front(value[None, :], [tree], np.array([1 + tl.nodes[0] + tr.nodes[0]]))

    def _split_front(self, left, right, lpath, rpath, lbud, rbud, lb_left, lb_right, extra, best, f, ub,
                     fewest_first=False):
        """Generator: merge the split's children into the node's front ``best``; return the new front.

        ``fewest_first`` (the root under its relaxation): of the split's feasible merged values only
        one with the fewest errors (then fewest nodes) is kept — all the root reports.
        """
        caps = self._caps(ub)
        if _first(lb_left) + _first(lb_right) + extra[0] >= ub:
            self.counters["bound_prunes"] += 1
            return best
        if self.use_ub and self.use_lb:
            bound, _ = fronts.merge(lb_left, lb_right, extra, np.full(self.p, INF))
            if fronts.covered(bound, best.values):
                self.counters["bound_prunes"] += 1
                return best  # every value of this split is strictly dominated by the node's front
        ub_left = ub - _first(lb_right) - extra[0] if self.use_ub else INF
        tl = yield from self.solve(left, lpath, *lbud, ub=ub_left, lb=lb_left)
        if len(tl) == 0:
            return best
        ub_right = ub - _first(tl.values) - extra[0] if self.use_ub else INF
        tr = yield from self.solve(right, rpath, *rbud, ub=ub_right, lb=lb_right)
        if len(tr) == 0:
            return best
        if fewest_first:
            pairs = fronts.fewest_first_pair(tl.values, tr.values, tl.nodes, tr.nodes, extra, caps)
            values = tl.values[pairs[:, 0]] + tr.values[pairs[:, 1]] + extra
        else:
            values, pairs = fronts.merge(tl.values, tr.values, extra, caps)
        nodes = 1 + tl.nodes[pairs[:, 0]] + tr.nodes[pairs[:, 1]]
        allv = np.vstack([best.values, values])
        alln = np.concatenate([best.nodes, nodes])
        keep = fronts.pareto(allv, alln, self.task.caps)
        trees = best.trees.extended(keep, ("split", f, tl.trees, tr.trees, pairs))
        return Front(allv[keep], trees, alln[keep])

    def _caps(self, ub):
        """Return the task's caps with the first component kept strictly below ``ub``."""
        caps = self.task.caps.copy()
        caps[0] = min(caps[0], np.nextafter(ub, -INF))
        return caps

    # -- depth two ---------------------------------------------------------
    def _depth_two(self, ids, path, n, ub, relax=False):
        """Solve depth ≤ 2 with the pair-count solver; cache budgets (1,1), (2,2), (2,3) (§3.5).

        ``relax``: the root of a task that reports its feasible point with the fewest
        errors (root relaxation, as in ``_branch``): only that tree per root feature is
        kept, and nothing is cached (the result is not the node's complete front).

        Counts cover every feature (those on the path are constant here, so the
        solver never splits on them) and are updated from the closest of the last
        two counted datasets when the symmetric difference is smaller (§3.6,
        incremental counts).
        """
        self.counters["depth_two_calls"] += 1
        S, C, tot = self._counts(ids, path)
        free = np.arange(self.X.shape[1])
        if self.task.test_cost is not None:
            measured = [f for f, _ in path]
            root_cost = self.task.test_cost.costs(measured, free)
            child_cost = self.task.test_cost.child_costs(measured, free)
        else:
            root_cost, child_cost = self.free_costs
        if relax:
            out = depth_two.solve_fewest_first(self.task.L, S, C, tot, len(ids), self._caps(ub), root_cost, child_cost,
                                            self.min_leaf, n)
        elif self.f1 and self.task.test_cost is None:
            out = f1_fronts.solve_f1(S, C, tot, len(ids), self._caps(ub), self.min_leaf, n)
        elif self.scalar and not np.isfinite(self.task.caps).any():
            values, codes = depth_two.solve_scalar(self.task.L, S, C, tot, len(ids), root_cost, child_cost,
                                                self.min_leaf, n)
            out = tuple(x for t in range(3) for x in (values[t:t + 1, None], codes[t:t + 1]))
        else:
            out = depth_two.solve(self.task.L, S, C, tot, len(ids), self._caps(ub), root_cost, child_cost,
                               self.min_leaf, n)
        result = None
        for budget, (d, values, codes) in enumerate(((1, out[0], out[1]), (2, out[2], out[3]), (2, out[4], out[5])), 1):
            if budget > n:
                break
            front = Front(values, Trees.of(("codes", codes, free), len(codes)), depth_two._nodes(codes))
            if relax:
                front = front.take(fronts.pareto(front.values, front.nodes, self.task.caps))
            else:
                self._store(self._keys(ids, path, d, budget), self._entry(front, INF if self.scalar else ub))
            result = front
        return result

    def _patterns(self):
        """Return (index per row, vectors) when the rows of A take a few distinct small-integer vectors, else False.

        Fairness rows are (label, group) indicators: four vectors. Pair sums are then the popcount
        counts per vector times that vector (exact integers), like one-hot classes. Found on first use
        (a relaxed bound's solver shares its parent's counts and never needs them).
        """
        if self.patterns is None:
            self.patterns = False
            A = self.task.A
            if 0 < A.shape[1] <= 7 and len(A) and (A >= 0).all() and (A <= 255).all() and (A == np.floor(A)).all():
                keys = A.astype(np.int64) @ (256 ** np.arange(A.shape[1], dtype=np.int64))
                values, index = np.unique(keys, return_inverse=True)
                if len(values) <= 8:
                    vectors = np.ascontiguousarray(((values[:, None] // 256 ** np.arange(A.shape[1])) % 256).astype(np.float64))
                    self.patterns = (np.ascontiguousarray(index.ravel(), dtype=np.int64), vectors)
        return self.patterns

    def _counts(self, ids, path=()):
        """Return the pair sums of ``ids``: counted afresh, or updated from the closest of the last two counted sets.

        Work estimates: a row update touches every pair of the row's present features
        (``c²/2 · (1 + R)``); a fresh count is one pass over the rows, or for one-hot
        tasks ``q²/2 · R`` popcounts per 64 rows (``solver.streed.bitcount``). A child of
        the depth-three node whose rows are packed (``_pack_node``) is counted from those
        bitsets, the right one as the parent's sums minus its left sibling's (§3.6).
        """
        q, R = self.X.shape[1], self.task.A.shape[1]
        node = self.packed
        if node is not None and len(path) and path[:-1] == node["path"]:
            return self._child_counts(node, ids, *path[-1])
        patterns = self._patterns() if self.labels is None else False
        if self.labels is not None or patterns:
            kinds = R if self.labels is not None else len(patterns[1])
            fresh = len(ids) * q + q * (q + 1) / 2 * kinds * ((len(ids) + 63) // 64)
        else:
            fresh = len(ids) * self.per_row
        best, plan = None, None
        for i, (old, S, C, tot) in enumerate(self.counted):
            if len(old) == len(ids) and np.array_equal(old, ids):
                return S, C, tot  # counted already (the relaxed bound's solver counts a child first)
            added = depth_two.sorted_difference(ids, old)
            removed = depth_two.sorted_difference(old, ids)
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
                S, C, tot = depth_two.count_pairs(self.X, ids, self.task.A)
            self.counted.append((ids, S, C, tot))
            if len(self.counted) > 2:
                self.counted.pop(0)
            return S, C, tot
        _, S, C, tot = self.counted[best]
        S, C, tot = S.copy(), C.copy(), tot.copy()
        depth_two.add_pairs(self.X, plan[1], self.task.A, 1, S, C, tot)
        depth_two.add_pairs(self.X, plan[2], self.task.A, -1, S, C, tot)
        self.counted[best] = (ids, S, C, tot)
        return S, C, tot

    def _pack_node(self, ids, path):
        """Pack the rows of a node whose children are depth-two subproblems into bitsets, once."""
        bits, cls = bitcount.pack_rows(self.X, ids, self.labels, self.task.A.shape[1])
        full = bitcount.row_mask(len(ids))
        self.packed = {"path": path, "ids": ids, "bits": bits, "cls": cls, "full": full, "counts": None,
                       "left": None}

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

    def _f1_children(self, path):
        """Return the F1 branch cache for a kernel below ``path``: (base, index, store); base 0 means none."""
        base = 2 * self.X.shape[1]
        if not path or not (self.use_dataset or self.use_branch) or base ** (len(path) + 1) >= 2 ** 62:
            # A root has no sibling to share with; or no caching asked for; or keys would not fit one integer.
            return (0,) + _no_f1_children()
        if self.f1_children is None:
            self.f1_children = _new_f1_children()
        return (base,) + self.f1_children

    def _depth_three_f1(self, ids, path, n, ub):
        """Solve an F1 node of depth budget 3 in one kernel (``f1_fronts.solve_f1_depth_three``): its complete front.

        The kernel skips no split by bounds, but it saves the recursion's Python work per
        child; measured on every shared file it is faster (hypothyroid depth 4: 1.3 s through
        the recursion, 0.83 s with the kernel). With caching on, the depth-two children's fronts
        go into a branch cache of the kernel's own (``self.f1_children``), keyed by path decisions.
        """
        self.counters["depth_three_calls"] += 1
        bits, cls = bitcount.pack_rows(self.X, ids, self.labels, 2)
        codes = np.array(sorted(2 * f + side for f, side in path), dtype=np.int64)
        values, codes, nodes = f1_fronts.solve_f1_depth_three(bits, cls, bitcount.row_mask(len(ids)), n, self.min_leaf,
                                                           codes, *self._f1_children(path))
        front = Front(values, Trees.of(("codes3", codes, None), len(codes)), nodes)
        return front if ub == INF else self._below(front, ub)

    def _depth_four_f1(self, ids, n, ub):
        """Solve an F1 root of depth budget 4 in one kernel (``f1_fronts.solve_f1_depth_four``): its complete front.

        Its depth-three children are the kernels of ``_depth_three_f1`` (sharing their depth-two
        children through the same branch cache) without the Python work per split (monk1: the
        recursion spent 5 of its 14 ms between kernels). One call, so only for small data
        (``ROOT_KERNEL_CELLS``), like the accuracy root.
        """
        bits, cls = bitcount.pack_rows(self.X, ids, self.labels, 2)
        base, index, store = self._f1_children(((0, 0),))  # the children's paths have one decision
        values, codes, nodes, solved = f1_fronts.solve_f1_depth_four(bits, cls, bitcount.row_mask(len(ids)), n,
                                                                  self.min_leaf, base, index, store)
        self.counters["depth_three_calls"] += solved
        front = Front(values, Trees.of(("codes4", codes, None), len(codes)), nodes)
        return front if ub == INF else self._below(front, ub)

    def _depth_four_root(self, ids, n, ub):
        """Solve a depth-four root of a one-hot scalar task in one kernel (``bitcount.solve_depth_four_root``).

        The same splits, order, bounds and ties as ``_branch`` over ``_depth_three`` children, without
        the Python work per split (about 0.1 ms: most of a few-millisecond fit). One call, so only for
        small data (``ROOT_KERNEL_CELLS``): larger roots keep the recursion, which yields between splits.
        """
        worst = self.worst_first if self.use_sim else self.zero_worst
        value, f, label, left, right, solved = bitcount.solve_depth_four_root(
            self.X, ids, self.labels, self.task.L, self.min_leaf, n, ub, worst, self.use_sim, self.use_ub)
        self.counters["depth_three_calls"] += solved
        if value == INF:
            return None
        if f == depth_two.NONE:
            tree = (int(label),)
        else:
            tree = (int(f), _depth_three_tree(left), _depth_three_tree(right))
        return Front(np.array([[value]]), [tree], np.array([count_nodes(tree)], dtype=np.int64))

    def _depth_three(self, ids, n, ub):
        """Solve a depth-three node with the depth-two solver on both children of every split, in one kernel.

        The one-hot kernel takes the upper bound and the similarity lower bound
        (returns None when nothing is below ``ub``); the general one ignores both.
        """
        self.counters["depth_three_calls"] += 1
        free = np.arange(self.X.shape[1])
        if self.labels is not None:
            # Only features that vary on these rows can ever split them (min leaf ≥ 1), and a feature equal
            # to an earlier one on these rows, or its complement, gives the same splits (children swapped)
            # with the same values, never strictly better: keeping the first of each keeps the order, hence
            # the same splits and ties, and shrinks every count. Splits are bounded from the last
            # depth-three node of this budget (Eq. 45, erratum 9), and carry bounds to the next.
            worst = self.worst_first if self.use_sim else self.zero_worst
            previous_ids, previous_bounds = self.split_bounds.get(n, (self.no_rows, self.zero_bounds))
            value, f, left, right, label, bounds = bitcount.solve_depth_three_node(
                self.X, ids, self.labels, self.task.L, self.min_leaf, n, ub if self.use_ub else INF, worst,
                self.use_sim, previous_ids, previous_bounds)
            if self.use_sim:
                self.split_bounds[n] = (ids, bounds)
            if value == INF:
                return None
            free = None  # the codes name the original features
        else:
            value, f, left, right, label = depth_two.solve_depth_three(self.X, ids, self.task.A, self.task.L,
                                                                   self.min_leaf, n)
        tree = (int(label),) if f == depth_two.NONE else (int(f), decode(left, free), decode(right, free))
        return Front(np.array([[value]]), [tree], np.array([count_nodes(tree)], dtype=np.int64))


def _depth_three_tree(code):
    # (feature, left depth-two code, right depth-two code, leaf label) over the original features.
    if code[0] == depth_two.NONE:
        return (int(code[15]),)
    return (int(code[0]), decode(code[1:8], None), decode(code[8:15], None))


def _new_f1_children():
    """Return an empty branch cache of F1 depth-two fronts for ``f1_fronts.solve_f1_depth_three``: (index, store)."""
    child = numba.types.Tuple((numba.float64[:, ::1], numba.int64[:, ::1], numba.int64[::1], numba.int64[::1]))
    return numba.typed.Dict.empty(numba.int64, numba.int64), numba.typed.List.empty_list(child)


@functools.cache
def _no_f1_children():
    # The (never written) cache passed when sharing is off: typed containers cost ~0.5 ms to make.
    return _new_f1_children()


def decode(code, free):
    """Return the nested-tuple tree of a depth-two code (see ``solver.streed.depth_two``); ``free`` names its features."""
    f1, fl, la, lb, fr, ra, rb = code.tolist()
    if f1 == depth_two.NONE:
        return (la,)
    name = (lambda f: f) if free is None else (lambda f: int(free[f]))  # None: already original features
    left = (la,) if fl == depth_two.NONE else (name(fl), (la,), (lb,))
    right = (ra,) if fr == depth_two.NONE else (name(fr), (ra,), (rb,))
    return (name(f1), left, right)


def decode3(code, free):
    """Return the nested-tuple tree of a depth-three code (``f1_fronts.solve_f1_depth_three``)."""
    if code[0] == depth_two.NONE:
        return (int(code[1]),)
    return (int(code[0]), decode(code[1:8], free), decode(code[8:15], free))
