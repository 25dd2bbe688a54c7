"""The STreeD recursion (spec §1.7, §3.7; Eq. 8 with node limits, Eq. 47), resumable.

``Solver.solve`` is a generator: it yields after every unit of work (a
terminal solve or a branching node's split), so the search object can run
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

The parts: ``front`` (fronts and their trees), ``cache`` (solved subproblems, the similarity
archive), ``counts`` (pair counts for the depth-two solver), ``terminal`` (the nodes solved in
one kernel call, chosen once per task).
"""

from __future__ import annotations

import numpy as np

from solver.streed import bitcount, fronts
from solver.streed.cache import SubproblemCache
from solver.streed.counts import PairCounts
from solver.streed.front import INF, Front, below, caps_below, empty, smallest_first
from solver.streed.terminal import terminal_solvers


class Solver:
    """The DP over one task and one binary matrix.

    Parameters
    ----------
    task : Task
    X : array of uint8, shape (n, m)
    config : dict
        Cleaned parameters (``use_*`` switches, ``min_samples_leaf``).
    counts : PairCounts, optional
        Pair counts to share (a relaxed bound's solver counts the same rows and sums as its parent).
    """

    def __init__(self, task, X, config, counts=None):
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
        self.use_sim = (
            bool(config.get("use_similarity_lower_bound", True))
            and task.similarity
            and self.use_lb
            and self.min_leaf == 1
        )
        self.cache = SubproblemCache(
            task,
            bool(config.get("use_branch_caching", False)),
            bool(config.get("use_dataset_caching", True)),
            self.use_sim,
        )
        self.counters = {
            "subproblems": 0,
            "depth_two_calls": 0,
            "depth_three_calls": 0,
            "cache_hits": 0,
            "bound_prunes": 0,
            "similarity_prunes": 0,
            "splits": 0,
        }
        self.incumbent = None  # the root's best front so far (anytime)
        m = self.X.shape[1]
        self.free_costs = (np.zeros(m), np.zeros((m, m)))
        # One-hot 0/1 row vectors: pair sums are counts, computed by popcount (solver.streed.bitcount).
        A = task.A
        self.labels = None
        if A.shape[0] and ((A == 0) | (A == 1)).all() and (A.sum(axis=1) == 1).all():
            self.labels = np.ascontiguousarray(A.argmax(axis=1), dtype=np.int64)
        # Only the counts' owner packs a node's rows for its depth-two children (see ``_branch``).
        self.packs = counts is None
        self.counts = PairCounts(self.X, A, self.labels) if counts is None else counts
        # A constrained task (fairness, capacity): its first component is bounded by the unconstrained optimum
        # (a lower-bound source of ``lower``, solved by this scalar solver over the same rows).
        self.relaxed = None
        if self.use_lb and not self.scalar and task.test_cost is None and np.isfinite(task.caps[1:]).any():
            self.relaxed = Solver(task.first_component(), X, config, counts=self.counts)
        self.terminal = terminal_solvers(self)

    def columns(self):
        if self._columns is None:
            self._columns = [np.ascontiguousarray(self.X[:, f]).astype(bool) for f in range(self.X.shape[1])]
        return self._columns

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
        """Generator: a lower-bound set (k, p) of T(ids, d, n) (its value): every solution is weakly dominated by a point.

        Sources (§3.3): the cache, the similarity bound, and for a constrained task the optimum of
        its unconstrained first component (``self.relaxed``) with every other component at 0 (a
        search of its own, which yields like any other).
        """
        n = min(n, 2**d - 1)
        d = min(d, n)
        if d == 0:
            return self._leaves(ids).values if len(ids) else np.zeros((1, self.p))
        if not self.use_lb:
            return np.zeros((1, self.p))
        entry = self.cache.lookup(self.cache.keys(ids, path, d, n))
        if entry is not None:
            return entry[1]
        if self.use_sim:
            bound = self.cache.similarity(ids, d, n)
            if bound is not None:
                return bound
        bound = np.zeros((1, self.p))
        if relaxed and self.relaxed is not None:
            bound[0, 0] = yield from self._relaxed_bound(ids, path, d, n)
        return bound

    def _relaxed_bound(self, ids, path, d, n):
        """Generator: the unconstrained optimum of the first component (``self.relaxed``'s task) for budget (d, n).

        Depth two straight from the pair counts, which the node's own solve reuses (``PairCounts``);
        deeper through the relaxed solver's search (scalar, with its own cache and bounds).
        """
        if d <= 2 and self.use_d2:
            front = yield from self.relaxed.terminal[d].steps(ids, path, n, INF, False)
        else:
            front = yield from self.relaxed.solve(ids, path, d, n)
        return float(front.values[:, 0].min())

    # -- the recursion -----------------------------------------------------
    def solve(self, ids, path, d, n, ub=INF, root=False, lb=None):
        """Generator: the front of T(ids, d, n) restricted to first component ``< ub`` (scalar: the optimum if ``< ub``).

        ``lb``: ``lower(ids, path, d, n)`` when the caller has it (a split bounds its children first).
        """
        n = min(n, 2**d - 1)
        d = min(d, n)  # erratum 3: a tree with n branching nodes has depth ≤ n
        if root or d == 0:
            leaves = self._leaves(ids)
            self.incumbent = leaves if root else self.incumbent
            if d == 0:
                return below(leaves, ub)
        keys = self.cache.keys(ids, path, d, n)
        entry = self.cache.lookup(keys)
        if entry is not None and entry[0] is not None and entry[2] >= ub:
            self.counters["cache_hits"] += 1
            return below(entry[0], ub)
        # The relaxed bound prunes only under an upper bound (the root has none: it would cost a whole search).
        if lb is None:
            lb = (yield from self.lower(ids, path, d, n, relaxed=ub < INF)) if self.use_lb else np.zeros((1, self.p))
        if smallest_first(lb) >= ub:
            self.counters["bound_prunes"] += 1
            return empty(self.p)  # §3.3: the cached bound proves nothing here is below ub
        self.counters["subproblems"] += 1
        terminal = self.terminal.get(d)
        if terminal is not None and terminal.fits(ids, root):
            result = yield from terminal.steps(ids, path, n, ub, root)
        else:
            result = yield from self._branch(ids, path, d, n, ub, self._leaves(ids), lb, root)
        if result is None or len(result) == 0:  # nothing below ub: keep ub as a lower bound (§3.3 source 2)
            floor = max(ub, smallest_first(lb))
            self.cache.store(keys, None, floor)
            if self.scalar and np.isfinite(floor):
                self.cache.remember(ids, d, n, np.array([[floor]]))  # a proved bound feeds the similarity bound too
            return empty(self.p)
        self.cache.store(keys, result, ub)
        if ub == INF or self.scalar:
            self.cache.remember(ids, d, n, result.values)
        if root:
            self.incumbent = result
        return below(result, ub)

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
        best = below(leaves, ub)
        limit = ub if len(best) == 0 else min(ub, smallest_first(best.values))
        relax = root and self.task.root_scalar and self.use_ub  # the root prunes on its first component
        half = 2 ** (d - 1) - 1
        if d == 3 and self.use_d2 and self.labels is not None and self.packs:
            self.counts.pack_node(ids, path)
        for f, left, right in self._splits(ids, path):
            if self.scalar and len(best) and best.values[0, 0] <= lb[0, 0]:
                break  # the node's lower bound is reached: nothing can be better (early stop, §3.3)
            extra = self._branch_cost(ids, path, f)
            lpath, rpath = path + ((f, 0),), path + ((f, 1),)
            for n_left in range(max(0, n - 1 - half), min(n - 1, half) + 1):
                n_right = n - 1 - n_left
                d_left, d_right = min(d - 1, n_left), min(d - 1, n_right)
                self.counters["splits"] += 1
                lb_left = yield from self.lower(left, lpath, d_left, n_left)
                lb_right = yield from self.lower(right, rpath, d_right, n_right)
                if self.scalar:
                    found = yield from self._split_scalar(
                        left,
                        right,
                        lpath,
                        rpath,
                        (d_left, n_left),
                        (d_right, n_right),
                        lb_left,
                        lb_right,
                        extra,
                        limit,
                        f,
                    )
                    if found is not None:
                        best, limit = found, found.values[0, 0]
                else:
                    best = yield from self._split_front(
                        left,
                        right,
                        lpath,
                        rpath,
                        (d_left, n_left),
                        (d_right, n_right),
                        lb_left,
                        lb_right,
                        extra,
                        best,
                        f,
                        limit if relax else ub,
                        fewest_first=relax,
                    )
                    if relax and len(best):
                        limit = smallest_first(best.values)  # the root needs only the fewest errors (ref-impl)
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

    def _split_front(
        self, left, right, lpath, rpath, lbud, rbud, lb_left, lb_right, extra, best, f, ub, fewest_first=False
    ):
        """Generator: merge the split's children into the node's front ``best``; return the new front.

        ``fewest_first`` (the root under its relaxation): of the split's feasible merged values only
        one with the fewest errors (then fewest nodes) is kept — all the root reports.
        """
        caps = caps_below(self.task.caps, ub)
        if smallest_first(lb_left) + smallest_first(lb_right) + extra[0] >= ub:
            self.counters["bound_prunes"] += 1
            return best
        if self.use_ub and self.use_lb:
            bound, _ = fronts.merge(lb_left, lb_right, extra, np.full(self.p, INF))
            if fronts.covered(bound, best.values):
                self.counters["bound_prunes"] += 1
                return best  # every value of this split is strictly dominated by the node's front
        ub_left = ub - smallest_first(lb_right) - extra[0] if self.use_ub else INF
        tl = yield from self.solve(left, lpath, *lbud, ub=ub_left, lb=lb_left)
        if len(tl) == 0:
            return best
        ub_right = ub - smallest_first(tl.values) - extra[0] if self.use_ub else INF
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
