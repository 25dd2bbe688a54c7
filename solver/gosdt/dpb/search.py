"""GOSDT's dynamic programming with bounds for the additive objectives (spec §3.2), for ``solver/driver.py``.

Accuracy (any number of classes), balanced accuracy and weighted accuracy are
sums over rows of a per-class weight times "misclassified" (spec §1.4), so a
subtree's optimum depends only on the rows that reach it: subproblems are the
support sets of the equivalent points (§4.1), solved once and shared by every
parent in the dependency graph (``solver.gosdt.dpb.graph``).

Anytime: the root's bounds are valid at every step; the incumbent is the tree
behind the root's upper bound (``solver.best_tree.extract``), and ``optimal`` is
reported only when the root's bounds meet.
"""

from __future__ import annotations

import math

import numpy as np

from solver import best_tree, bitset
from solver.api import ProblemError
from solver.data.points import equivalent_points
from solver.gosdt.dpb import graph as gr
from solver.gosdt.dpb import kernels as kn
from solver.models import LEAF, Tree

EPS = 1e-12
SWITCHES = {
    "use_hierarchical_bound": "hierarchical",
    "use_lookahead_bound": "lookahead",
    "use_incremental_progress_bound": "incremental",
    "use_progress_lower_bound": "progress",
    "use_equivalent_points_bound": "equivalent",
    "use_leaf_permutation_bound": "permutation",
    "use_leaf_count_bound": "leaf_count",
    "use_similar_support_bound": "similar",
}


def make_search(problem, config):
    """Return the search over ``problem``; its set-up (equivalent points, bit-packed features) runs in the
    background, keeping time limits and cancels meanwhile (seconds on thousands of thresholds).

    The data's faults are found first (``ProblemError``); until the set-up is done the run holds the
    leaf that minimises the loss, and the floor 0.
    """
    from solver.background import DeferredSearch

    leaf, upper = leaf_start(problem, config)
    return DeferredSearch(
        lambda: DPBSearch(problem, config),
        leaf,
        upper,
        initial_budget=DPBSearch.initial_budget,
        progress_keys=("graph_size", "queue_size", "expansions"),
    )


def leaf_start(problem, config):
    """Return ``(leaf, objective)``: the one-leaf tree that minimises the loss, and its objective with λ.

    Raises ``ProblemError`` on the data's faults (weights, classes), before any search is set up.
    """
    from solver.cart.search import majority_leaf

    weights = check_weights(problem)
    mass = np.bincount(problem.y, weights=weights, minlength=max(problem.n_classes, int(problem.y.max()) + 1))
    check_classes(config, mass)
    loss = mass * class_scale(config["objective"], mass, float(config["cost_weight"]))
    leaf = majority_leaf(problem)
    leaf.prediction[:] = np.argmax(loss)
    return leaf, loss.sum() - loss.max() + float(config["regularization"])


def check_weights(problem):
    """Return the row weights, or raise ``ProblemError`` when they cannot weigh a loss."""
    weights = problem.weights
    if np.any(weights < 0) or not np.isfinite(weights).all() or weights.sum() <= 0:
        raise ProblemError("Row weights must be finite, non-negative and not all zero.")
    return weights


def check_classes(config, totals):
    if config["objective"] != "accuracy" and np.any(totals <= 0):
        raise ProblemError("Balanced and weighted accuracy need rows of both classes with positive weight.")


def warmup():
    """Compile (or load from numba's cache) every kernel on a tiny problem, with every switch on and off."""
    from solver import metrics
    from solver.gosdt.params import ALGORITHM
    from solver.problem import Problem

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(70, 3)).astype(np.uint8)
    y = rng.integers(0, 2, 70)
    problem = Problem(X=X, features=[{"kind": "binary", "column": f"x{j}"} for j in range(3)], y=y, classes=["0", "1"])
    for on in (True, False):
        config = ALGORITHM.clean(
            {"regularization": 0.01, "max_depth": 2 if on else None, **{name: on for name in SWITCHES}}
        )
        search = DPBSearch(problem, config, capacity=16)
        while not search.step(2):
            pass
        metrics.evaluate(search.best_model(), problem)


def class_scale(objective, mass, cost_weight):
    """Return the weight of one unit of each class's mass in the loss (spec §1.4, formula sheet).

    Parameters
    ----------
    objective : str
    mass : array of float64, shape (K,)
        Total (sample-weighted) mass of each class.
    cost_weight : float
        ω, the cost of a false negative (class 1) for weighted accuracy.
    """
    if objective == "accuracy":
        return np.full(len(mass), 1.0 / mass.sum())
    if len(mass) != 2:
        raise ProblemError(f"GOSDT with {objective.replace('_', ' ')} handles two classes; the label has {len(mass)}.")
    negatives, positives = mass
    if objective == "balanced_accuracy":
        return np.array([1.0 / (2 * negatives), 1.0 / (2 * positives)])
    denominator = cost_weight * positives + negatives
    return np.array([1.0 / denominator, cost_weight / denominator])


def prepare(problem, config):
    """Return (``Data``, points, per-class scale) for ``problem``: equivalent points and their prefix sums."""
    weights = check_weights(problem)
    k = max(problem.n_classes, int(problem.y.max()) + 1)
    points = equivalent_points(problem.X, problem.y, k, weights)
    totals = points.class_weight.sum(axis=0)
    check_classes(config, totals)
    scale = class_scale(config["objective"], totals, float(config["cost_weight"]))
    mass = points.class_weight * scale
    rows = np.vstack([mass.T, mass.sum(axis=1) - mass.max(axis=1), mass.max(axis=1) - mass.min(axis=1)])
    prefix = np.zeros((rows.shape[0], rows.shape[1] + 1))
    np.cumsum(rows, axis=1, out=prefix[:, 1:])
    cols = (
        bitset.pack_columns(points.X)
        if points.X.shape[1]
        else np.zeros((0, bitset.n_words(points.n_points)), dtype=np.uint64)
    )
    return kn.Data(cols=cols, prefix=prefix), points, scale


def make_config(config):
    depth = config["max_depth"]
    flags = {field: bool(config[name]) for name, field in SWITCHES.items()}
    return kn.Config(lam=float(config["regularization"]), eps=EPS, limited=depth is not None, **flags)


class DPBSearch:
    """The driver protocol (see ``solver/driver.py``) over the DPB kernels."""

    initial_budget = 64
    finished_status = "optimal"

    def __init__(self, problem, config, capacity=None):
        self.problem, self.config = problem, config
        self.data, self.points, self.scale = prepare(problem, config)
        self.cfg = make_config(config)
        u, m = self.points.n_points, self.data.cols.shape[0]
        words = bitset.n_words(u)
        capacity = capacity or max(1024, 8 * m)
        self.graph = gr.make_graph(words, capacity, capacity, 2 * capacity)
        self.lbs = np.zeros(max(1, m))
        self.left = np.zeros(words, dtype=np.uint64)
        self.right = np.zeros(words, dtype=np.uint64)
        self.scratch = np.zeros(words, dtype=np.uint64)
        self.sums = np.zeros(self.data.prefix.shape[0])
        self.scratch_sums = np.zeros(self.data.prefix.shape[0])
        depth = kn.UNLIMITED if config["max_depth"] is None else int(config["max_depth"])
        self.root = kn.find_or_create(
            self.data, self.cfg, self.graph, bitset.full(u), u, depth, np.uint64(0), -1, self.sums
        )
        if not kn.solved(self.graph, self.root):
            gr.push_low(self.graph, self.root)
        self.expansions = self.updates = self.growths = 0
        self._incumbent = self._model = None
        self.upper_bound = math.inf
        self.lower_bound = -math.inf
        self._refresh()

    @property
    def nodes(self):
        return int(self.graph.count[0])

    def step(self, budget):
        """Expand at most ``budget`` subproblems; return True when the root is solved."""
        left = max(1, int(budget))
        while True:
            status, expanded, updates = kn.run(
                self.data,
                self.cfg,
                self.graph,
                self.root,
                left,
                self.lbs,
                self.left,
                self.right,
                self.sums,
                self.scratch,
                self.scratch_sums,
            )
            self.expansions += expanded
            self.updates += updates
            left -= expanded
            if status != kn.NEEDS_MEMORY:
                break
            m = self.data.cols.shape[0]
            c = self.graph.count
            self.graph = gr.grown(self.graph, 2 * (c[0] + 2 * m), 2 * (c[1] + m), 2 * (c[2] + 2 * m))
            self.growths += 1
        if status == kn.OUT_OF_BUDGET and expanded == 0 and self.graph.tops[1] == 0:
            raise RuntimeError("GOSDT's queue ran dry before the root was solved")
        self._refresh()
        return status == kn.DONE

    def _refresh(self):
        # Each vertex follows the split recorded when its ub last fell (Algorithm 6, corrected: the leaf
        # is the default, and a split is taken only when it is strictly better).
        g = self.graph
        cap = 2 * self.data.prefix.shape[1] + 1  # every leaf holds at least one of the U points
        tree = best_tree.extract(self.root, g.best, g.split_feature, g.split_left, g.split_right, g.leaf, cap)
        ids, features, lefts, rights, objective = tree
        if objective < self.upper_bound or self._incumbent is None:
            self._incumbent = (ids, features, lefts, rights)
            self.upper_bound = float(objective)
        if g.lb[self.root] >= g.ub[self.root]:
            self.lower_bound = self.upper_bound  # solved: the same optimum, summed in the incumbent's order
        else:
            self.lower_bound = max(self.lower_bound, min(float(g.lb[self.root]), self.upper_bound))

    def progress(self):
        g = self.graph
        return {"graph_size": self.nodes, "queue_size": int(g.tops[0] + g.tops[1]), "expansions": self.expansions}

    def best_model(self):
        if self._model is None or self._model[0] is not self._incumbent:
            self._model = (
                self._incumbent,
                build_tree(self._incumbent, self.graph, self.points, self.scale, self.problem),
            )
        return self._model[1]

    def stats(self):
        g = self.graph
        return {
            "expansions": self.expansions,
            "bound_updates": self.updates,
            "subproblems": self.nodes,
            "splits": int(g.count[1]),
            "parent_edges": int(g.count[2]),
            "graph_growths": self.growths,
            "equivalent_points": int(self.points.n_points),
            "root_leaf_objective": float(g.leaf[self.root]),
            "root_lower_bound": float(g.lb[self.root]),
            "root_upper_bound": float(g.ub[self.root]),
        }

    def state_bytes(self):
        return self.graph.nbytes()


def build_tree(incumbent, graph, points, scale, problem):
    """Return the ``Tree`` of extracted vertices: raw (weighted) class counts, the loss-minimising label."""
    ids, features, lefts, rights = incumbent
    counts = np.zeros((len(ids), points.class_weight.shape[1]))
    for i, v in enumerate(ids):
        members = bitset.unpack(graph.keys[v], points.n_points)
        counts[i] = points.class_weight[members].sum(axis=0)
    prediction = np.argmax(counts * scale, axis=1)  # ties go to the lower class index (spec §1.4)
    feature = np.where(features == gr.NO_SPLIT, LEAF, features)
    return Tree(
        feature=feature,
        left=np.where(feature == LEAF, LEAF, lefts),
        right=np.where(feature == LEAF, LEAF, rights),
        prediction=prediction,
        counts=counts,
        features=problem.features,
        classes=problem.classes,
    )
