"""GOSDT's tree-level branch-and-bound for F-score, AUC_ch and pAUC_ch (spec §3.4), behind the driver protocol.

These objectives are not additive over leaves, so subproblems cannot be
solved once per support set. The search is OSDT's: a queue entry is a tree
``d`` with a set ``S`` of its newest leaves to split, the others fixed for
good; expanding it tries every assignment of features to ``S``, evaluates
each child tree ``d'`` (the incumbent may improve), and queues ``(d', S')``
for every non-empty set ``S'`` of ``d'``'s new leaves that may be split,
unless its bound cannot beat the incumbent. Best-first on the bound, ties
by fewer leaves. Every tree is reached: a tree is built level by level,
each level splitting exactly its internal nodes.

Begin: ``RankSearch(problem, config)``; step: ``step(budget)``; end:
``best_model()``. The kernels (losses, bounds) are in ``kernels``,
the leaf cache in ``leaves``.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time

import numpy as np

from solver.gosdt.rank import kernels as rk
from solver.gosdt.rank.leaves import Leaves, leaf_set_model, prepare
from solver.models import LEAF, Tree
from solver.problem import Problem, ProblemError

KINDS = {"f1": rk.F1, "auc": rk.AUC, "pauc": rk.PAUC}
PRUNES = ("hierarchical", "lookahead", "equivalent_points", "leaf_count", "incremental_progress", "permutation_map")
_RULE_NAMES = {
    rk.BY_HIERARCHICAL: "hierarchical",
    rk.BY_LOOKAHEAD: "lookahead",
    rk.BY_EQUIVALENT: "equivalent_points",
    rk.BY_LEAF_COUNT: "leaf_count",
}
# τ̄ is computed in floating point: keep a leaf splittable unless it is clearly below λ.
TAU_SLACK = 1e-13
STEP_SECONDS = 0.2  # a step returns to the driver once it has run this long, whatever its budget
OPENING_CHUNK = 16  # greedy candidates between two looks at the clock


def warmup():
    """Compile (or load from numba's cache) every kernel by solving a tiny problem for each objective."""
    from solver.gosdt.params import ALGORITHM

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(24, 3)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1]).astype(np.int64)
    y[:3] = 1 - y[:3]
    problem = Problem(X=X, features=[{"kind": "binary", "column": f"x{j}"} for j in range(3)], y=y, classes=["0", "1"])
    for objective in KINDS:
        search = RankSearch(problem, ALGORITHM.clean({"objective": objective, "regularization": 0.05}))
        while not search.step(1 << 20):
            pass


def make_search(problem, config):
    """Return the search object of ``problem`` under the cleaned ``config`` (see ``solver/driver.py``).

    Its set-up (equivalent points, the root's leaf cache: seconds on thousands of thresholds) runs in the
    background, so that a time limit or a cancel is kept meanwhile; until then the run holds the root leaf.
    """
    from solver.background import DeferredSearch

    neg, pos = np.bincount(problem.y, weights=problem.weights, minlength=2)[:2]
    if pos <= 0 or neg <= 0:
        raise ProblemError("F-score and the ROC objectives need rows of both classes (with positive weight).")
    kind, omega = KINDS[config["objective"]], float(config.get("cost_weight", 1.0))
    theta = float(config.get("pauc_theta", 1.0)) if kind == rk.PAUC else 1.0
    upper = float(rk.tree_loss(kind, np.array([pos]), np.array([neg]), pos, neg, omega, theta))
    leaf = Tree(
        feature=[LEAF],
        left=[LEAF],
        right=[LEAF],
        prediction=[int(omega * pos > neg)],
        counts=[[neg, pos]],
        features=problem.features,
        classes=problem.classes,
        score=[pos / (pos + neg)],
    )
    return DeferredSearch(
        lambda: RankSearch(problem, config),
        leaf,
        upper + float(config["regularization"]),
        initial_budget=RankSearch.initial_budget,
        progress_keys=("queue_size", "tree_cache_size", "leaf_cache_size"),
    )


class RankSearch:
    """The tree-level branch-and-bound, resumable step by step.

    Attributes
    ----------
    lower_bound, upper_bound : float
        Proved bound on the optimal objective, and the incumbent's objective.
    nodes : int
        Child trees evaluated.
    """

    finished_status = "optimal"
    initial_budget = 64

    def __init__(self, problem, config):
        self.problem = problem
        self.config = config
        self.kind = KINDS[config["objective"]]
        self.lam = float(config["regularization"])
        self.omega = float(config.get("cost_weight", 1.0))
        self.theta = float(config.get("pauc_theta", 1.0)) if self.kind == rk.PAUC else 1.0
        self.switches = {
            name: bool(config.get(name, True))
            for name in (
                "use_hierarchical_bound",
                "use_lookahead_bound",
                "use_equivalent_points_bound",
                "use_incremental_progress_bound",
                "use_leaf_permutation_bound",
            )
        }
        points = prepare(problem)
        self.P, self.N = float(points.pos.sum()), float(points.neg.sum())
        if self.P <= 0 or self.N <= 0:
            raise ProblemError("F-score and the ROC objectives need rows of both classes (with positive weight).")
        max_depth = config.get("max_depth")
        self.leaves = Leaves(points, problem.n_features + 1 if max_depth is None else int(max_depth))
        self.trees = [((0,), 1)]
        self.seen = {(0,)}
        self.heap = []
        self.sequence = 0
        self.pops = self.pushes = self.tree_hits = 0
        self.prunes = dict.fromkeys(PRUNES, 0)
        self.evaluated = 0
        self.tree_bytes = 0
        self.best = 0
        self.upper_bound = self._loss(np.array([self.P]), np.array([self.N])) + self.lam
        self.current = None
        self.current_bound = math.inf
        self._started = None
        self.seconds_to_optimum = 0.0
        self.nodes_to_optimum = 0
        # The greedy start and the root's children come first, in steps (thousands of features make the
        # greedy start alone take seconds); meanwhile every tree meets the floor 0 (no loss is negative).
        self.lower_bound = 0.0
        self._opening = self._begin()

    # -- the driver protocol -------------------------------------------------------------------------

    @property
    def nodes(self):
        return self.evaluated

    def step(self, budget):
        """Pop entries and build child trees, at most ``budget`` of them together; return True when proved."""
        if self._started is None:
            self._started = time.perf_counter()
        deadline = time.perf_counter() + STEP_SECONDS
        if self._opening is not None:
            for _ in range(max(1, budget // OPENING_CHUNK)):
                if sum(1 for _ in itertools.islice(self._opening, OPENING_CHUNK)) < OPENING_CHUNK:
                    self._opening = None
                    break
                if time.perf_counter() > deadline:
                    break
            return False  # the search's first step gets a budget measured on its own work
        work = 0
        while work < budget and time.perf_counter() < deadline:
            if self.current is None:
                if not self.heap or self.heap[0][0] >= self.upper_bound:
                    self.prunes["hierarchical"] += len(self.heap)
                    self.heap.clear()
                    self.lower_bound = self.upper_bound
                    return True
                entry = heapq.heappop(self.heap)
                self.pops += 1
                work += 1
                if not entry[5]:
                    entry = self._refine(entry)
                    if entry is None:
                        continue
                    if self.heap and entry[0] > self.heap[0][0]:
                        heapq.heappush(self.heap, entry)  # another entry may now come first
                        continue
                self.current = self._expand(entry)
                self.current_bound = entry[0]
            try:
                work += next(self.current)
            except StopIteration:
                self.current = None
                self.current_bound = math.inf
        self.lower_bound = self._lower_bound()
        return False

    def _lower_bound(self):
        lower = min(self.upper_bound, self.current_bound)
        return min(lower, self.heap[0][0]) if self.heap else lower

    def progress(self):
        return {"queue_size": len(self.heap), "tree_cache_size": len(self.trees), "leaf_cache_size": len(self.leaves)}

    def state_bytes(self):
        # Rough sizes of the Python objects: a heap entry, a stored tree, a seen key.
        return self.leaves.nbytes + self.tree_bytes + 120 * len(self.heap) + 100 * len(self.seen)

    def best_model(self):
        ids = self.trees[self.best][0]
        lv = self.leaves
        labels = {i: int(self.omega * lv.pos[i] > lv.neg[i]) for i in ids}
        scores = {i: lv.pos[i] / (lv.pos[i] + lv.neg[i]) for i in ids}
        return leaf_set_model(lv, ids, labels, scores, self.problem.features, self.problem.classes)

    def stats(self):
        return {
            "pops": self.pops,
            "trees_evaluated": self.evaluated,
            "queue_pushes": self.pushes,
            "tree_cache_hits": self.tree_hits,
            "leaf_cache_hits": self.leaves.hits,
            "leaves_cached": len(self.leaves),
            "trees_cached": len(self.trees),
            "nodes_to_optimum": self.nodes_to_optimum,
            "seconds_to_optimum": self.seconds_to_optimum,
            "distinct_points": int(self.leaves.points.X.shape[0]),
            "prunes": dict(self.prunes),
        }

    # -- the search ----------------------------------------------------------------------------------

    def _begin(self):
        """Yield after each candidate of the greedy start; then queue the root's children."""
        yield from self._greedy()
        self._queue_children((), (0,), -math.inf, 0)
        self.lower_bound = self._lower_bound()

    def _greedy(self):
        """Start from a greedy tree: split, one leaf at a time, where the objective falls most, while it falls.

        A first incumbent for the bounds to prune against; the search still proves (or improves on) it.
        Yields after each candidate split evaluated, so that the steps stay short.
        """
        lv = self.leaves
        leaves, objective = [0], self.upper_bound
        while True:
            best = None
            for at, leaf in enumerate(leaves):
                if not lv.can_split(leaf):
                    continue
                others = leaves[:at] + leaves[at + 1 :]
                for f in lv.features(leaf):
                    ids = others + list(lv.split(leaf, f))
                    lp = np.array([lv.pos[i] for i in ids])
                    ln = np.array([lv.neg[i] for i in ids])
                    value = self._loss(lp, ln) + self.lam * len(ids)
                    if value < objective and (best is None or value < best[0]):
                        best = (value, ids)
                    yield
            if best is None:
                break
            objective, leaves = best
        if objective < self.upper_bound:
            self._improve(objective, self._store(tuple(leaves), 0))

    def _loss(self, lp, ln):
        return float(rk.tree_loss(self.kind, lp, ln, self.P, self.N, self.omega, self.theta))

    def _expand(self, entry):
        """Yield the work done after each child tree of ``entry`` = (bound, leaves, seq, tree, split mask)."""
        bound = entry[0]
        fixed, split = self._entry_leaves(entry)
        for kids in self._assignments(fixed, split):
            if bound >= self.upper_bound:
                return  # Theorem B.1 / 2.2 against the incumbent found meanwhile
            if kids is not None:
                self._queue_children(fixed, kids, bound, len(split))
            yield 1

    def _entry_leaves(self, entry):
        """Return the fixed leaves and the leaves to split of a queue entry."""
        _, _, _, tree, mask, _ = entry
        ids, n_new = self.trees[tree]
        old, new = ids[: len(ids) - n_new], ids[len(ids) - n_new :]
        split = [leaf for b, leaf in enumerate(new) if (mask >> b) & 1]
        fixed = old + tuple(leaf for b, leaf in enumerate(new) if not (mask >> b) & 1)
        return fixed, split

    def _refine(self, entry):
        """Return ``entry`` with its bound raised by looking one split ahead, or None when that drops it.

        Every tree below the entry splits each leaf of its split set on some feature: for each such
        leaf, the least over its candidate splits of the prefix bound (the other leaves ideal) bounds
        them all (Thms B.1, 2.1–2.2 with B.2); the largest over the leaves is kept.
        """
        if not self.switches["use_hierarchical_bound"]:
            return entry[:5] + (True,)
        fixed, split = self._entry_leaves(entry)
        lv = self.leaves
        base = self.lam * (len(fixed) + 2 * len(split))
        kept = (np.array([lv.pos[i] for i in fixed]), np.array([lv.neg[i] for i in fixed]))
        total = (sum(lv.pos[i] for i in split), sum(lv.neg[i] for i in split))
        look = self.lam if self.switches["use_lookahead_bound"] else 0.0
        bound = entry[0]
        for leaf in split:
            rest = (total[0] - lv.pos[leaf], total[1] - lv.neg[leaf])
            losses, _, _ = self._candidate_losses(leaf, kept, (np.zeros(0), np.zeros(0)), rest, look)
            bound = max(bound, base + float(losses.min()))
            if bound >= self.upper_bound:
                self.prunes["hierarchical"] += 1  # Theorems B.1 / 2.2 with B.2, one split ahead
                return None
        return (bound,) + entry[1:5] + (True,)

    def _candidate_losses(self, leaf, kept, chosen, rest, look):
        """Return ``prefix_losses`` of every candidate split of ``leaf``, and which children are never split again."""
        lv = self.leaves
        feats, p1, n1 = lv.side_counts(leaf)
        p0, n0 = lv.pos[leaf] - p1, lv.neg[leaf] - n1
        at_limit = lv.depth(leaf) + 1 >= lv.max_depth
        done0 = at_limit | (p0 <= 0) | (n0 <= 0)
        done1 = at_limit | (p1 <= 0) | (n1 <= 0)
        losses = rk.prefix_losses(
            self.kind,
            kept[0],
            kept[1],
            chosen[0],
            chosen[1],
            rest[0],
            rest[1],
            p0,
            n0,
            done0,
            p1,
            n1,
            done1,
            self.P,
            self.N,
            self.omega,
            self.theta,
            look,
        )
        return losses, done0, done1

    def _assignments(self, fixed, split):
        """Yield the children (a tuple of leaf ids) of each feature assignment to ``split`` (None after a pruned batch).

        With the hierarchical bound on, features are chosen leaf by leaf and a prefix is dropped when
        no tree below it can beat the incumbent (Thms B.1, 2.1–2.2): every such tree keeps the fixed
        leaves and the chosen children that are never split again (pure, or at the depth limit), and
        the leaves still to choose for are at best ideal. With the lookahead (B.2) too, a tree either
        keeps all the other chosen children as leaves, or splits one of them and has one more leaf
        (``kernels.prefix_losses``).
        """
        lv = self.leaves
        if not self.switches["use_hierarchical_bound"]:
            for choice in itertools.product(*(lv.features(leaf) for leaf in split)):
                yield tuple(itertools.chain.from_iterable(lv.split(leaf, f) for leaf, f in zip(split, choice)))
            return
        base = self.lam * (len(fixed) + 2 * len(split))
        kept = (np.array([lv.pos[i] for i in fixed]), np.array([lv.neg[i] for i in fixed]))
        rest = (sum(lv.pos[i] for i in split), sum(lv.neg[i] for i in split))
        yield from self._assign(split, 0, (), kept, (np.zeros(0), np.zeros(0)), rest, base)

    def _assign(self, split, k, kids, kept, chosen, rest, base):
        if k == len(split):
            yield kids
            return
        lv = self.leaves
        leaf = split[k]
        rest = (rest[0] - lv.pos[leaf], rest[1] - lv.neg[leaf])
        feats, p1, n1 = lv.side_counts(leaf)
        p0, n0 = lv.pos[leaf] - p1, lv.neg[leaf] - n1
        look = self.lam if self.switches["use_lookahead_bound"] else 0.0
        losses, done0, done1 = self._candidate_losses(leaf, kept, chosen, rest, look)
        alive = np.flatnonzero(base + losses < self.upper_bound)
        # Theorems B.1 / 2.2 (with B.2): no tree below the other candidates can beat the incumbent.
        self.prunes["hierarchical"] += len(feats) - len(alive)
        yield None
        for index in alive:
            if base + losses[index] >= self.upper_bound:
                self.prunes["hierarchical"] += 1
                continue
            pair = lv.split(leaf, int(feats[index]))
            now_kept, now_chosen = kept, chosen
            for c, done, p, n in (
                (pair[0], done0[index], p0[index], n0[index]),
                (pair[1], done1[index], p1[index], n1[index]),
            ):
                if done:
                    now_kept = (np.append(now_kept[0], lv.pos[c]), np.append(now_kept[1], lv.neg[c]))
                else:
                    now_chosen = (np.append(now_chosen[0], lv.pos[c]), np.append(now_chosen[1], lv.neg[c]))
            yield from self._assign(split, k + 1, kids + pair, now_kept, now_chosen, rest, base)

    def _queue_children(self, fixed, kids, floor, n_split):
        """Evaluate the tree ``fixed + kids`` and queue its split sets that may still beat the incumbent."""
        if self.switches["use_leaf_permutation_bound"]:
            key = tuple(sorted(fixed + kids))
            if key in self.seen and n_split:
                self.tree_hits += 1
                self.prunes["permutation_map"] += 1  # Theorem B.8: this leaf set was expanded already
                return
            self.seen.add(key)
        lv = self.leaves
        ids = fixed + kids
        lp = np.array([lv.pos[i] for i in ids])
        ln = np.array([lv.neg[i] for i in ids])
        h, n_old = len(ids), len(fixed)
        tree = None
        if n_split:
            self.evaluated += 1
            objective = self._loss(lp, ln) + self.lam * h
            if objective < self.upper_bound:
                tree = self._store(ids, len(kids))
                self._improve(objective, tree)
        split_idx = [
            n_old + b
            for b, leaf in enumerate(kids)
            if lv.can_split(leaf) and self._worth_splitting(lp, ln, n_old, n_old + b)
        ]
        if not split_idx:
            return
        bounds, rules = self._bounds(lp, ln, ids, split_idx, floor)
        for mask in range(1, 1 << len(split_idx)):
            if rules[mask] != rk.KEPT:
                self.prunes[_RULE_NAMES[rules[mask]]] += 1
                continue
            if tree is None:
                tree = self._store(ids, len(kids))
            new_mask = sum(1 << (split_idx[b] - n_old) for b in range(len(split_idx)) if (mask >> b) & 1)
            self.sequence += 1
            heapq.heappush(self.heap, (float(bounds[mask]), h, self.sequence, tree, new_mask, False))
            self.pushes += 1

    def _worth_splitting(self, lp, ln, n_old, j):
        if not self.switches["use_incremental_progress_bound"]:
            return True
        tau = rk.incremental_progress(self.kind, lp, ln, n_old, j, self.P, self.N, self.omega)
        if tau < self.lam - TAU_SLACK:
            self.prunes["incremental_progress"] += 1  # Theorem B.6 / C.2: two pure children gain less than λ
            return False
        return True

    def _bounds(self, lp, ln, ids, split_idx, floor):
        lv, s = self.leaves, self.switches
        k = len(split_idx)
        split = np.array(split_idx, np.int64)
        minority = np.array([lv.minority[ids[j]] for j in split_idx])
        bounds = np.empty(1 << k)
        rules = np.empty(1 << k, np.int64)
        no_classes = (np.zeros(k + 1, np.int64), np.zeros(0), np.zeros(0))
        rank_eq = s["use_equivalent_points_bound"] and self.kind != rk.F1

        def entry_bounds(classes, use_equivalent):
            rk.entry_bounds(
                self.kind,
                lp,
                ln,
                split,
                minority,
                *classes,
                float(floor),
                self.upper_bound,
                self.lam,
                self.P,
                self.N,
                self.omega,
                self.theta,
                s["use_hierarchical_bound"],
                s["use_lookahead_bound"],
                use_equivalent,
                bounds,
                rules,
            )

        # The equivalent points bound is at least the hierarchical one: when that already drops every
        # split set, the classes need not be gathered.
        entry_bounds(no_classes, s["use_equivalent_points_bound"] and not rank_eq)
        if not rank_eq or not (rules[1:] == rk.KEPT).any():
            return bounds, rules
        parts = [lv.classes(ids[j]) for j in split_idx]
        cls_p = np.concatenate([p for p, _ in parts])
        cls_n = np.concatenate([n for _, n in parts])
        cls_start = np.zeros(k + 1, np.int64)
        cls_start[1:] = np.cumsum([len(p) for p, _ in parts])
        entry_bounds((cls_start, cls_p, cls_n), True)
        return bounds, rules

    def _store(self, ids, n_new):
        self.trees.append((ids, n_new))
        self.tree_bytes += 8 * len(ids) + 120
        return len(self.trees) - 1

    def _improve(self, objective, tree):
        self.upper_bound = objective
        self.best = tree
        self.nodes_to_optimum = self.evaluated
        if self._started is not None:
            self.seconds_to_optimum = time.perf_counter() - self._started
