"""The Rashomon set's entry for ``solver/driver.py``: GOSDT's optimum, then the set's graph (spec §1.3, §2).

Phase A runs GOSDT (``solver.gosdt.search``) to its proved optimum. Phase B builds the graph of every
tree within θ in stages: first the trees at the optimum's key, then half-way to θ, then θ. Each stage
finishes a complete Rashomon set for its own bound, so a time limit returns the last completed one
(``extras.proved_bound``) and says which objectives are still open.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from solver.api import ProblemError
from solver.models import LEAF
from solver.rashomon import report
from solver.rashomon.graph import Builder, KernelBuilder, Overflow, UNLIMITED
from solver.rashomon.objective import exact, make_rows, round_half_up
from solver.rashomon.params import SOUND_BOUNDS
from solver.rashomon.sets import TreeSet


# How long a snapshot of the set taken during the search (``solve``'s ``on_incumbent``) may spend on its report.
SNAPSHOT_SECONDS = 0.5


def make_search(problem, config):
    """Return the search; its set-up (exact row costs, every feature's rows as bits, GOSDT's) runs in the
    background, so that a time limit or a cancel holds meanwhile (seconds on thousands of thresholds)."""
    from solver.background import DeferredSearch
    from solver.gosdt.dpb.search import leaf_start

    check_classes(problem, config)
    leaf, upper = leaf_start(problem, gosdt_config(config))
    return DeferredSearch(
        lambda: RashomonSearch(problem, config), leaf, upper, initial_budget=RashomonSearch.initial_budget
    )


def check_classes(problem, config):
    """Raise ``ProblemError`` for more than two classes with an objective that has no multi-class form."""
    if problem.n_classes > 2 and config["objective"] != "accuracy":
        name = config["objective"].replace("_", " ")
        raise ProblemError(
            f"Rashomon sets with {name} handle two classes; the label has {problem.n_classes}. "
            "Use accuracy, which has a multi-class form."
        )


def warmup():
    from solver.gosdt.search import warmup as warm_gosdt

    warm_gosdt()
    warmup_set()


def warmup_set():
    """Compile (or load from the kernel cache) the set's graph kernels on a tiny problem, arrays grown on the way."""
    from solver.problem import Problem
    from solver.rashomon.params import ALGORITHM

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 4)).astype(np.uint8)
    problem = Problem(
        X=X,
        features=[{"kind": "binary", "column": f"x{j}"} for j in range(4)],
        y=rng.integers(0, 2, 40),
        classes=["0", "1"],
    )
    for permutation in (True, False):
        config = ALGORITHM.clean({"regularization": 0.01, "max_depth": 3, "use_leaf_permutation_bound": permutation})
        rows = make_rows(problem, config)
        builder = KernelBuilder(rows, 3, permutation=permutation)
        builder.request((rows.all, 3, ()), rows.keys.key(20, 4))
        while not builder.step(1):
            pass
        len(builder.graph.cells)
    builder.kernels.grown(builder.st, np.array([builder.kernels.GROW_ENTRIES, 0]))  # the rehash of a table that grows


def gosdt_config(config, keys=None):
    """Return GOSDT's parameters for the optimum of the same objective, λ and depth (its unsound switches too).

    With integer γ (``keys.integer``) GOSDT's λ is γ/D, the λ that integer γ stands for.
    """
    from solver.gosdt.params import ALGORITHM

    keep = ("objective", "regularization", "max_depth", "cost_weight") + SOUND_BOUNDS
    params = {k: config[k] for k in keep}
    if keys is not None and keys.integer:
        params["regularization"] = keys.lam / keys.scale
    return ALGORITHM.clean(params)


def tree_key(rows, tree):
    """Return (mistakes, leaves) of a ``Tree`` under the exact costs of ``rows``."""
    mistakes, leaves = 0, 0
    stack = [(0, rows.all)]
    while stack:
        i, support = stack.pop()
        if tree.feature[i] == LEAF:
            mistakes += rows.leaf(support)[0]
            leaves += 1
            continue
        ones = support & rows.cols[tree.feature[i]]
        stack += [(tree.left[i], support ^ ones), (tree.right[i], ones)]
    return mistakes, leaves


class RashomonSearch:
    """The driver protocol over GOSDT then the Rashomon ``Builder``."""

    initial_budget = 256
    finished_status = "optimal"

    def __init__(self, problem, config):
        check_classes(problem, config)
        from solver.gosdt.search import make_search as gosdt_search

        self.problem, self.config = problem, config
        self.rows = make_rows(problem, config)
        self.gosdt = gosdt_search(problem, gosdt_config(config, self.rows.keys))
        try:
            self.builder = self._builder(KernelBuilder)
        except Overflow:
            self.builder = self._builder(Builder)
        depth = UNLIMITED if config["max_depth"] is None else int(config["max_depth"])
        self.root_key = (self.rows.all, depth, ())
        self.phase = "optimum"
        self.stages = []
        self.proved = None  # (root vertex, key bound) of the last completed stage
        self.proved_graph = None  # the graph that ``proved``'s root is a vertex of
        self.optimum = self.theta = None  # exact keys
        self.lower_bound, self.upper_bound = -np.inf, np.inf
        self._set = self._summary = None
        self._counts = VertexCounts(problem)
        # Set by ``solve`` when the search has stopped: the ``time.perf_counter()`` by which the report must be
        # done (None: no limit). Until then a report is a snapshot and gets ``SNAPSHOT_SECONDS``.
        self.post_deadline = None
        self.stopped = False

    def _builder(self, kind):
        """Return the set's graph builder: ``KernelBuilder`` (compiled), or ``Builder`` (Python integers) when keys or
        counts do not fit in int64."""
        config = self.config
        return kind(
            self.rows,
            config["max_depth"],
            lookahead=config["use_lookahead_bound"],
            equivalent=config["use_equivalent_points_bound"],
            hierarchical=config["use_hierarchical_bound"],
            permutation=config["use_leaf_permutation_bound"],
            trivial=config["ignore_trivial_extensions"],
            any_label=config["leaf_labels"] == "any",
        )

    @property
    def nodes(self):
        return self.gosdt.nodes + len(self.builder.graph)

    def step(self, budget):
        if self.phase == "optimum":
            done = self.gosdt.step(budget)
            self.lower_bound, self.upper_bound = self.gosdt.lower_bound, self.gosdt.upper_bound
            if done:
                self.phase = "set"
                m, h = tree_key(self.rows, self.gosdt.best_model())
                self.stages = [self.rows.keys.key(m, h)]
                self.builder.request(self.root_key, self.stages[0])
            return False
        try:
            if not self.builder.step(budget):
                return False
        except Overflow:
            # A count past int64: this stage is built again with Python integers (from scratch); the stages proved
            # so far stay readable in the kernels' graph (``proved_graph``).
            self.builder = self._builder(Builder)
            self.builder.request(self.root_key, self.stages[0])
            return False
        key = self.stages.pop(0)
        if self.proved_graph is not self.builder.graph:
            self._counts = VertexCounts(self.problem)  # its counts are per vertex of one graph
        self.proved_graph = self.builder.graph
        self.proved = (self.builder.result, key)
        self._set = self._summary = None
        if self.optimum is None:
            self.optimum = self.builder.graph.first_cell(self.builder.result)[0]
            self.theta = self._theta()
            self.lower_bound = self.upper_bound = float(self.rows.keys.objective(*self._best_cell()))
            middle = (self.optimum + self.theta) // 2
            self.stages = sorted({k for k in (middle, self.theta) if k > key})
            self.proved = (self.builder.result, min(key, self.theta))  # θ below the optimum: an empty set
        if not self.stages:
            return True
        self.builder.request(self.root_key, self.stages[0])
        return False

    def _best_cell(self):
        _, m, h, _ = self.builder.graph.first_cell(self.builder.result)
        return m, h

    def _theta(self):
        """Return θ as a key: an absolute bound, the optimum + δ, or (1 + ε) × the optimum (spec §1.3).

        With integer γ the key is arborenum's integer objective and θ is rounded to the nearest key as it
        rounds it: ``llround(optimum · (1.0 + ε))`` and ``llround(optimum + δ·D)`` in doubles.
        """
        keys, c = self.rows.keys, self.config
        if keys.integer:
            if c["objective_bound"] is not None:
                return keys.from_objective(exact(c["objective_bound"]))
            if c["additive_epsilon"] is not None:
                return round_half_up(float(self.optimum) + float(c["additive_epsilon"]) * keys.scale)
            return round_half_up(float(self.optimum) * (1.0 + float(c["epsilon"])))
        best = Fraction(self.optimum, keys.scale * keys.q)
        if c["objective_bound"] is not None:
            return keys.from_objective(exact(c["objective_bound"]))
        if c["additive_epsilon"] is not None:
            return keys.from_objective(best + exact(c["additive_epsilon"]))
        return keys.from_objective(best * (1 + exact(c["epsilon"])))

    def tree_set(self):
        """Return the ``TreeSet`` of the last completed stage (the whole set once the search is done)."""
        g = self.proved_graph
        if self.proved is not None and (self._set is None or len(self._set.counts) != len(g)):
            root, bound = self.proved
            self._set = TreeSet(
                self.rows.keys,
                g.leaf_m,
                g.label,
                g.budget,
                g.options,
                self._counts.of(g),
                root,
                bound,
                self.builder.trivial,
                cells=g.cells,
                alt=g.alt,
            )
        return self._set

    def state_bytes(self):
        """Bytes held by GOSDT's and the set's graph arrays (checked against the memory limit)."""
        return sum(int(getattr(part, "state_bytes", lambda: 0)()) for part in (self.gosdt, self.builder))

    def progress(self):
        return {"graph_size": len(self.builder.graph), "phase": 0 if self.phase == "optimum" else 1}

    def best_model(self):
        s = self.tree_set()
        if s is None or s.count() == 0:
            return self.gosdt.best_model()  # no set proved yet, or θ below the optimum
        return report.to_tree(s, s.tree_at(0), self.problem)

    def stats(self):
        return {
            "gosdt": self.gosdt.stats(),
            "subproblems": len(self.builder.graph),
            "expansions": self.builder.expansions,
        }

    def extras(self):
        """Return ``Result.extras``; parts that do not fit before the deadline are left out and named (``skipped``)."""
        if self._summary is not None:
            # The set's part is final for this stage; GOSDT's incumbent (the centre) may have improved since.
            return {**self._summary, "gosdt_optimum": self.gosdt_optimum()}
        deadline = self.post_deadline if self.stopped else time.perf_counter() + SNAPSHOT_SECONDS
        summary = report.summarize(
            self.tree_set(),
            self.problem,
            self.rows,
            self.config,
            self.optimum,
            self.theta,
            deadline=deadline,
            gosdt_proved=self.phase != "optimum",
        )
        summary["gosdt_optimum"] = self.gosdt_optimum()
        if not summary.get("skipped"):
            self._summary = summary  # complete: the same until another stage is proved
        return summary

    def gosdt_optimum(self):
        """Return the tree GOSDT found first with its objective, and whether it is proved optimal (the set's centre)."""
        model = self.gosdt.best_model()
        if model is None or not np.isfinite(self.gosdt.upper_bound):
            return None
        return {
            "objective": float(self.gosdt.upper_bound),
            "lower_bound": float(self.gosdt.lower_bound),
            "proved": self.phase != "optimum",
            "tree": model.to_dict(),
        }

    def live(self):
        """Return the in-process objects of the run (``Result.live``): the set, whatever the size of its graph."""
        return {"set": self.tree_set()}

    def stop(self, deadline):
        """Called by ``solve`` once the search is over: the report must be done by ``deadline`` (None: no limit)."""
        self.stopped, self.post_deadline = True, deadline


class VertexCounts:
    """The training (weighted) class counts of every vertex's rows, computed once per vertex.

    Rows are grouped by (class, weight); a vertex's count is the sum over groups of the weight times
    the number of its rows in the group (a popcount of two Python-int bitsets).
    """

    def __init__(self, problem):
        from solver.rashomon.objective import bits_of

        y = np.asarray(problem.y)
        weights = np.asarray(problem.weights, dtype=np.float64)
        self.k = max(problem.n_classes, int(y.max()) + 1 if len(y) else 2)
        self.groups = []
        for c in range(self.k):
            for w in np.unique(weights[y == c]):
                self.groups.append((c, float(w), bits_of((y == c) & (weights == w))))
        self.y, self.weights = y, weights
        self.out = []

    def of(self, graph):
        if len(self.groups) > 64:  # many distinct weights: one numpy pass per vertex instead
            n = len(self.y)
            for support in graph.support[len(self.out) :]:
                bits = np.frombuffer(support.to_bytes((n + 7) // 8 or 1, "little"), dtype=np.uint8)
                member = np.unpackbits(bits, bitorder="little")[:n].astype(bool)
                self.out.append(tuple(float(self.weights[member & (self.y == c)].sum()) for c in range(self.k)))
            return self.out
        for support in graph.support[len(self.out) :]:
            w = [0.0] * self.k
            for c, weight, rows in self.groups:
                w[c] += weight * (support & rows).bit_count()
            self.out.append(tuple(w))
        return self.out
