"""STreeD search object for ``solver/driver.py``: the resumable DP of ``solver.streed.recursion`` run in chunks.

Anytime signals (spec §10): the upper bound is the reported objective of the
best root solution so far (leaves first, then every finished root split);
the lower bound is the floor every tree meets (all task values are ≥ 0)
until the root is solved, then the optimum.
"""

from __future__ import annotations

import time

import numpy as np

from solver.api import ProblemError
from solver.models import LEAF, Tree, tree_dict
from solver.streed import budget, dinkelbach, treecounts
from solver.streed.ordered import OrderedSTreeDSearch, runs_ordered
from solver.streed.recursion import Solver
from solver.streed.tasks import make_task

PAIR_BYTES_MAX = 2 << 30  # memory of the pair counts the 0/1 search keeps (three tables)
PAIR_WORK_MAX = 5e8  # word operations of counting one depth-two subproblem's pairs (about a second, in pieces)
STEP_SECONDS = 0.2  # a step returns to the driver once it has run this long, whatever its budget
FRONT_POINTS_MAX = 400  # front points kept in Result.extras
FRONT_TREES_MAX = 40  # of which this many, spread along the front (the reported one included), carry their tree
DISTINCT_FROM = 1000  # rows above which node counts walk the distinct rows (``distinct_rows``)


def spread(n, limit, keep=()):
    """Return the sorted indices of at most ``limit`` of ``n`` points spread evenly, plus those in ``keep``."""
    if n <= limit:
        return list(range(n))
    step = (n - 1) / (limit - 1)
    return sorted({round(i * step) for i in range(limit)} | set(keep))


def make_search(problem, config, **task_options):
    """Return the ordered search for a scalar task (``solver.streed.ordered``), else the binary DP."""
    try:
        task = make_task(problem, config, **task_options)
    except ValueError as e:
        raise ProblemError(f"STreeD cannot run this task here: {e}.") from None
    if runs_ordered(problem, task, config):
        return OrderedSTreeDSearch(problem, config, task)
    depth = min(int(config["max_depth"]), int(config.get("max_nodes") or 2 ** int(config["max_depth"])))
    if dinkelbach.serves(problem, task, config, depth):
        return dinkelbach.DinkelbachF1Search(problem, config, task)
    # Thresholds are thinned out only where nobody asked for every one of them (threshold_search=binary).
    if config.get("threshold_search", "auto") != "binary" and budget.needs_budget(problem, depth, task.A.shape[1]):
        reduced = budget.reduce_thresholds(problem, depth, task.A.shape[1])
        if reduced is not None:
            return BudgetedSTreeDSearch(reduced, config, **task_options)
    return STreeDSearch(problem, config, task=task)


def reads_binary(problem, config):
    """Whether this solve reads the 0/1 matrix (``solver.api.within_budget``), without making its task.

    The rule of ``make_search`` (``runs_ordered``) read off the configuration: the light one of
    ``solver.ordered.policy``, which the estimate uses too (a test checks that both agree).
    """
    from solver.ordered import policy

    columns = problem.ordered_columns()
    costs = problem.feature_cost is not None and bool(np.any(problem.feature_cost))
    return not policy.chosen("streed", config, columns.n_features, len(columns.size), test_costs=costs)


def warmup(tasks=("accuracy", "f1", "demographic_parity")):
    """Compile (or load from the kernel cache) every kernel on tiny problems of each value size.

    ``tasks`` stand for the kernels' type combinations: one-component values (accuracy and every scalar task),
    F1's fronts and two-component values (the fairness constraints).
    """
    from solver.problem import Problem
    from solver.streed.params import ALGORITHM

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(16, 4)).astype(np.uint8)
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(4)]
    problem = Problem(
        X=X,
        features=features,
        y=np.arange(16) % 2,
        classes=["0", "1"],
        group=(np.arange(16) // 2) % 2,
        treatment=np.arange(16) % 2,
        treatments=["a", "b"],
        outcome=rng.random(16),
    )
    for task in tasks:
        for depth, d2 in ((2, True), (3, True), (4, True), (3, False)):  # each entry point of every kernel
            config = ALGORITHM.clean({"objective": task, "max_depth": depth, "use_depth_two_solver": d2})
            search = STreeDSearch(problem, config)
            while not search.step(64):
                pass
            search.best_model()


def warmup_scalar():
    """Compile the kernels of every task but F1 (one- and two-component values)."""
    warmup(("accuracy", "demographic_parity"))


def warmup_f1():
    """Compile the kernels of F1's fronts."""
    warmup(("f1",))


def check_pair_counts(problem, task):
    """Raise ``ProblemError`` when the 0/1 search's pair counts would not fit in memory or in a few seconds.

    A depth-two subproblem counts every pair of binary features (spec §3.6): memory grows with the square
    of their number, work with that times the rows. Numeric columns with many distinct values exceed both.
    """
    m, n = problem.n_features, problem.n_samples
    kinds = task.A.shape[1]
    memory = 3 * m * m * (kinds + 1) * 8.0
    work = m * m / 2 * max(1, (n + 63) // 64) * kinds
    if memory <= PAIR_BYTES_MAX and work <= PAIR_WORK_MAX:
        return
    from solver.streed.ordered import can_run_ordered

    other = "choose the ordered threshold search (threshold_search), or " if can_run_ordered(task) else ""
    raise ProblemError(
        f"STreeD's {task.name.replace('_', ' ')} searches one 0/1 feature per threshold, and the {m:,} thresholds "
        f"here would need {memory / 2**30:.1f} GB for the feature-pair counts of each depth-two subproblem; "
        f"{other}make fewer thresholds with a quantile binarization (e.g. quantile:32)."
    )


class STreeDSearch:
    """The driver protocol (see ``solver/driver.py``) over ``recursion.Solver``."""

    initial_budget = 16

    def __init__(self, problem, config, task=None, **task_options):
        self.problem = problem
        self.config = config
        try:
            self.task = make_task(problem, config, **task_options) if task is None else task
        except ValueError as e:
            raise ProblemError(f"STreeD cannot run this task here: {e}.") from None
        depth = int(config["max_depth"])
        nodes = config.get("max_nodes")
        nodes = 2**depth - 1 if nodes is None else min(int(nodes), 2**depth - 1)
        self.depth, self.max_nodes = min(depth, nodes), nodes
        check_pair_counts(problem, self.task)
        self.solver = Solver(self.task, problem.X, config)
        ids = np.arange(problem.n_samples, dtype=np.int64)
        self._run = self.solver.solve(ids, (), self.depth, self.max_nodes, root=True)
        self.front = None
        self.steps = 0
        self._rows = None  # distinct training rows, for the node counts of reported trees
        self.finished_status = "optimal"
        self.floor = self.task.objective(np.zeros(self.task.p))
        self.lower_bound = self.floor
        self.upper_bound = float("inf")
        self._refresh()

    @property
    def nodes(self):
        return self.solver.counters["subproblems"]

    def step(self, budget):
        """Advance the recursion by at most ``budget`` units of work; return True when the root is solved.

        Also returns after ``STEP_SECONDS`` (units differ widely in size: a depth-two solve over thousands of
        thresholds takes a good part of a second), so that limits and cancellation are honoured on time.
        """
        start = time.perf_counter()
        for _ in range(max(1, int(budget))):
            if time.perf_counter() - start > STEP_SECONDS:
                break
            try:
                next(self._run)
                self.steps += 1
            except StopIteration as stop:
                self.front = stop.value
                self._refresh()
                self.lower_bound = self.upper_bound
                return True
        self._refresh()
        return False

    def _current(self):
        return self.front if self.front is not None else self.solver.incumbent

    def _refresh(self):
        front = self._current()
        if front is None or len(front) == 0:
            return
        value = self.task.objective(front.values[self.task.select(front.values)])
        self.upper_bound = min(self.upper_bound, value)

    def progress(self):
        front = self._current()
        return {"front_size": 0 if front is None else len(front), "cache_hits": self.solver.counters["cache_hits"]}

    def chosen(self):
        """Return (value, tree) of the reported root solution."""
        front = self._current()
        i = self.task.select(front.values)
        return front.values[i], front.trees[i]

    def best_model(self):
        return build_tree(self.chosen()[1], self.problem, self.task, self.distinct_rows())

    def distinct_rows(self):
        if self._rows is None:
            self._rows = distinct_rows(self.problem, self.task)
        return self._rows

    def root_values(self):
        """Return the root front's values (m, p), sorted by the first component."""
        front = self._current()
        return front.values[np.argsort(front.values[:, 0], kind="stable")]

    def extras(self):
        """Return the task, the reported value and, for multi-objective tasks, the root front with a tree per point."""
        value, _ = self.chosen()
        out = {
            "task": self.task.name,
            "value": self.task.describe(value),
            "depth": self.depth,
            "max_nodes": self.max_nodes,
        }
        if self.task.kind == "policy":
            leaves = self.task.leaf_values(self.task.A.sum(axis=0))
            out["constant_policies"] = {
                name: self.task.describe(leaves[k])["policy_value"] for k, name in enumerate(self.task.labels)
            }
        if self.config["objective"] in ("demographic_parity", "equality_of_opportunity"):
            out["delta"] = float(self.config["delta"])
        if self.task.kind == "policy" and self.config.get("capacity") is not None:
            out["capacity"] = float(self.config["capacity"])
            out["reference_treatment"] = self.config.get("reference_treatment") or str(self.problem.treatments[0])
        if self.task.p > 1:
            front = self._current()
            order = np.argsort(front.values[:, 0], kind="stable")[:FRONT_POINTS_MAX]
            chosen = self.task.select(front.values)
            rows = self.distinct_rows()
            with_tree = spread(len(order), FRONT_TREES_MAX, [k for k, i in enumerate(order) if i == chosen])
            models = dict(
                zip(with_tree, tree_dicts([front.trees[order[k]] for k in with_tree], self.problem, self.task, rows))
            )
            out["front"] = []
            for k, i in enumerate(order):
                point = {
                    "values": self.task.describe(front.values[i]),
                    "objective": self.task.objective(front.values[i]),
                    "chosen": bool(i == chosen),
                }
                if k in models:
                    point["model"] = models[k]
                out["front"].append(point)
            out["front_size"] = len(front)
        return out

    def stats(self):
        out = dict(self.solver.counters)
        out["steps"] = self.steps
        out["cache_entries"] = len(self.solver.cache)
        return out


class BudgetedSTreeDSearch(STreeDSearch):
    """The 0/1 search over the thresholds a ``solver.streed.budget.Budget`` kept; its result says so."""

    def __init__(self, kept, config, **task_options):
        super().__init__(kept.problem, config, **task_options)
        self.budget = kept

    def extras(self):
        return {**super().extras(), "threshold_budget": self.budget.to_dict()}


def distinct_rows(problem, task):
    """Return the training rows merged by (features, class or treatment): X (u, m), groups (u,), weights (u,), K.

    Node counts need only these: one walk per distinct row instead of per row
    (compas: 6,907 rows, a few hundred distinct). Up to ``DISTINCT_FROM`` rows the rows
    themselves are returned: walking them costs less than finding the distinct ones.
    """
    if task.kind == "policy":
        groups, weights, K = problem.treatment, np.ones(problem.n_samples), len(problem.treatments)
    else:
        groups, weights, K = problem.y, problem.weights, problem.n_classes
    groups = np.asarray(groups, dtype=np.int64)
    if problem.n_samples <= DISTINCT_FROM:
        return np.ascontiguousarray(problem.X, dtype=np.uint8), groups, np.asarray(weights, dtype=np.float64), K
    # One short byte string per row (bit-packed features, then the group) sorts far faster than the rows.
    packed = np.ascontiguousarray(
        np.column_stack([np.packbits(problem.X != 0, axis=1), groups.astype("<i8").view(np.uint8).reshape(-1, 8)])
    )
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=weights, minlength=len(first))
    return (np.ascontiguousarray(problem.X[first], dtype=np.uint8), groups[first], summed.astype(np.float64), K)


def build_tree(nested, problem, task, rows=None):
    """Return the ``solver.models.Tree`` of a nested-tuple tree (parents before children).

    ``rows``: ``distinct_rows(problem, task)`` when several trees are built for one problem.
    """
    return build_trees([nested], problem, task, rows)[0]


def build_trees(nested_trees, problem, task, rows=None):
    """Return the ``solver.models.Tree`` of each nested-tuple tree, their node counts in one pass over the rows."""
    flat, starts, counts = _flat_with_counts(nested_trees, problem, task, rows)
    feature, left, right, prediction = (np.array(a, dtype=np.int64) for a in flat)
    return [
        Tree(
            feature=feature[a:b],
            left=left[a:b],
            right=right[a:b],
            prediction=prediction[a:b],
            counts=counts[a:b],
            features=problem.features,
            classes=task.labels,
            kind=task.kind,
        )
        for a, b in zip(starts[:-1], starts[1:])
    ]


def tree_dicts(nested_trees, problem, task, rows=None):
    """Return ``Tree.to_dict()`` of each nested-tuple tree, built from lists (a front's trees: no ``Tree`` each)."""
    (feature, left, right, prediction), starts, counts = _flat_with_counts(nested_trees, problem, task, rows)
    counts = counts.tolist()
    return [
        tree_dict(
            feature[a:b], left[a:b], right[a:b], prediction[a:b], counts[a:b], task.labels, problem.features, task.kind
        )
        for a, b in zip(starts[:-1], starts[1:])
    ]


def _flat_with_counts(nested_trees, problem, task, rows):
    """Return the trees as lists (feature, left, right, prediction), their start offsets, and node counts.

    Nodes are numbered parents first, a left subtree before the right one, children within
    each tree; a branching node predicts what its leftmost leaf predicts.
    """
    feature, left, right, prediction, starts = [], [], [], [], [0]
    for nested in nested_trees:
        base = len(feature)
        stack = [(nested, -1, left)]
        while stack:
            node, parent, side = stack.pop()
            at = len(feature) - base
            if parent >= 0:
                side[base + parent] = at
            feature.append(int(node[0]) if len(node) == 3 else LEAF)  # plain ints: the lists go to JSON as they are
            left.append(-1)
            right.append(-1)
            prediction.append(0 if len(node) == 3 else int(node[0]))
            if len(node) == 3:
                stack.append((node[2], at, right))
                stack.append((node[1], at, left))
        for i in range(len(feature) - 1, base - 1, -1):  # children come after their parent
            if feature[i] != LEAF:
                prediction[i] = prediction[base + left[i]]
        starts.append(len(feature))
    X, groups, weights, K = distinct_rows(problem, task) if rows is None else rows
    counts = treecounts.node_counts(
        X, groups, weights, K, *(np.array(a, dtype=np.int64) for a in (feature, left, right, starts))
    )
    return (feature, left, right, prediction), starts, counts
