"""An automatic, labelled threshold budget for STreeD's searches over 0/1 features.

Tasks that the ordered search cannot serve (fairness constraints, a treatment capacity, feature test
costs; F1 when its ordered search is not chosen) search one 0/1 feature per threshold, and the work of a
depth-``d`` search grows like ``m^d`` in the number ``m`` of features: thousands of thresholds of a raw
numeric table give a run that is refused, or one that ends its time limit before the root has a single
split. Here such a problem keeps, per numeric column, at most ``k`` thresholds at the quantiles of its
rows (the largest ``k`` that fits the budget); every 0/1 and one-hot feature is kept. The search is then
optimal among trees over the kept thresholds, and the result says so (``extras["threshold_budget"]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.data.budget import keep_at_most

# Word operations the search may spend on its feature-pair counts: a depth-``d`` search over ``m``
# features of ``n`` rows does about m^d / 2 · n / 64 per kind of count (a depth-two pair count of m² / 2
# pairs on each of the m^(d-2) paths of d − 2 splits, whose rows add up to n per level).
WORK_BUDGET = 4e9
MIN_PER_COLUMN = 4  # fewer thresholds than this per column are not worth a search; such a problem is refused


@dataclass(frozen=True)
class Budget:
    """The thresholds kept: the reduced problem and what the result says about it."""

    problem: object
    thresholds: int  # binary features before
    kept: int  # binary features after
    per_column: int  # most thresholds kept of one numeric column
    columns: int  # numeric columns that lost thresholds

    def to_dict(self):
        return {
            "thresholds": self.thresholds,
            "kept": self.kept,
            "per_column": self.per_column,
            "columns": self.columns,
            "note": self.note(),
        }

    def note(self):
        return (
            f"Thresholds reduced: this objective searches one 0/1 feature per threshold, and the {self.thresholds:,} "
            f"thresholds of the raw data are too many for its search; {self.kept:,} were kept (at most "
            f"{self.per_column} per numeric column, at the quantiles of its rows). The tree is optimal among trees "
            "over these thresholds, not over every threshold of the raw data."
        )


def feature_budget(n_samples, depth, kinds):
    """Return the most 0/1 features a depth-``depth`` search of ``n_samples`` rows may take (at least 2).

    The least of: the whole search's pair-count work (``WORK_BUDGET``), and what ``check_pair_counts``
    of ``solver.streed.search`` allows one depth-two subproblem (memory and work), with room to spare.
    """
    from solver.streed.search import PAIR_BYTES_MAX, PAIR_WORK_MAX

    words = max(1, (n_samples + 63) // 64) * max(1, kinds)
    whole = (2 * WORK_BUDGET / words) ** (1 / max(2, int(depth)))
    one = min((PAIR_WORK_MAX / words) ** 0.5, (PAIR_BYTES_MAX / 2 / (3 * (kinds + 1) * 8.0)) ** 0.5)
    return max(2, int(min(whole, one)))


def needs_budget(problem, depth, kinds):
    """Return True when the problem has more 0/1 features than its depth and rows allow."""
    return problem.n_features > feature_budget(problem.n_samples, depth, kinds)


def reduce_thresholds(problem, depth, kinds):
    """Return a ``Budget`` whose problem keeps at most ``k`` quantile thresholds of each numeric column.

    Returns None when even ``MIN_PER_COLUMN`` thresholds per column exceed the budget (the caller then
    refuses the problem with its own advice).
    """
    budget = feature_budget(problem.n_samples, depth, kinds)
    columns = problem.ordered_columns()
    numeric = columns.size > 1
    if not numeric.any():
        return None  # only 0/1 features: nothing to thin out
    fixed = int(columns.size[~numeric].sum())
    k = _per_column(columns.size[numeric], budget - fixed)
    if k is None:
        return None
    reduced, _ = keep_at_most(problem, k)
    lost = int((columns.size[numeric] > k).sum())
    return Budget(reduced, problem.n_features, reduced.n_features, k, lost)


def _per_column(sizes, room):
    """Return the largest ``k ≥ MIN_PER_COLUMN`` with ``Σ min(size, k) ≤ room``, or None."""
    if len(sizes) == 0 or int(sizes.sum()) <= room:
        return int(sizes.max()) if len(sizes) else 0
    lo, hi = MIN_PER_COLUMN, int(sizes.max())
    if int(np.minimum(sizes, lo).sum()) > room:
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if int(np.minimum(sizes, mid).sum()) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo
