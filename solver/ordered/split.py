"""One ordered search cut into pieces by root feature, so that several processes (or hosts) share it.

Every tree is a leaf or splits its root on one feature. Cut the root's features into groups: *piece* ``i``
is "the best tree whose root splits on a feature of group ``i``" (its nodes below the root split on any
feature). The optimum is the least of the leaf and the pieces' optima; a lower bound on it is the least of
the pieces' lower bounds (a piece not started: 0). Each piece is an ``Engine`` whose root may split only on
its group (``Engine(root_features=...)``, the kernel's ``Inputs.root``), so it keeps every bound, the
interval pruning and the cache of the one-process search.

**The shared incumbent.** Pieces prune against the best tree any of them found: an ``Incumbent`` holds the
least engine value published (``offer`` is an atomic minimum; ``LocalIncumbent`` in one process, a Redis
key per run across workers: ``corelsweb.runs.splitting``). Between two bounded kernel chunks a piece reads
it and tightens its root to that value plus ``slack`` (1 for integral costs, else ``2 eps``), so it still
finds a tree *equal* to the incumbent: whichever piece found the optimum first, every piece holding an
optimal tree reports one, and the combined choice among equal trees does not depend on timing.

**The one-process tie-break.** ``plan`` orders the root's features as the one-process search does (its
first root feature is searched to the end first, with no incumbent but the leaf). Piece 0 is that feature
alone and ignores the shared incumbent (it publishes to it): it retraces the one-process search's first
phase step for step. ``combine`` keeps the leaf unless a piece is better by more than ``eps``, else the
first piece (in plan order) within ``eps`` of the least value. So when the one-process search's tree
splits on its first root feature, the split search returns the same tree, byte for byte. When the optimum
lies elsewhere, the one-process search picks among equal trees by its own round-robin history, which a
split search cannot retrace: the optimum and bounds agree, and the tree is one of equal objective (the
same one whenever the optimal tree is unique). ``canonical``: when the winner is not piece 0, re-solve it
with the fixed bound ``optimum + slack`` from the start, so the tree depends on the data alone, not on
which worker ran which piece when.
"""

from __future__ import annotations

import math

import numpy as np

from solver.ordered import state as sm
from solver.ordered.engine import ALL_RANKS, UNLIMITED, Engine

WORK_PER_UNIT = 4096  # as ``solver.ordered.search``: rows visited per unit of the driver's budget


# -- the shared incumbent -------------------------------------------------------------------------------
class LocalIncumbent:
    """The least engine value published, in one process (``get`` / ``offer``, as the Redis one)."""

    def __init__(self, value=math.inf):
        self.value = float(value)

    def get(self):
        return self.value

    def offer(self, value):
        """Publish ``value``; return the least value held."""
        self.value = min(self.value, float(value))
        return self.value


# -- planning -------------------------------------------------------------------------------------------
def engine_args(base):
    """Return (rank, cost, depth, nodes, cc, options) of ``base`` (an ``OrderedSearch``) for a piece's ``Engine``."""
    e = base.engine
    depth = None if e.depth >= UNLIMITED else e.depth
    nodes = None if e.nodes_budget >= UNLIMITED else e.nodes_budget
    return e.inputs.rank, e.inputs.cost, depth, nodes, base.cc, dict(base.options)


def root_order(base):
    """Return the root's features in the order the one-process search of ``base`` takes them up.

    One unit of work runs the root's start (its feature order: ``Params.order_features``); a root solved at
    its start (a leaf, depth one) or from histograms takes them in column order.
    """
    rank, cost, depth, nodes, cc, options = engine_args(base)
    F = rank.shape[0]
    probe = Engine(rank, cost, depth, nodes, cc, order=base.engine.inputs.order, **options)
    probe.step(1)
    phase = int(probe.state.fi[0, sm.I_PHASE])
    if probe.done or phase not in (sm.FEATURE, sm.POP):
        return np.arange(F)
    return np.array(probe.state.ford[0], dtype=np.int64)


def plan(base, pieces=None, parts=1):
    """Return the root's splits of each piece: a list of tuples of entries ``f`` or ``(f, lo, hi)`` (``Engine``).

    Piece 0 is the one-process search's first root feature alone. Every other feature is cut into ``parts``
    ranges of its thresholds (as many thresholds each; ``(f, lo, hi)``: the root's splits ``rank < u`` with
    ``lo ≤ u < hi``), and these entries are dealt in the one-process search's order to ``pieces - 1`` groups
    (default: one entry each), so that each group mixes promising and poor features. A piece's root has one
    range per feature, so with fewer pieces than ranges the features stay whole.
    """
    order = [int(f) for f in root_order(base)]
    if not order:
        return []
    rank = base.engine.inputs.rank
    rest = [e for f in order[1:] for e in threshold_ranges(rank[f], f, parts)]
    if pieces is not None and int(pieces) - 1 < len(rest):  # a range per piece only: a piece's root has one
        rest = order[1:]  # range per feature (``Inputs.root``), so fewer pieces than ranges keep whole features
    k = len(rest) if pieces is None else max(0, min(int(pieces) - 1, len(rest)))
    groups = [tuple(rest[g::k]) for g in range(k)] if k else []
    if rest and not k:
        return [tuple(order)]
    return [(order[0],)] + groups


def threshold_ranges(ranks, f, parts):
    """Return feature ``f``'s entries: ``[f]``, or ``parts`` entries ``(f, lo, hi)`` of as many thresholds each."""
    u = np.unique(ranks)[1:]  # the split ranks (both sides non-empty)
    if parts <= 1 or len(u) < 2 * parts:
        return [f]
    bounds = [0] + [int(u[len(u) * i // parts]) for i in range(1, parts)] + [ALL_RANKS]
    return [(f, bounds[i], bounds[i + 1]) for i in range(parts)]


def entry(e):
    """Return a plan entry as ``f`` or ``(f, lo, hi)`` (from JSON lists too)."""
    return int(e) if np.ndim(e) == 0 else (int(e[0]), int(e[1]), int(e[2]))


def leaf(base):
    """Return (engine value, nested tree) of the root's best leaf (the first label of least cost, as the kernel)."""
    cost = base.engine.inputs.cost
    sums = cost.sum(axis=0)
    label = int(np.argmin(sums)) if len(sums) else 0
    return (float(sums[label]) if len(sums) else 0.0), (label,)


# -- one piece ------------------------------------------------------------------------------------------
class PieceSearch:
    """The driver protocol (``solver/driver.py``) over one piece: the best tree whose root splits on ``features``.

    ``incumbent``: the shared one (``get`` / ``offer``), polled between kernel chunks; ``follow`` False:
    publish to it but never prune with it (piece 0, see the module docstring). ``upper``: a fixed engine
    bound from the start (the canonical re-solve). Bounds are reported in the algorithm's objective units.
    """

    initial_budget = 16
    finished_status = "optimal"

    def __init__(self, base, features, incumbent=None, follow=True, upper=math.inf):
        rank, cost, depth, nodes, cc, options = engine_args(base)
        self.base = base
        self.features = tuple(entry(e) for e in features)
        self.incumbent = incumbent
        self.follow = bool(follow)
        self.engine = Engine(
            rank,
            cost,
            depth,
            nodes,
            cc,
            order=base.engine.inputs.order,
            root_features=self.features,
            upper=upper,
            **options,
        )
        prm = self.engine.params
        self.slack = max(prm.unit, 2 * prm.eps)
        self.published = math.inf
        self.steps = 0

    @property
    def nodes(self):
        return self.engine.counters["subproblems"]

    def poll(self):
        """Tighten the search to the shared incumbent (plus ``slack``: a tree equal to it is still found)."""
        if self.incumbent is not None and self.follow and not self.engine.done:
            shared = self.incumbent.get()
            if math.isfinite(shared):
                self.engine.tighten(shared + self.slack)

    def publish(self):
        value = self.engine.upper_bound
        if self.incumbent is not None and math.isfinite(value) and value < self.published:
            self.published = value
            self.incumbent.offer(value)

    def step(self, budget):
        self.steps += 1
        self.poll()
        self.engine.step(max(1, int(budget)) * WORK_PER_UNIT)
        self.publish()
        return self.engine.done

    @property
    def lower_bound(self):
        return self.base.to_objective(self.engine.lower_bound)

    @property
    def upper_bound(self):
        value = self.engine.upper_bound
        return self.base.to_objective(value) if math.isfinite(value) else math.inf

    def progress(self):
        c = self.engine.counters
        return {"threshold_evaluations": c["threshold_evaluations"], "cache_hits": c["cache_hits"]}

    def stats(self):
        return {**self.engine.counters, "steps": self.steps, "features": list(self.features)}

    def state_bytes(self):
        return self.engine.state_bytes()

    def result(self):
        """Return the piece's outcome, JSON-able: its best tree (engine value, nested lists), lower bound, done."""
        e = self.engine
        value = e.upper_bound
        tree = e.tree() if math.isfinite(value) else None
        return {
            "features": [e if isinstance(e, int) else list(e) for e in self.features],
            "value": float(value) if math.isfinite(value) else None,
            "tree": _lists(tree) if tree is not None else None,
            "lower": float(e.lower_bound) if math.isfinite(e.lower_bound) else None,
            "done": bool(e.done),
            "work": int(e.counters["work"]),
        }


def _lists(tree):
    return [int(tree[0])] if len(tree) == 1 else [int(tree[0]), int(tree[1]), _lists(tree[2]), _lists(tree[3])]


def _tuples(tree):
    return (int(tree[0]),) if len(tree) == 1 else (int(tree[0]), int(tree[1]), _tuples(tree[2]), _tuples(tree[3]))


# -- combining ------------------------------------------------------------------------------------------
def combine(base, results):
    """Return (value, nested tree, lower bound, winner) over the leaf and the pieces' ``result()`` dicts.

    ``results[i]`` None: piece ``i`` not started (lower bound 0). ``winner``: the index of the piece whose tree
    is kept, -1 for the leaf. Values and bounds are engine values. The lower bound never exceeds the value.
    """
    eps = base.engine.params.eps
    leaf_value, leaf_tree = leaf(base)
    values = [r["value"] if r is not None and r["value"] is not None else math.inf for r in results]
    least = min(values, default=math.inf)
    if least < leaf_value - eps:
        winner = next(i for i, v in enumerate(values) if v <= least + eps)
        value, tree = values[winner], _tuples(results[winner]["tree"])
    else:
        winner, value, tree = -1, leaf_value, leaf_tree
    lower = min(
        (r["lower"] if r is not None and r["lower"] is not None else 0.0 for r in results),
        default=value,
    )
    if all(r is not None and r["done"] for r in results):
        lower = value  # every piece searched to its end: the least of their optima (and the leaf) is proved
    return value, tree, max(0.0, min(lower, value)), winner


def canonical(base, features, value):
    """Return (value, nested tree) of piece ``features`` re-solved under the fixed bound ``value + slack``."""
    piece = PieceSearch(base, features)
    piece.engine.state.ff[0, sm.F_U] = value + piece.slack  # as ``Engine(upper=...)``: nothing stepped yet
    while not piece.engine.step(1 << 22):
        pass
    r = piece.result()
    return r["value"], _tuples(r["tree"])


def apply(base, value, tree, lower, done):
    """Make ``base`` (an ``OrderedSearch``) hold the combined tree and bounds, for its model, stats and extras."""
    base.best = (float(value), tree, "split search")
    base.upper_bound = base.to_objective(value)
    base.lower_bound = base.upper_bound if done else min(base.to_objective(lower), base.upper_bound)
    base._model = None


# -- the whole split search in one process (tests, tools; the web spreads the pieces: corelsweb.runs) ---
class SplitSearch:
    """The driver protocol over every piece of ``base``'s search, run one after another with a local incumbent.

    The answer is the one the pieces spread over workers give (``combine``): a test of the split search.
    ``order``: the order the pieces run in (by default, the plan's); ``pieces``, ``parts``: ``plan``'s.
    """

    finished_status = "optimal"
    initial_budget = 16

    def __init__(self, base, pieces=None, groups=None, make_canonical=True, order=None, parts=1):
        self.base = base
        self.problem = base.problem
        self.groups = plan(base, pieces, parts) if groups is None else [tuple(entry(e) for e in g) for g in groups]
        self.order = list(range(len(self.groups))) if order is None else [int(i) for i in order]
        self.incumbent = LocalIncumbent()
        self.results = [None] * len(self.groups)
        self.current, self.at = None, 0
        self.make_canonical = make_canonical
        self.steps = 0
        self.done = not self.groups
        self._update()

    @property
    def nodes(self):
        return sum(r["work"] for r in self.results if r is not None) + (self.current.nodes if self.current else 0)

    def step(self, budget):
        self.steps += 1
        if self.done:
            return True
        i = self.order[self.at]
        if self.current is None:
            self.current = PieceSearch(self.base, self.groups[i], self.incumbent, follow=i > 0)
        finished = self.current.step(budget)
        self.results[i] = self.current.result()
        if finished:
            self.current = None
            self.at += 1
            self.done = self.at == len(self.groups)
        self._update()
        return self.done

    def _update(self):
        value, tree, lower, winner = combine(self.base, self.results)
        if self.done and self.make_canonical and winner > 0:
            value, tree = canonical(self.base, self.groups[winner], value)
            self.make_canonical = False
        apply(self.base, value, tree, lower, self.done)
        self.winner = winner

    @property
    def lower_bound(self):
        return self.base.lower_bound

    @property
    def upper_bound(self):
        return self.base.upper_bound

    def progress(self):
        return {"pieces_done": sum(1 for r in self.results if r is not None and r["done"])}

    def stats(self):
        out = dict(self.base.stats())
        out.update(steps=self.steps, pieces=len(self.groups), split_winner=self.winner, best_tree_from="split search")
        return out

    def best_model(self):
        return self.base.best_model()

    def extras(self):
        return self.base.extras() if hasattr(self.base, "extras") else {}

    def searched_directly(self):
        return self.base.searched_directly()


def base_search(problem, algorithm, params=None):
    """Return (spec, config, the algorithm's ``OrderedSearch`` for ``problem``), or None without the ordered search."""
    import importlib

    from solver import api, registry
    from solver.ordered.search import OrderedSearch

    spec = registry.get(algorithm)
    config = spec.clean(params)
    api.check_problem(problem, spec, config)
    config, _ = spec.resolve(config, problem)
    api.warm(algorithm, config)
    module = importlib.import_module(spec.search_module)
    search = module.make_search(problem, config)
    if not isinstance(search, OrderedSearch):
        return None
    return spec, config, search


def solve(problem, algorithm, params=None, limits=None, pieces=None, on_progress=None, parts=1):
    """Solve with the split search in this process; return the ``solver.api.Result`` (None: not an ordered search)."""
    from solver import api, driver

    found = base_search(problem, algorithm, params)
    if found is None:
        return None
    spec, config, base = found
    limits = limits or api.Limits()
    search = SplitSearch(base, pieces, parts=parts)
    outcome = driver.run(search, limits, on_progress)
    stats = dict(solve_seconds=outcome.solve_seconds, steps=outcome.steps)
    return api._result(spec, config, problem, limits, search, outcome.status, outcome.trace.columns, stats)
