"""OSDT behind the driver protocol of ``solver/driver.py``: begin (``OsdtSearch``), step, end (``best_model``)."""

from __future__ import annotations

import math
import time

import numpy as np

from solver.osdt import expand
from solver.osdt import state as st
from solver.osdt.data import prepare
from solver.osdt.trees import leaf_ids, leaf_set_model
from solver.osdt.warm import cart_warm_start
from solver.problem import Problem


def warmup():
    """Compile (or load from numba's cache) every kernel by solving a tiny problem."""
    from solver.osdt.params import ALGORITHM

    import sklearn.tree  # noqa: F401  (the warm start's import is no part of a search's time)

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(24, 3)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1]).astype(np.int64)
    problem = Problem(X=X, features=[{"kind": "binary", "column": f"x{j}"} for j in range(3)], y=y, classes=["0", "1"])
    for similar in (False, True):
        config = ALGORITHM.clean({"regularization": 0.01, "warm_start": False, "use_similar_support": similar})
        search = OsdtSearch(problem, config)
        while not search.step(1 << 20):
            pass


def make_search(problem, config):
    """Return the search object of ``problem`` under the cleaned ``config`` (see ``solver/driver.py``).

    Its set-up (bit-packed features, equivalent points, the CART warm start: half a minute on 5,000
    thresholds of 12,000 rows) runs in the background, so that a time limit or a cancel is kept meanwhile;
    until then the run holds the majority leaf and the floor λ (every tree has a leaf).
    """
    from solver.background import DeferredSearch
    from solver.cart.search import majority_leaf

    leaf = majority_leaf(problem)
    lam = config["regularization"]
    upper = (leaf.counts.sum() - leaf.counts.max()) / leaf.counts.sum() + lam
    return DeferredSearch(
        lambda: OsdtSearch(problem, config),
        leaf,
        upper,
        lower_bound=lam,
        initial_budget=OsdtSearch.initial_budget,
        progress_keys=("queue_size", "tree_cache_size", "leaf_cache_size"),
    )


class OsdtSearch:
    """The branch and bound over leaf sets, resumable step by step.

    Attributes
    ----------
    lower_bound, upper_bound : float
        Proved bound on the optimal objective, and the incumbent's objective.
    nodes : int
        Queue entries made: every allowed split set of every child tree
        built, whether or not a bound then drops it. With
        ``prune_when_queued`` off this is exactly the paper's "#trees
        evaluated" (Table 2); with it on, children that could not lead
        anywhere are not built and their entries are not counted.
    """

    finished_status = "optimal"
    initial_budget = 4096

    def __init__(self, problem, config):
        self.problem = problem
        self.config = config
        lam = config["regularization"]
        self.prepared = prepare(problem, config["feature_order"], with_omega=config["use_similar_support"])
        self.warm = cart_warm_start(problem, lam, config.get("max_depth")) if config["warm_start"] else None
        incumbent = self.warm[0] if self.warm is not None else math.inf
        self.state = st.initial_state(self.prepared, config, incumbent)
        self.upper_bound = float(self.state.reals[st.R_INCUMBENT])
        self.lower_bound = self._lower_bound()
        self._started = None
        self._improved = 0
        self.seconds_to_optimum = 0.0

    @property
    def nodes(self):
        return int(self.state.ints[st.I_NODES])

    def step(self, budget):
        """Do at most ``budget`` units of work (pops, child trees, split sets); return True when proved."""
        if self._started is None:
            self._started = time.perf_counter()
        s = self.state
        s.ints[st.I_BUDGET] = budget
        while True:
            status = expand.step(self.prepared.data, s.leaves, s.trees, s.queue, s.expansion, s.cfg, s.ints, s.reals)
            if status in (st.GROW_LEAVES, st.GROW_TREES, st.GROW_QUEUE, st.GROW_EXPANSION):
                s = self.state = st.grow(s, status)
                continue
            if status == st.TOO_WIDE:
                raise MemoryError(f"a partial tree splits more than {st.MAX_SPLITS} leaves at once")
            break
        self.upper_bound = float(s.reals[st.R_INCUMBENT])
        if s.ints[st.I_IMPROVED] != self._improved:
            self._improved = int(s.ints[st.I_IMPROVED])
            self.seconds_to_optimum = time.perf_counter() - self._started
        done = status == st.DONE
        self.lower_bound = self.upper_bound if done else self._lower_bound()
        return done

    def _lower_bound(self):
        s = self.state
        return float(expand.lower_bound(s.queue, s.ints, s.reals))

    def progress(self):
        ints = self.state.ints
        return {
            "queue_size": int(ints[st.I_HEAP]),
            "tree_cache_size": int(ints[st.I_TREES]),
            "leaf_cache_size": int(ints[st.I_LEAVES]),
        }

    def state_bytes(self):
        return st.state_bytes(self.state) + sum(a.nbytes for a in self.prepared.data)

    def best_model(self):
        best = int(self.state.ints[st.I_BEST])
        if best < 0:
            return self.warm[1]
        ids = leaf_ids(self.state.trees, best)
        return leaf_set_model(self.state.leaves, ids, self.prepared.order, self.problem.features, self.problem.classes)

    def stats(self):
        ints = self.state.ints
        best = int(ints[st.I_BEST])
        return {
            "pops": int(ints[st.I_POPS]),
            "trees_evaluated": int(ints[st.I_BUILT]),
            "queue_pushes": int(ints[st.I_QUEUED]),
            "tree_cache_hits": int(ints[st.I_TREE_HITS]),
            "leaf_cache_hits": int(ints[st.I_LEAF_HITS]),
            "leaves_cached": int(ints[st.I_LEAVES]),
            "trees_cached": int(ints[st.I_TREES]),
            "nodes_to_optimum": int(ints[st.I_NODES_AT_BEST]) if best > 0 else 0,
            "seconds_to_optimum": self.seconds_to_optimum,
            "best_from": "warm_start" if best < 0 else ("root" if best == 0 else "search"),
            "warm_start_objective": None if self.warm is None else float(self.warm[0]),
            "distinct_points": int(self.prepared.n_points),
            "prunes": {name: int(ints[st.P_HIERARCHICAL + i]) for i, name in enumerate(st.PRUNES)},
        }
