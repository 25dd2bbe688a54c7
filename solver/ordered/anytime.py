"""Good trees early for the ordered search: CART's tree as a seed, and smaller searches beside the proving one.

The proving search (``Engine`` at the full depth over every threshold) finds its first good trees late on a
hard case: it searches its best-ranked root feature to the end before the others. Meanwhile trees that any
analyst would accept are cheap to find, and every one of them is a tree of the full problem:

* **CART's tree** at the same depth (scikit-learn on the ranks, as ``solver.cart``), its leaves relabelled
  with their best label and pruned optimally for the node cost and the node budget (``seed_tree``): never
  worse than CART's own tree.
* **Shallower optima**: the same search at depth 1, 2, … below the asked depth (a depth-``d`` tree is a tree of
  every larger depth).
* **Coarse optima**: the same search at the full depth over a few thresholds per column (the ``k``-quantiles of
  its rows, ``coarse_ranks``, for ``k`` = 4, 16, 64, 256): a subset of the splits, so its trees are trees of
  the full problem, and a small search that finishes.
* **The refiner** (``Refiner``): each subtree of the best tree held, re-solved exactly at the depth left to it
  for the rows reaching it (deepest first, never the root): a coarse or greedy tree's deep splits move to
  their best thresholds.

**Lower bounds.** Beside the proving search's own bound, the equivalent-points bound (``equivalent_points_bound``)
holds for every tree: it is computed once, with CART's tree. The *root-block bound* (``BlockBound``) runs as
a search of its own, with as much work as the proving search (``BOUND_SHARE``) beside the helpers' share. It
rests on *superadditivity*: the optima of disjoint row sets add up to at most the optimum
of their union (the best tree of the union, restricted to each set, is a tree of that set, and a leaf's least
cost over the union is at least the sum of its least costs over the sets). A depth-``d`` tree is a leaf or
splits its root on some feature ``f`` at some position of ``f``'s sorted rows; cut those rows into blocks of
consecutive positions, and the split's two children together hold every block but the one it falls in, so they
cost at least the sum of the other blocks' depth-``(d-1)`` optima. Blocks of a few hundred rows are small
searches one depth shallower; once all are solved they merge pairwise, and the bound is the best level's. Needs a depth limit
and a minimum leaf of one row (a restricted tree may have smaller leaves); a node cost ``cc`` is counted once,
for the root (the blocks are solved for their leaves alone: a tree costs at least its leaves).

These are the *helper searches*; ``Helpers`` runs them in a fixed order (in limited-discrepancy spirit: the small, most restricted searches first) with a work allowance each that doubles every round, so a helper
that does not finish never holds up the next ones. Paused helpers keep their state while they hold at most
``HELPER_MEMORY`` bytes; on a large table a paused one is dropped instead and starts afresh in a later round
with its doubled allowance (so at most twice the work of keeping it). The helpers' share of the time
is equal to the proving search's for the first ``STEADY_ROUNDS`` rounds, then halves after every round in which
none of them found a better tree (down to a sixteenth): helpers that stopped paying leave the time to the
proof. (Halving from the first round starved the coarse helpers on eeg at depth 4: 3,487 errors at 60 s
instead of 3,303 at 22 s.) A helper's set-up copies the table's
sorted orders (seconds on a million rows: one step of the driver must stay short), so helper searches run
on tables of at most ``HELPER_CELLS`` features × rows; larger ones get CART's tree, grown in the background. Each one starts from the best value held (``upper``) and
is tightened whenever any search finds a better tree, and the proving search is tightened the same way, so
every improvement prunes everywhere. None of them proves a lower bound for the full problem; the proving
search alone does.
"""

from __future__ import annotations

import math

import numpy as np

from solver.ordered.engine import Engine

COARSE_BINS = (4, 16, 64, 256)
FIRST_ALLOWANCE = 1 << 22  # rows visited by a helper before it yields to the next one, doubling every round
STEADY_ROUNDS = 6  # rounds at an equal share whatever they find: a coarse helper needs seconds to finish
MIN_SHARE = 1 / 16  # the least share of the helpers, so that the proof is slowed by at most a sixteenth at length
HELPER_CELLS = 4_000_000  # features × rows up to which helper searches run (above: CART's tree only)
HELPER_MEMORY = 256 << 20  # bytes of paused helper searches kept; beyond, a paused one is dropped (restarts later)
BOUND_SHARE = 1.0  # the root-block bound's work per row of the proving search's (beside the helpers' share)
BLOCK_ROWS = 256  # rows per block at the root-block bound's first level (then blocks merge pairwise)
SEED_DEPTH_UNLIMITED = 6  # CART's depth for a search without a depth limit (λ prunes the rest)


# -- nested engine trees: ``(label,)`` or ``(feature, u, below, above)``, below: rank < u -------------------
def branching(tree):
    """Return the number of branching nodes of a nested tree."""
    return 0 if len(tree) == 1 else 1 + branching(tree[2]) + branching(tree[3])


def depth_of(tree):
    """Return the depth of a nested tree (a leaf: 0)."""
    return 0 if len(tree) == 1 else 1 + max(depth_of(tree[2]), depth_of(tree[3]))


def map_splits(tree, cuts):
    """Return ``tree`` over coarse ranks as a tree over the full ranks: coarse ``c < v`` is ``rank < cuts[f][v-1]``."""
    if len(tree) == 1:
        return tree
    f, v, below, above = tree
    return (f, int(cuts[f][v - 1]), map_splits(below, cuts), map_splits(above, cuts))


def coarse_ranks(rank, order, bins):
    """Return (coarse ranks (F, N) int32, cuts per feature, True if some feature lost a threshold).

    Feature ``f`` keeps the cuts ``rank < u`` at the ranks ``u`` found at the ``bins``-quantiles of its rows;
    coarse rank ``c`` holds the rows with ``cuts[f][c - 1] ≤ rank < cuts[f][c]``, so every coarse split is a
    split of the full data and the coarse order is the full one (``order`` serves both).
    """
    F, N = rank.shape
    coarse = np.empty((F, N), dtype=np.int32)
    cuts, fewer = [], False
    for f in range(F):
        sorted_rank = rank[f, order[f]]
        at = (np.arange(1, bins) * N) // bins
        u = np.unique(sorted_rank[at]) if N else np.zeros(0, dtype=rank.dtype)
        u = u[u > sorted_rank[0]] if N else u
        distinct = int(np.count_nonzero(np.diff(sorted_rank))) if N else 0
        fewer = fewer or len(u) < distinct
        cuts.append(u)
        coarse[f] = np.searchsorted(u, rank[f], side="right")
    return coarse, cuts, fewer


def best_labels(cost, reached, n_nodes):
    """Return (cost of the best label, that label) at each node for the rows ``reached`` at it (a list of arrays)."""
    out = []
    for rows in reached[:n_nodes]:
        sums = cost[rows].sum(axis=0)
        out.append((float(sums.min()), int(sums.argmin())))
    return out


def seed_tree(rank, cost, groups, weights, depth, nodes, cc, min_leaf):
    """Return (value, nested tree) of CART's tree on the ranks, relabelled and pruned optimally, or None.

    CART (scikit-learn, Gini, ``max_depth=depth``, ``min_samples_leaf=min_leaf``) learns the classes
    ``groups``; its split ``rank ≤ k`` is the engine's ``rank < k + 1``. Every node then takes the label of
    least cost, and a dynamic programme over the grown tree keeps the best subtree with at most ``nodes``
    branching nodes, each costing ``cc``: its value is never above that of CART's tree.
    """
    from sklearn.tree import DecisionTreeClassifier

    F, N = rank.shape
    if N == 0 or F == 0 or len(np.unique(groups)) < 2:
        return None
    grown_depth = SEED_DEPTH_UNLIMITED if depth is None or depth > 64 else int(depth)
    if grown_depth < 1 or nodes < 1:
        return None
    clf = DecisionTreeClassifier(
        max_depth=grown_depth, min_samples_leaf=max(1, int(min_leaf)), criterion="gini", random_state=0
    )
    X = np.ascontiguousarray(rank.T, dtype=np.float32)
    positive = weights > 0
    if not positive.any():
        return None
    clf.fit(X[positive], groups[positive], sample_weight=weights[positive])
    t = clf.tree_
    reached = [None] * t.node_count
    reached[0] = np.arange(N)
    for i in range(t.node_count):  # parents come before their children in scikit-learn's numbering
        if t.children_left[i] >= 0:
            rows = reached[i]
            u = int(np.floor(t.threshold[i])) + 1
            below = rank[t.feature[i], rows] < u
            reached[t.children_left[i]] = rows[below]
            reached[t.children_right[i]] = rows[~below]
    leaf = best_labels(cost, reached, t.node_count)

    def best(i, budget):
        """Return {k: (value, tree)} for at most k branching nodes, k = 0 … budget."""
        value, label = leaf[i]
        table = {0: (value, (label,))}
        if t.children_left[i] < 0 or budget == 0:
            return table
        u = int(np.floor(t.threshold[i])) + 1
        left, right = best(t.children_left[i], budget - 1), best(t.children_right[i], budget - 1)
        for kl, (vl, tl) in left.items():
            for kr, (vr, tr) in right.items():
                k = 1 + kl + kr
                v = vl + vr + cc
                if k <= budget and (k not in table or v < table[k][0]):
                    table[k] = (v, (int(t.feature[i]), u, tl, tr))
        return table

    budget = min(int(nodes), (1 << grown_depth) - 1)
    return min(best(0, budget).values(), key=lambda vt: vt[0])


def equivalent_points_bound(rank, cost):
    """Return the equivalent-points bound: the least cost of any tree on these rows, whatever its shape.

    Rows with the same rank in every feature (*equivalent points*) reach the same leaf of every tree, and that
    leaf pays at least, for each such group of rows, the cost of the group's best label. So every tree costs at
    least the sum over groups of that least cost (branching nodes cost ``cc ≥ 0`` more). Exact (the groups come
    from sorting the ranks, no hashing); zero on tables whose rows all differ, as most raw numeric tables.
    """
    F, N = rank.shape
    if N == 0:
        return 0.0
    if F == 0:
        return float(cost.sum(axis=0).min())
    order = np.lexsort(rank[::-1])
    same = np.all(rank[:, order[1:]] == rank[:, order[:-1]], axis=0)
    group = np.empty(N, dtype=np.int64)
    group[order] = np.concatenate(([0], np.cumsum(~same)))
    sums = np.zeros((int(group.max()) + 1, cost.shape[1]))
    np.add.at(sums, group, cost)
    return float(sums.min(axis=1).sum())


class BlockBound:
    """The root-block bound (module docstring) of a search at depth ``d``: blocks of each feature's sorted rows.

    Feature ``f``'s sorted rows are cut into ``B`` blocks of consecutive positions (``B`` a power of two, blocks
    of at least ``first_rows`` rows). A root split on ``f`` falls in one block ``b``: its left child holds every
    block before ``b`` and its right child every block after, so by superadditivity its children cost at least
    the sum of the other blocks' depth-``(d-1)`` optima. So every tree costs at least ``min(leaf, cc +
    min_f (Σ_c lb[f, c] − max_c lb[f, c]))`` for any lower bounds ``lb[f, c]`` of the blocks' optima (leaf costs
    alone, budget ``nodes − 1``): a block being searched gives its proved bound so far, one not reached 0.
    Blocks are searched position by position (the first, of each feature in turn, then the second, …: middle
    blocks first proved slower, their rows mixed); when all are solved, neighbouring
    blocks merge (``B`` halves), each merged block's bound the larger of its own search's and the sum of its
    halves' (a bigger block is closer to the child it stands for, but the one left out is bigger too: the
    bound is the best of the levels); the level of two blocks is the last.
    """

    name = "root-block bound"

    def __init__(self, rank, order, cost, depth, nodes, cc, first_rows=None):
        F, N = rank.shape
        first_rows = BLOCK_ROWS if first_rows is None else first_rows
        self.rank, self.order, self.cost = rank, order, cost
        self.depth, self.nodes, self.cc = depth, nodes, float(cc)
        self.leaf = float(cost.sum(axis=0).min()) if N else 0.0
        B = 1
        while N // (2 * B) >= max(1, first_rows):
            B *= 2
        self.B = B
        self.lb = np.zeros((F, B))  # each block's proved bound at the current level
        self.at = (0, 0)  # (block, feature) searched now
        self.engine = None
        self.finished = B < 2 or F == 0 or depth < 1
        self.work = 0
        self.allowance = FIRST_ALLOWANCE
        self.levels_done = 0
        self.earlier = 0.0  # the best bound of the levels done

    def block(self, f, c):
        """Return the rows of block ``c`` of feature ``f`` at the current level."""
        N = self.rank.shape[1]
        return np.sort(self.order[f, (c * N) // self.B : ((c + 1) * N) // self.B])

    @property
    def bound(self):
        return max(self.earlier, self.level_bound())

    def level_bound(self):
        """The bound of the current level's blocks (a merged level excludes bigger blocks: it may be lower)."""
        if self.B < 2 or self.rank.shape[0] == 0:
            return 0.0
        per_feature = self.lb.sum(axis=1) - self.lb.max(axis=1)
        return float(max(0.0, min(self.leaf, self.cc + per_feature.min())))

    def step(self, work):
        """Search blocks for about ``work`` rows (several small ones if need be: the driver sizes its steps by time)."""
        spent = 0
        while not self.finished and spent < work:
            before = self.work
            self._step(work - spent)
            spent += self.work - before

    def _step(self, work):
        c, f = self.at
        if self.engine is None:
            rows = self.block(f, c)
            nodes = None if self.nodes is None else max(0, self.nodes - 1)
            self.engine = Engine(self.rank[:, rows], self.cost[rows], self.depth - 1, nodes, 0.0)
        e = self.engine
        before = e.counters["work"]
        done = e.step(work)
        self.work += max(1, e.counters["work"] - before)
        self.lb[f, c] = max(self.lb[f, c], e.lower_bound)
        if not done:
            return
        self.engine = None
        F = self.rank.shape[0]
        f += 1
        if f == F:
            f, c = 0, c + 1
        if c == self.B:  # every block solved: neighbouring blocks merge
            self.levels_done += 1
            self.earlier = self.bound
            if self.B == 2:
                self.finished = True
            else:
                self.B //= 2
                self.lb = self.lb[:, 0::2] + self.lb[:, 1::2]
            c = 0
        self.at = (c, f)

    def state_bytes(self):
        return 0 if self.engine is None else self.engine.state_bytes()


def subtrees(tree, depth):
    """Return (path, subtree, its depth from the root) of every node of a nested tree, deepest first.

    A path is a tuple of 0 (below) and 1 (above). Leaves count: a leaf above the depth limit may grow.
    """
    out, stack = [], [((), tree)]
    while stack:
        path, t = stack.pop()
        out.append((path, t, len(path)))
        if len(t) == 4:
            stack.append((path + (0,), t[2]))
            stack.append((path + (1,), t[3]))
    return sorted(out, key=lambda x: -x[2])


def replace_at(tree, path, new):
    """Return ``tree`` with the subtree at ``path`` replaced by ``new``."""
    if not path:
        return new
    f, u, below, above = tree
    if path[0] == 0:
        return (f, u, replace_at(below, path[1:], new), above)
    return (f, u, below, replace_at(above, path[1:], new))


def rows_at(tree, path, rank):
    """Return the rows (sorted) that reach the node at ``path``."""
    rows = np.arange(rank.shape[1])
    for side in path:
        f, u, below, above = tree
        go = rank[f, rows] < u
        rows, tree = (rows[go], below) if side == 0 else (rows[~go], above)
    return rows


class Refiner:
    """Re-solves each subtree of the best tree held, exactly at the depth left to it, deepest subtrees first.

    A subtree rooted at depth ``k`` (a leaf included) is replaced by the optimum over every threshold of
    depth ``D − k`` for the rows reaching it (with the node budget the rest of the tree leaves), searched
    below the subtree's own cost: what it finds is strictly better, and the tree held improves by the
    difference. The subtrees of depth two are cheap and come first; the root (the full problem) is not
    re-solved. A tree from a coarse search or CART's gains most: its deep splits move to the best
    thresholds. Each time the tree held changes, the refiner starts again from that tree.
    """

    name = "refine the best tree"

    def __init__(self, rank, cost, depth, nodes, cc, options):
        self.rank, self.cost, self.depth, self.nodes, self.cc = rank, cost, depth, nodes, cc
        self.options = options
        self.base = None  # the tree refined
        self.queue = []
        self.current = None  # (path, subtree value) of the engine's subproblem
        self.engine = None
        self.finished = True
        self.work = 0  # in this round of the rotation
        self.total = 0  # in all
        self.allowance = FIRST_ALLOWANCE

    @property
    def cheap(self):
        """Whether the subtree searched now (or next) is of depth two."""
        if self.current is not None:
            return self.depth - len(self.current[0]) <= 2
        return bool(self.queue) and self.depth - len(self.queue[0][0]) <= 2

    def follow(self, tree):
        """Refine ``tree`` from now on (when it is not the one refined already)."""
        if tree is None or tree is self.base:
            return
        self.base = tree
        self.engine, self.current = None, None
        self.queue = [(p, t) for p, t, k in subtrees(tree, self.depth) if 0 < k and self.depth - k >= 2]
        self.finished = not self.queue

    def step(self, work, upper):
        """Search for about ``work`` rows; return (value, full tree) of a better tree as soon as found, or None.

        Several small subproblems run in one call if need be: the driver sizes its steps by their time.
        """
        spent = 0
        while not self.finished and spent < work:
            before = self.work
            found = self._step(work - spent, upper)
            spent += max(1, self.work - before)
            if found is not None:
                return found
        return None

    def _step(self, work, upper):
        if self.engine is None and self.current is not None:  # its search was dropped for memory: again
            path = self.current[0]
            sub = self.base
            for side in path:
                sub = sub[2 + side]
            self.queue.insert(0, (path, sub))
            self.current = None
        while self.engine is None:
            if not self.queue:
                self.finished = True
                return None
            path, sub = self.queue.pop(0)
            rows = rows_at(self.base, path, self.rank)
            if len(rows) < 2:
                continue
            value = _cost_on(sub, self.rank, self.cost, self.cc, rows)
            budget = None
            if self.nodes < 1 << 39:
                budget = self.nodes - (branching(self.base) - branching(sub))
            depth = self.depth - len(path)
            self.engine = Engine(
                self.rank[:, rows], self.cost[rows], depth, budget, self.cc, upper=value, **self.options
            )
            self.current = (path, value)
        e = self.engine
        before = e.counters["work"]
        done = e.step(work)
        self.work += max(1, e.counters["work"] - before)
        if not done:
            return None
        path, old = self.current
        self.engine, self.current = None, None
        if not e.found:
            return None
        better = replace_at(self.base, path, e.tree())
        return _cost_on(better, self.rank, self.cost, self.cc, np.arange(self.rank.shape[1])), better


def _cost_on(tree, rank, cost, cc, rows):
    """Return the cost of a nested tree on ``rows``: its leaves' labels' costs, plus cc per branching node."""
    if len(tree) == 1:
        return float(cost[rows, tree[0]].sum())
    f, u, below, above = tree
    go = rank[f, rows] < u
    return cc + _cost_on(below, rank, cost, cc, rows[go]) + _cost_on(above, rank, cost, cc, rows[~go])


class Helper:
    """One helper search: ``make(upper)`` → (``Engine`` or None when it would add nothing, map to full trees)."""

    def __init__(self, name, make):
        self.name, self.make = name, make
        self.engine, self.to_full = None, None
        self.work = 0  # rows visited in this round
        self.allowance = FIRST_ALLOWANCE
        self.finished = False


class Helpers:
    """The helper searches of one proving search, run in order with doubling allowances (module docstring)."""

    def __init__(self, rank, order, cost, depth, nodes, cc, options, memory=HELPER_MEMORY):
        self.rank, self.order, self.cost = rank, order, cost
        self.depth, self.nodes, self.cc, self.options = depth, nodes, cc, dict(options)
        self.memory = memory
        self.work = 0
        self.share = 1.0  # helpers' work per row of the proving search's; halves after a round without a better tree
        self.gained = False  # a helper found a better tree in this round
        self.list = []
        self.blocks = None
        F, N = rank.shape
        if 2 <= depth <= 64 and int(options.get("min_leaf", 1)) <= 1 and N >= 2 * BLOCK_ROWS:
            self.blocks = BlockBound(rank, order, cost, depth, nodes, cc)  # small searches: any table size
        if depth < 2 or F * N > HELPER_CELLS:
            return
        self.refiner = None
        if depth >= 3:  # first in the rotation, and ahead of it while its subtrees are of depth two (``step``)
            self.refiner = Refiner(rank, cost, depth, nodes, cc, self.options)
            self.list.append(self.refiner)
        shallow = list(range(1, min(depth, 4)))
        coarse = list(COARSE_BINS)
        while shallow or coarse:  # depth 1, 4 bins, depth 2, 16 bins, depth 3, 64 bins, 256 bins
            if shallow:
                d = shallow.pop(0)
                self.list.append(Helper(f"depth {d}", self._shallow(d)))
            if coarse:
                bins = coarse.pop(0)
                self.list.append(
                    Helper(f"depth {self._depth_text()}, {bins} thresholds per column", self._coarse(bins))
                )

    def _depth_text(self):
        return "unlimited" if self.depth > 64 else str(self.depth)

    def _engine(self, rank, depth, upper):
        return Engine(rank, self.cost, depth, self.nodes, self.cc, upper=upper, order=self.order, **self.options)

    def _shallow(self, d):
        return lambda upper: (self._engine(self.rank, d, upper), lambda t: t)

    def _coarse(self, bins):
        def make(upper):
            ranks, cuts, fewer = coarse_ranks(self.rank, self.order, bins)
            if not fewer:  # every threshold kept: that is the proving search itself
                return None, None
            depth = None if self.depth > 64 else self.depth
            return self._engine(ranks, depth, upper), lambda t: map_splits(t, cuts)

        return make

    @property
    def floor(self):
        """A proved lower bound on the full problem's optimum from the helpers: the root-block bound's, else 0."""
        return 0.0 if self.blocks is None else self.blocks.bound

    def bound_due(self, proving_work):
        """Whether the root-block bound is behind its share (``BOUND_SHARE`` of the proving search's work)."""
        b = self.blocks
        return b is not None and not b.finished and b.work < BOUND_SHARE * proving_work

    def step_bound(self, work):
        """Run the root-block bound for about ``work`` rows."""
        self.blocks.step(work)

    @property
    def active(self):
        return any(not h.finished for h in self.list)

    def step(self, work, upper, tree=None):
        """Run the next helper for about ``work`` rows; return (value, full tree, its name) of a better tree, or None.

        ``tree``: the best tree held (worth ``upper``), for the refiner.
        """
        r = self.refiner
        if r is not None:
            r.follow(tree)
            if not r.finished and r.cheap and r.total <= self.work - r.total:
                # While its subtrees are of depth two the refiner takes half the helpers' work: the cheapest way
                # to improve a new tree (eeg at depth 4: 3,303 errors to 3,219 in 11 s). Deeper subtrees (half
                # the rows at depth three) wait their turn in the rotation, not to hold up the coarse searches.
                before = r.work
                found = r.step(work, upper)
                self.work += r.work - before
                r.total += r.work - before
                if found is not None and found[0] < upper:
                    self.gained = True
                    return found[0], found[1], r.name
                return None
        pending = [h for h in self.list if not h.finished]
        if not pending:
            return None
        h = next((h for h in pending if h.work < h.allowance), None)
        if h is None:  # every one used its allowance: a new round, each allowed twice as much
            for g in pending:
                g.allowance *= 2
                g.work = 0
            h = pending[0]
            if not self.gained and h.allowance > FIRST_ALLOWANCE << STEADY_ROUNDS:
                self.share = max(MIN_SHARE, self.share / 2)
            self.gained = False
        if isinstance(h, Refiner):
            before = h.work
            found = h.step(work, upper)
            self.work += h.work - before
            h.total += h.work - before
            if found is not None and found[0] < upper:
                self.gained = True
                return found[0], found[1], h.name
            return None
        if h.engine is None:
            live = [g for g in self.list if g.engine is not None]
            if live and self.state_bytes() > self.memory:
                for g in live:  # room for one at a time: the others start afresh in a later round
                    g.engine = None
            h.engine, h.to_full = h.make(upper)
            if h.engine is None:
                h.finished = True
                return None
        e = h.engine
        e.tighten(upper)
        before = e.counters["work"]
        done = e.step(work)
        spent = max(1, e.counters["work"] - before)
        h.work += spent
        self.work += spent
        found = None
        if math.isfinite(e.upper_bound) and e.upper_bound < upper:
            found = (e.upper_bound, h.to_full(e.tree()), h.name)
            self.gained = True
        if done:
            h.finished = True
            h.engine = None  # its arrays are freed
        return found

    def state_bytes(self):
        blocks = 0 if self.blocks is None else self.blocks.state_bytes()
        return blocks + sum(h.engine.state_bytes() for h in self.list if h.engine is not None)

    def describe(self):
        """Return each helper's state: finished, running or waiting."""
        out = {
            h.name: "finished" if h.finished else ("running" if h.engine is not None else "waiting") for h in self.list
        }
        if self.blocks is not None:
            b = self.blocks
            out[b.name] = f"{'finished' if b.finished else 'running'}, blocks of {b.rank.shape[1] // b.B} rows"
        return out
