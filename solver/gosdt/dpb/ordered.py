"""GOSDT's additive objectives on ordered features (spec ``contree.md`` §8.3): the search of ``solver.ordered``.

Accuracy, balanced and weighted accuracy are a per-row loss when misclassified (``dpb.class_scale``),
and ``R = loss + λ · leaves`` is the ordered search's ``loss + λ · branching nodes`` plus λ. GOSDT's
incremental similar-support bound (Thm 4.1) is the search's neighbouring-threshold bound, and its
leaf-count bounds are the search's node-budget reductions (a tree better than the leaf has fewer than
leaf / λ branching nodes).
"""

from __future__ import annotations

import numpy as np

from solver.api import ProblemError
from solver.gosdt.dpb.search import class_scale
from solver.ordered.search import OrderedSearch, uses_ordered


def runs_ordered(problem, config):
    """Return True when ``threshold_search`` picks the ordered search for this data."""
    return uses_ordered(problem, config)


class OrderedGOSDTSearch(OrderedSearch):
    """GOSDT (additive objectives, optional depth limit) over every threshold of the raw data."""

    def __init__(self, problem, config):
        weights = problem.weights
        if np.any(weights < 0) or not np.isfinite(weights).all() or weights.sum() <= 0:
            raise ProblemError("Row weights must be finite, non-negative and not all zero.")
        K = max(problem.n_classes, int(problem.y.max()) + 1)
        mass = np.bincount(problem.y, weights=weights, minlength=K)
        if config["objective"] != "accuracy" and np.any(mass <= 0):
            raise ProblemError("Balanced and weighted accuracy need rows of both classes with positive weight.")
        scale = class_scale(config["objective"], mass, float(config["cost_weight"]))
        loss = weights * scale[problem.y]
        cost = np.repeat(loss[:, None], K, axis=1)
        cost[np.arange(problem.n_samples), problem.y] = 0.0
        lam = float(config["regularization"])
        depth = config.get("max_depth")
        super().__init__(
            problem,
            cost,
            None if depth is None else int(depth),
            None,
            lam,
            lambda v: v + lam,
            problem.classes,
            "classification",
            problem.y,
            weights,
            use_upper_bound=bool(config.get("use_hierarchical_bound", True)),
            use_interval=bool(config.get("use_similar_support_bound", True)),
            use_cache=bool(config.get("use_leaf_permutation_bound", True)),
        )
