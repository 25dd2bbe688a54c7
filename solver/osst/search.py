"""OSST search object for ``solver/driver.py``: the budgeted DFS of ``solver.osst.dfs`` run in chunks.

Between chunks the stack's progress is folded into the memo
(``dfs.tighten``), which gives anytime bounds: the root's lower bound, and
the best complete tree so far as the incumbent.
"""

from __future__ import annotations

import math

import numpy as np

from solver import best_tree, bitset, survival
from solver.api import ProblemError
from solver.osst import cache, dfs
from solver.osst.model import build_tree
from solver.osst.objective import evaluate, prepare
from solver.survival_metrics import brier_scores, group_estimates, leaf_estimates


GREEDY_KEY_BYTES = 1 << 25
BRIER_POINTS = 1500


def make_search(problem, config):
    return OSSTSearch(problem, config)


def warmup():
    """Compile (or load from numba's cache) every kernel on a tiny problem."""
    from solver import metrics
    from solver.osst.params import ALGORITHM
    from solver.problem import Problem

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(12, 3)).astype(np.uint8)
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(3)]
    problem = Problem(X=X, features=features, time=np.arange(1.0, 13.0), event=rng.integers(0, 2, 12) == 1)
    for guess in (False, True):
        config = ALGORITHM.clean(
            {"max_depth": 2, "min_samples_leaf": 1, "regularization": 0.001, "use_reference_bound": guess}
        )
        search = OSSTSearch(problem, config, memo_capacity=16)
        while not search.step(4):
            pass
        metrics.evaluate(search.best_model(), problem)


class OSSTSearch:
    """The driver protocol (see ``solver/driver.py``) over the resumable DFS."""

    initial_budget = 64

    def __init__(self, problem, config, memo_capacity=None):
        self.problem = problem
        self.config = config
        if problem.sample_weight is not None:
            raise ProblemError("OSST does not use row weights; clear the weight column.")
        try:
            self.data, self.params, self.loss = prepare(problem, config)
        except ValueError as e:  # times the loss cannot use (spec D5)
            raise ProblemError(f"OSST cannot use these survival times: {e}.") from None
        n, m = problem.n_samples, problem.n_features
        depth = m if config["max_depth"] is None else min(int(config["max_depth"]), m)
        words = bitset.n_words(n)
        if memo_capacity is None:  # room for the greedy start's children (2M per inner node), ≤ 32 MB of keys
            memo_capacity = max(4096, min(4 * m << min(depth, 8), GREEDY_KEY_BYTES // (8 * words)))
        self.memo = cache.make_memo(words, max(memo_capacity, 4 * m))
        self.stack = dfs.make_stack(depth + 1, m)
        self.root = dfs.node_for(self.data, self.params, self.memo, bitset.full(n), n, depth)
        # A good incumbent from the start: anytime results and budgets (spec §3.7).
        dfs.greedy(self.data, self.params, self.memo, self.root, np.zeros((depth + 1, 2, words), dtype=np.uint64))
        if dfs.needs_solving(self.memo, self.root, np.inf):
            dfs.push(self.stack, self.root, np.inf)
        self.expansions = 0
        self.growths = 0
        self.guessing = bool(config["use_reference_bound"])
        self.finished_status = "heuristic" if self.guessing else "optimal"
        self._incumbent = None
        self._model = None
        self.upper_bound = math.inf
        self._valid_floor = self._proved_root_floor()
        self._refresh()

    @property
    def nodes(self):
        return int(self.memo.count[0])

    def step(self, budget):
        """Expand at most ``budget`` subproblems; return True when the root is solved."""
        left = max(1, int(budget))
        while True:
            status, expansions, _ = dfs.run(self.data, self.params, self.memo, self.stack, left)
            self.expansions += expansions
            left -= expansions
            if status != dfs.NEEDS_MEMORY:
                break
            self.memo = cache.grown(self.memo)
            self.growths += 1
        self._refresh()
        return status == dfs.DONE

    def _refresh(self):
        dfs.tighten(self.memo, self.stack)
        nodes, objective = extract(self.data, self.memo, self.root)
        if objective < self.upper_bound:
            self._incumbent, self.upper_bound = nodes, objective
        lower = float(self.memo.lb[self.root])
        if self.guessing:  # guessed bounds prove nothing (Thm 2.7): report only what is proved
            lower = self._valid_floor
        elif lower >= self.memo.ub[self.root]:
            lower = self.upper_bound  # solved: the same optimum, summed in the incumbent's order
        self.lower_bound = min(lower, self.upper_bound)

    def _proved_root_floor(self):
        # With guessing the search's lower bounds are guesses; the root's bound without the guess is proved.
        if not self.guessing:
            return None
        params = self.params._replace(use_reference_bound=False)
        n = self.problem.n_samples
        return float(evaluate(self.data, params, bitset.full(n), n, int(self.memo.depth[self.root]))[1])

    def progress(self):
        return {"graph_size": self.nodes, "stack_depth": int(self.stack.top[0]), "expansions": self.expansions}

    def best_model(self):
        if self._model is None or self._model[0] is not self._incumbent:
            tree = build_tree(self._incumbent, self.memo, self.problem, self.loss, self.config["regularization"])
            self._model = (self._incumbent, tree)
        return self._model[1]

    def extras(self):
        """Return the training Brier score over time of the tree and of the single KM curve (spec §8, item 8)."""
        return {"brier_curve": brier_curve(self.best_model(), self.problem, self.config["ipcw_ties"])}

    def stats(self):
        out = {
            "expansions": self.expansions,
            "subproblems": self.nodes,
            "memo_growths": self.growths,
            "root_leaf_objective": float(self.memo.leaf[self.root]),
            "training_loss": float(self.upper_bound - self.config["regularization"] * self._leaves()),
        }
        if self.guessing:
            out["guessed_lower_bound"] = float(self.memo.lb[self.root])
            out["guarantee"] = "optimal relative to the reference bound (Thm 2.7)"
        return out

    def _leaves(self):
        return int(sum(1 for _, feature, _, _ in self._incumbent if feature == cache.NO_SPLIT))

    def state_bytes(self):
        return self.memo.nbytes() + self.stack.nbytes()


def brier_curve(model, problem, ties, max_points=BRIER_POINTS):
    """Return ``{"time", "tree", "root"}``: BS(t) of the tree and of one KM curve at the unique training times.

    Long grids are thinned to about ``max_points`` times, for plotting.
    """
    grid = np.unique(problem.time)
    estimates, groups = leaf_estimates(model, problem.X, grid)
    root = survival.kaplan_meier(problem.event, problem.time)
    _, tree = brier_scores(estimates, problem.event, problem.time, groups=groups, ties=ties)
    _, single = brier_scores(
        group_estimates([(root.time, root.survival)], grid),
        problem.event,
        problem.time,
        groups=np.zeros(problem.n_samples, dtype=np.int64),
        ties=ties,
    )
    keep = np.unique(np.linspace(0, len(grid) - 1, min(len(grid), max_points)).round().astype(np.int64))
    return {"time": grid[keep].tolist(), "tree": tree[keep].tolist(), "root": single[keep].tolist()}


def extract(data, memo, root):
    """Return the incumbent tree as ``[(memo id, feature, left, right), ...]`` (parents first), and its objective."""
    cap = 2 * data.kappa.shape[0] + 1  # every leaf holds at least one sample
    tree = best_tree.extract(root, best_tree.DIRECT, memo.split, memo.left, memo.right, memo.leaf, cap)
    ids, features, lefts, rights, objective = tree
    rows = [(int(ids[i]), int(features[i]), int(lefts[i]), int(rights[i])) for i in range(ids.shape[0])]
    return rows, float(objective)
