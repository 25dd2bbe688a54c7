"""The ordered search for ``solver/driver.py``: STreeD's scalar tasks and GOSDT's additive objectives share it.

``OrderedSearch`` runs an ``Engine`` over a problem's ordered columns (``Problem.ordered_columns``) and
speaks the driver protocol; the algorithm says what a row costs under each label, what a branching node
costs, and how an engine value becomes its reported objective. Trees come back over the problem's
binary features (``x ≤ t`` of a family's cut), so models, metrics and exports are unchanged.
"""

from __future__ import annotations

import numpy as np

from solver.background import Background
from solver.models import LEAF, Tree
from solver.ordered import anytime, policy
from solver.ordered.anytime import Helpers, equivalent_points_bound, seed_tree
from solver.ordered.engine import Engine

WORK_PER_UNIT = 4096  # rows visited per unit of the driver's budget (a unit is well under a millisecond)
HELPERS_AFTER = 1 << 21  # rows the proving search visits alone: a quick search ends proved before any helper runs


def warmup():
    """Compile (or load) the ordered search's kernels: every depth-two routine, growth, the anytime readers."""
    from solver.ordered.engine import Engine

    rng = np.random.default_rng(0)
    rank = rng.integers(0, 9, size=(2, 40))
    y = rng.integers(0, 3, 40)
    costs = (
        1.0 - np.eye(2)[y % 2],
        1.0 - np.eye(3)[y],
        (1.0 - np.eye(3)[y]) * rng.random((40, 1)),
        rng.random((40, 2)),
    )
    for cost in costs:
        for depth in (1, 3):
            engine = Engine(rank, cost, depth, cc=0.5 if depth == 1 else 0.0)
            st = engine.state  # a small pool, to exercise its growth
            engine.state = st._replace(pf=st.pf[:16], pu=st.pu[:16], pl=st.pl[:16], pr=st.pr[:16])
            while not engine.step(50):
                engine.lower_bound
            engine.tree()


def uses_ordered(problem, config):
    """Return True when ``config['threshold_search']`` (auto, ordered, binary) picks the ordered search here."""
    choice = config.get("threshold_search", "auto")
    return choice == "ordered" or (choice == "auto" and prefers_ordered(problem))


def prefers_ordered(problem):
    """Return True when a problem's thresholds are many enough that the ordered search is the faster one."""
    columns = problem.ordered_columns()
    return policy.prefers(columns.n_features, len(columns.size))


class OrderedSearch:
    """The driver protocol (see ``solver/driver.py``) over an ``Engine``.

    Parameters
    ----------
    problem : Problem
    cost : array of float64, shape (n, L)
        What each row costs a leaf predicting each label.
    depth, nodes : int or None
    cc : float
        Cost of a branching node, in the units of ``cost``.
    to_objective : callable
        Engine value (leaf costs + cc per branching node) → the algorithm's reported objective; increasing.
    labels : list of str
        What each leaf label means.
    kind : str
        ``solver.models.Tree.kind``.
    groups, weights : array, shape (n,)
        Row groups (class or treatment index) and weights, for the node counts of the reported tree.
    helpers : bool
        Run CART's tree and the helper searches beside the proving one once it has visited ``HELPERS_AFTER``
        rows (``solver.ordered.anytime``): good trees early, each one tightening the proving search.
    options : dict
        ``Engine`` switches and ``min_leaf``.
    """

    initial_budget = 16
    finished_status = "optimal"

    def __init__(
        self, problem, cost, depth, nodes, cc, to_objective, labels, kind, groups, weights, helpers=True, **options
    ):
        self.problem = problem
        self.columns = problem.ordered_columns()
        self.to_objective = to_objective
        self.labels, self.kind = list(labels), kind
        self.groups = np.asarray(groups, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.engine = Engine(self.columns.rank, cost, depth, nodes, cc, **options)
        self.cost, self.cc, self.options = self.engine.inputs.cost, float(cc), options
        self.use_helpers = bool(helpers)
        self.helpers = None
        self._seed = None  # CART's tree, grown in the background
        self._floor = None  # the equivalent-points bound, computed in the background
        self.floor = 0.0
        self.best = (float("inf"), None, "")  # (engine value, nested engine tree, which search found it)
        self.steps = 0
        self.lower_bound = to_objective(0.0) if problem.n_samples else 0.0
        self.upper_bound = float("inf")
        self._model = None
        self._refresh()

    @property
    def nodes(self):
        return self.engine.counters["subproblems"]

    def step(self, budget):
        work = max(1, int(budget)) * WORK_PER_UNIT
        engine = self.engine
        self.steps += 1
        if self.use_helpers and not engine.done and engine.counters["work"] >= HELPERS_AFTER:
            self._start_helpers()
        self._take_seed()
        # One step does about ``work`` rows whoever does them: a helper that returns early (it found a tree, or
        # finished) leaves the rest to the next one, so the driver, which sizes its steps by their time, is not
        # misled into steps of seconds.
        spent = 0
        while spent < work and not engine.done:
            before = self._work_done()
            h = self.helpers
            if h is not None and h.refiner is not None:
                h.refiner.follow(self.best[1])  # a new tree held: the refiner has work again
            if h is not None and h.bound_due(engine.counters["work"]):
                h.step_bound(work - spent)
            elif h is not None and h.active and h.work < h.share * engine.counters["work"]:
                found = h.step(work - spent, self.best[0], self.best[1])
                if found is not None:
                    self._offer(*found)
            else:
                engine.step(work - spent)
            self._refresh()
            spent += max(1, self._work_done() - before)
        return engine.done

    def _work_done(self):
        """Rows visited by every search of this run: the proving one, the helpers, the root-block bound."""
        h = self.helpers
        done = self.engine.counters["work"]
        if h is not None:
            done += h.work + (h.blocks.work if h.blocks is not None else 0)
        return done

    def _start_helpers(self):
        if self.helpers is not None:
            return
        e = self.engine
        depth = e.depth
        self.helpers = Helpers(e.inputs.rank, e.inputs.order, self.cost, depth, e.nodes_budget, self.cc, self.options)
        nodes = min(e.nodes_budget, 1 << 20)
        grown = None if depth > 64 else depth
        args = (e.inputs.rank, self.cost, self.groups, self.weights, grown, nodes, self.cc)
        args += (self.options.get("min_leaf", 1),)
        F, N = e.inputs.rank.shape
        if F * N <= anytime.HELPER_CELLS:
            # A small table: CART's fit takes well under a second here, but in a thread it gets the interpreter
            # only between the kernel's steps (eeg at depth 5: its tree arrived after more than 10 s).
            self.floor = max(self.floor, equivalent_points_bound(e.inputs.rank, self.cost))
            found = seed_tree(*args)
            if found is not None:
                self._offer(found[0], found[1], "CART")
        else:
            self._floor = Background(equivalent_points_bound, e.inputs.rank, self.cost)
            self._seed = Background(seed_tree, *args)

    def _take_seed(self):
        if self._floor is not None and self._floor.wait(0):
            self.floor = max(self.floor, self._floor.result())
            self._floor = None
        if self._seed is not None and self._seed.wait(0):
            found = self._seed.result()
            self._seed = None
            if found is not None:
                self._offer(found[0], found[1], "CART")

    def _offer(self, value, tree, source):
        """Keep ``tree`` (nested, over the full ranks) if it is better than the best held; tighten the search."""
        if value < self.best[0]:
            self.best = (float(value), tree, source)
            self.engine.tighten(value)

    def _refresh(self):
        engine = self.engine
        if self.helpers is not None:
            self.floor = max(self.floor, self.helpers.floor)
        if engine.upper_bound < self.best[0]:  # a finite value is a complete tree's
            self._offer(engine.upper_bound, engine.tree(), "proving search")
        if np.isfinite(self.best[0]):
            self.upper_bound = min(self.upper_bound, self.to_objective(self.best[0]))
        # The proving search's bound holds for min(its optimum, the bound it was told): the best tree held.
        # The equivalent-points and partition bounds hold for every tree.
        engine_lower = min(max(engine.lower_bound, self.floor), self.best[0])
        lower = self.to_objective(engine_lower) if np.isfinite(engine_lower) else self.lower_bound
        self.lower_bound = min(max(self.lower_bound, lower), self.upper_bound)
        if engine.done:
            self.lower_bound = self.upper_bound

    def progress(self):
        c = self.engine.counters
        return {"threshold_evaluations": c["threshold_evaluations"], "cache_hits": c["cache_hits"]}

    def stats(self):
        out = dict(self.engine.counters)
        out["steps"] = self.steps
        out["best_tree_from"] = self.best[2]
        if self.helpers is not None:
            out["helper_work"] = int(self.helpers.work)
            out["helpers"] = self.helpers.describe()
        out["ordered_families"] = int(len(self.columns.size))
        out["thresholds"] = int(self.columns.n_features)
        return out

    def state_bytes(self):
        return self.engine.state_bytes() + (self.helpers.state_bytes() if self.helpers is not None else 0)

    def searched_directly(self):
        """Return the raw columns whose thresholds the search walked in order (families of more than one cut)."""
        features = self.problem.features
        return sorted(
            {
                features[int(start)].get("column")
                for start, size in zip(self.columns.offset, self.columns.size)
                if size > 1
            }
        )

    def nested(self):
        """Return the best tree as nested tuples over binary features: ``(label,)`` or ``(feature, left, right)``.

        ``left`` is where the feature is false, as in ``solver.models.Tree``: the engine's split
        ``rank < u`` of family ``f`` is binary feature ``offset[f] + u - 1`` being true.
        """
        offset = self.columns.offset

        def convert(t):
            if len(t) == 1:
                return (int(t[0]),)
            f, u, below, above = t
            return (int(offset[f] + u - 1), convert(above), convert(below))

        return convert(self.best[1])

    def best_model(self):
        if self.best[1] is None:  # nothing searched yet (no rows): the engine's leaf
            self.best = (self.engine.best[0], self.engine.tree(), "proving search")
        if self._model is None or self._model[0] is not self.best[1]:
            self._model = (
                self.best[1],
                tree_from_nested(self.nested(), self.problem, self.labels, self.kind, self.groups, self.weights),
            )
        return self._model[1]


def tree_from_nested(nested, problem, labels, kind, groups, weights):
    """Return the ``Tree`` of a nested-tuple tree, its node counts by routing the rows (no binary matrix needed).

    Nodes are numbered parents first, a left subtree before the right one; a branching node predicts what
    its leftmost leaf predicts. ``counts[i, g]``: weight of the rows of group ``g`` reaching node ``i``.
    """
    feature, left, right, prediction, parent = [], [], [], [], []
    stack = [(nested, -1, None)]
    while stack:
        node, up, side = stack.pop()
        at = len(feature)
        if up >= 0:
            (left if side == 0 else right)[up] = at
        feature.append(int(node[0]) if len(node) == 3 else LEAF)
        left.append(LEAF)
        right.append(LEAF)
        prediction.append(0 if len(node) == 3 else int(node[0]))
        parent.append(up)
        if len(node) == 3:
            stack.append((node[2], at, 1))
            stack.append((node[1], at, 0))
    feature, left, right, prediction = (np.array(a, dtype=np.int64) for a in (feature, left, right, prediction))
    for i in range(len(feature) - 1, -1, -1):  # children come after their parent
        if feature[i] != LEAF:
            prediction[i] = prediction[left[i]]
    K = len(labels)
    tree = Tree(
        feature=feature,
        left=left,
        right=right,
        prediction=prediction,
        counts=np.zeros((len(feature), K)),
        features=problem.features,
        classes=labels,
        kind=kind,
    )
    reached = tree.apply(problem)
    counts = np.bincount(reached * K + groups, weights=weights, minlength=len(feature) * K).reshape(-1, K)
    for i in range(len(feature) - 1, 0, -1):
        counts[parent[i]] += counts[i]
    tree.counts = counts
    return tree
