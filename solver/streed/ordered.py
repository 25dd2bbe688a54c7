"""STreeD's scalar tasks on ordered features (spec ``contree.md`` §8.2): the search of ``solver.ordered``.

A task whose value is one number summed over rows — accuracy (any number of classes, row weights),
misclassification costs, policy trees without a capacity — is a per-row cost under each leaf label,
``A @ L[:, 0, :].T``, with free branching. Its optimum over every threshold of the raw data is then
found by the ordered search without one 0/1 column per threshold. Tasks with a front or a constraint
(F1, fairness, a treatment capacity) and feature test costs keep the binary search: their fronts need
bounds per front point, and a constraint breaks the neighbouring-threshold bound (spec §8.2).
"""

from __future__ import annotations

import numpy as np

from solver.ordered.search import OrderedSearch, uses_ordered


def can_run_ordered(task):
    """Return True when ``task`` is a scalar per-row sum the ordered search can solve."""
    if task.p != 1 or np.isfinite(task.caps).any():
        return False
    return task.test_cost is None or not np.any(task.test_cost.full)


def runs_ordered(problem, task, config):
    """Return True when this solve uses the ordered search: the task can, and the switch picks it for this data."""
    return can_run_ordered(task) and uses_ordered(problem, config)


class OrderedSTreeDSearch(OrderedSearch):
    """STreeD on ordered features: the best tree of the depth and node budget, over every threshold."""

    def __init__(self, problem, config, task):
        self.task, self.config = task, config
        depth = int(config["max_depth"])
        nodes = config.get("max_nodes")
        nodes = 2**depth - 1 if nodes is None else min(int(nodes), 2**depth - 1)
        self.depth, self.max_nodes = min(depth, nodes), nodes
        cost = task.A @ task.L[:, 0, :].T
        if task.kind == "policy":
            groups, weights = problem.treatment, np.ones(problem.n_samples)
        else:
            groups, weights = problem.y, problem.weights
        super().__init__(
            problem,
            cost,
            self.depth,
            self.max_nodes,
            0.0,
            lambda v: task.objective(np.array([v])),
            task.labels,
            task.kind,
            groups,
            weights,
            min_leaf=int(config.get("min_samples_leaf", 1)),
            use_upper_bound=bool(config.get("use_upper_bound", True)),
            use_interval=bool(config.get("use_lower_bound", True) and config.get("use_similarity_lower_bound", True)),
            use_cache=bool(config.get("use_dataset_caching", True)),
            use_depth_two=bool(config.get("use_depth_two_solver", True)),
        )

    def extras(self):
        value = np.array([self.best[0]])
        out = {
            "task": self.task.name,
            "value": self.task.describe(value),
            "depth": self.depth,
            "max_nodes": self.max_nodes,
            "search": "ordered",
        }
        if self.task.kind == "policy":
            leaves = self.task.leaf_values(self.task.A.sum(axis=0))
            out["constant_policies"] = {
                name: self.task.describe(leaves[k])["policy_value"] for k, name in enumerate(self.task.labels)
            }
        return out
