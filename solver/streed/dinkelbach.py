"""STreeD's F1 objective on ordered features: Dinkelbach's iterations over the ordered search.

F1 is a ratio: with ``P`` positive rows, a tree's ``1 − F1 = N(T) / D(T)`` where ``N = FN + FP`` and
``D = 2P + FP − FN`` (> 0). Dinkelbach (1967): for a ratio ``q``, the tree minimising
``N(T) − q·D(T) = (1 + q)·FN + (1 − q)·FP − 2qP`` is a cost-sensitive problem — a scalar sum over rows that
the ordered search (``solver.ordered``) solves over every threshold of the raw data. Starting from the
best single leaf, ``q`` becomes the ratio of each iteration's optimal tree; when an iteration finds no
tree below ``q`` (its minimum is 0), ``q`` is the optimum. The ratios fall strictly, so the iterations end.

Anytime: the upper bound is the best tree's ``1 − F1`` so far (any tree an iteration meets); the lower
bound comes from the running iteration's proved lower bound ``F`` on ``min N − qD``: every tree has
``N/D ≥ q + F/D ≥ q + F/P`` (``F ≤ 0`` and ``D ≥ P``).
"""

from __future__ import annotations

import numpy as np

from solver.ordered.search import OrderedSearch

TOLERANCE = 1e-9  # relative: an iteration whose minimum is above −TOLERANCE·P proves the ratio optimal


def serves(problem, task, config, depth):
    """Return True when the F1 task runs as Dinkelbach iterations of the ordered search here.

    Asked for (``threshold_search=ordered``), or on ``auto`` where the 0/1 search would take more features
    than its budget (``solver.streed.budget``); elsewhere the 0/1 search runs and gives the whole (FN, FP) front.
    """
    from solver.streed import budget

    choice = config.get("threshold_search", "auto")
    if task.name != "f1" or choice == "binary":
        return False
    return choice == "ordered" or budget.needs_budget(problem, depth, task.A.shape[1])


class DinkelbachF1Search:
    """The driver protocol (see ``solver/driver.py``) over a sequence of ordered cost-sensitive searches."""

    initial_budget = 16
    finished_status = "optimal"

    def __init__(self, problem, config, task):
        self.problem, self.config, self.task = problem, config, task
        depth = int(config["max_depth"])
        nodes = config.get("max_nodes")
        nodes = 2**depth - 1 if nodes is None else min(int(nodes), 2**depth - 1)
        self.depth, self.max_nodes = min(depth, nodes), nodes
        self.y = np.asarray(problem.y, dtype=np.int64)
        self.P = float((self.y == 1).sum())
        negatives = float(len(self.y)) - self.P
        # The best single leaf: predicting the positive class everywhere (FN 0, FP = negatives); F1 > 0.
        self.best = (0.0, negatives)
        self.best_nested = (1,)
        self.upper_bound = self.ratio(*self.best)
        self.lower_bound = 0.0
        self.iterations = []  # (q, minimum of N − qD) of each finished iteration
        self.steps = 0
        self._subproblems = 0
        self._start(self.upper_bound)

    def ratio(self, fn, fp):
        """Return ``1 − F1`` of a tree with ``fn`` false negatives and ``fp`` false positives."""
        return self.task.objective(np.array([fn, fp]))

    def _start(self, q):
        cost = np.zeros((len(self.y), 2))
        cost[self.y == 1, 0] = 1.0 + q  # a positive row in a leaf predicting 0: a false negative
        cost[self.y == 0, 1] = 1.0 - q  # a negative row in a leaf predicting 1: a false positive
        self.q = q
        self.inner = OrderedSearch(
            self.problem,
            cost,
            self.depth,
            self.max_nodes,
            0.0,
            float,
            self.task.labels,
            "classification",
            self.y,
            np.ones(len(self.y)),
            min_leaf=int(self.config.get("min_samples_leaf", 1)),
            use_upper_bound=bool(self.config.get("use_upper_bound", True)),
            use_interval=bool(
                self.config.get("use_lower_bound", True) and self.config.get("use_similarity_lower_bound", True)
            ),
            use_cache=bool(self.config.get("use_dataset_caching", True)),
            use_depth_two=bool(self.config.get("use_depth_two_solver", True)),
        )
        self._seen = None

    @property
    def nodes(self):
        return self._subproblems + self.inner.nodes

    def step(self, budget):
        """Advance the running iteration; start the next one when it ends; return True once ``q`` is proved."""
        done = self.inner.step(budget)
        self.steps += 1
        self._take_incumbent()
        minimum_bound = self.inner.lower_bound - 2.0 * self.q * self.P  # ≤ min N − qD
        self.lower_bound = max(self.lower_bound, min(self.upper_bound, self.q + min(0.0, minimum_bound) / self.P))
        if not done:
            return False
        minimum = self.inner.upper_bound - 2.0 * self.q * self.P
        self.iterations.append((self.q, minimum))
        self._subproblems += self.inner.nodes
        if minimum >= -TOLERANCE * self.P or self.upper_bound >= self.q:
            self.lower_bound = self.upper_bound
            return True
        self._start(self.upper_bound)
        return False

    def _take_incumbent(self):
        engine = self.inner.engine
        if not np.isfinite(engine.upper_bound) or self._seen == engine.best:
            return
        self._seen = engine.best
        nested = self.inner.nested()
        fn, fp = self._errors(self.inner.best_model())
        if self.ratio(fn, fp) < self.upper_bound:
            self.best, self.best_nested, self.upper_bound = (fn, fp), nested, self.ratio(fn, fp)

    @staticmethod
    def _errors(tree):
        leaf = tree.feature < 0
        predicted = tree.prediction[leaf]
        counts = tree.counts[leaf]
        return float(counts[predicted == 0, 1].sum()), float(counts[predicted == 1, 0].sum())

    def progress(self):
        return {**self.inner.progress(), "iterations": len(self.iterations) + 1}

    def stats(self):
        out = self.inner.stats()
        out["dinkelbach_iterations"] = len(self.iterations) + (0 if self.lower_bound >= self.upper_bound else 1)
        out["steps"] = self.steps
        return out

    def state_bytes(self):
        return self.inner.state_bytes()

    def searched_directly(self):
        return self.inner.searched_directly()

    def best_model(self):
        from solver.ordered.search import tree_from_nested

        return tree_from_nested(
            self.best_nested, self.problem, self.task.labels, "classification", self.y, np.ones(len(self.y))
        )

    def extras(self):
        fn, fp = self.best
        return {
            "task": self.task.name,
            "value": self.task.describe(np.array([fn, fp])),
            "depth": self.depth,
            "max_nodes": self.max_nodes,
            "search": "ordered",
            "dinkelbach": [{"ratio": float(q), "minimum": float(m)} for q, m in self.iterations],
        }
