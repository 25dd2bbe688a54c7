"""A rough, honest estimate of how hard a search will be, before it runs.

Not a promise: branch-and-bound time depends on how fast the bounds close,
which no formula knows. The estimate rests on two facts that do drive the
work: the number ``m`` of binary features (or antecedents) the search picks
from, and how deep the optimal model can be — at most the depth limit, and at
most ``⌈log₂ H⌉`` where ``H ≤ ℓ₀/λ + 1`` is the most leaves an optimal model
can have (``solver.regularization``).
"""

from __future__ import annotations

import math

from solver.ordered import policy

LEVELS = ("easy", "moderate", "hard", "very hard")
FEW_FEATURES = 16  # binary features up to which a tree search is at most moderate, whatever its depth


def max_leaves(loss0, lam, max_depth=None):
    """Return the most leaves an optimal tree can have under λ and the depth limit (None if unbounded)."""
    bounds = []
    if lam and lam > 0:
        bounds.append(int(math.floor(loss0 / lam + 1e-9)) + 1)
    if max_depth:
        bounds.append(2**max_depth)
    return min(bounds) if bounds else None


def effective_depth(leaves, max_depth=None):
    """Return how deep an optimal model can be: the depth limit and ⌈log₂ H⌉, whichever is smaller."""
    depths = [d for d in (max_depth, math.ceil(math.log2(leaves)) if leaves else None) if d]
    return min(depths) if depths else None


def level(n_features, depth):
    """Return the difficulty word for ``n_features`` candidates searched to ``depth`` (None: unbounded)."""
    depth = 99 if depth is None else depth
    if n_features >= 2000 or (n_features >= 300 and depth >= 4):
        return "very hard"
    if n_features >= 300 or depth >= 6:
        return "hard"
    if n_features >= 60 or depth >= 4:
        return "moderate"
    return "easy"


def coarser_binarization(binarization):
    """Return advice for fewer thresholds than ``binarization`` (``exact``, ``quantile:K``, ``gbdt:N:D``), or None."""
    kind, _, rest = (binarization or "exact").partition(":")
    if kind == "exact":
        return "coarser thresholds (quantile or boosted binarization, on the dataset page)"
    if kind == "quantile" and rest.isdigit() and int(rest) > 4:
        return "fewer quantile thresholds (quantile:4, on the dataset page)"
    if kind == "gbdt" and rest != "40:1":
        return "fewer boosted thresholds (40 boosted stumps, on the dataset page)"
    return None


def estimate(
    n_features,
    n_rows,
    loss0,
    lam,
    max_depth=None,
    rule_list=False,
    *,
    has_lambda=True,
    has_depth=True,
    binarization="exact",
):
    """Return ``{"level", "max_leaves", "depth", "warnings", "suggestions"}``.

    Suggestions name only what the algorithm has: a larger λ when it has a λ,
    a depth limit when it has one, and fewer thresholds than the chosen
    ``binarization`` where there is a coarser one.
    """
    lam = lam if has_lambda else None
    leaves = max_leaves(loss0, lam, max_depth)
    # Rule-list searches prune by rule support, not depth: judge them by the antecedents alone.
    depth = None if rule_list else effective_depth(leaves, max_depth)
    word = level(n_features, 3 if rule_list else depth)
    if not rule_list and n_features <= FEW_FEATURES:
        # Few binary features bound a tree search whatever its depth: a path splits on each at most once and
        # every subproblem is the rows a conjunction of them selects (measured, GOSDT without a depth limit at
        # λ 0.01 and 0.001: monk1–3, 11 features, proved in ≤ 0.7 s; car-evaluation, 15 features and 1,728
        # rows, in ≤ 4.4 s).
        word = min(word, "easy" if n_rows <= 1000 else "moderate", key=LEVELS.index)
        depth = min(depth, n_features) if depth else n_features
    warnings, suggestions = [], []
    if word in ("hard", "very hard"):
        shape = "rules" if rule_list else "leaves"
        warnings.append(
            f"{n_features:,} candidate {'antecedents' if rule_list else 'binary features'} and "
            f"{'unboundedly many' if leaves is None else f'up to {leaves}'} {shape}: this search is likely to stop "
            "at its time limit with an optimality gap."
        )
        coarser = coarser_binarization(binarization)
        if n_features > 100 and coarser:
            suggestions.append(coarser)
        if has_lambda and (lam or 0) < 0.01:
            suggestions.append("a larger λ (each doubling halves the most leaves an optimal model can have)")
        if rule_list and n_features >= 300:
            warnings.append(
                f"CORELS stores every prefix it may still extend; with {n_features:,} antecedents it usually fills its "
                "queue memory within a minute (measured: 528 antecedents of a 10,000-row table, 512 MB in about "
                "35 s), then sets the prefixes with the worst bounds aside and goes on, and proves optimality only "
                "if its best list beats them."
            )
            suggestions.append("single clauses (Clauses per antecedent = 1) or a larger minimum support")
        if has_depth and not rule_list and (max_depth is None or max_depth > 3):
            suggestions.append("a depth limit of 3 or 4")
    return {"level": word, "max_leaves": leaves, "depth": depth, "warnings": warnings, "suggestions": suggestions}


# Rows × ordered columns up to which a depth-three ordered search is easy / moderate (measured: bank 4 × 1,097
# in 0.04 s, raisin 7 × 720 in 0.5 s, occupancy 5 × 8,143 in 0.3 s, segment 18 × 1,848 in 1.3 s, page 10 × 4,378
# in 2 s, rice 7 × 3,048 in 11 s, eeg 14 × 11,984 in about 2 min; each level deeper multiplies it by 10 to 300).
ORDERED_EASY_CELLS = 10_000
ORDERED_MODERATE_CELLS = 60_000


def ordered_level(n_rows, n_columns, depth):
    """Return the difficulty word of the ordered search over ``n_columns`` columns of ``n_rows`` rows to ``depth``."""
    depth = 99 if depth is None else depth
    cells = n_rows * n_columns
    steps = [(2, 0), (3, 0), (4, 1), (5, 3)]  # from depth d on, the level rises by this much
    rise = max([r for d, r in steps if depth >= d] + [0]) + (3 if depth >= 6 else 0)
    base = 0 if depth <= 2 or cells <= ORDERED_EASY_CELLS else (1 if cells <= ORDERED_MODERATE_CELLS else 2)
    return LEVELS[min(base + rise, len(LEVELS) - 1)]


def ordered_estimate(n_rows, column_cuts, loss0, lam, max_depth, has_lambda=True):
    """Return ``estimate``'s dict for the ordered threshold search (``solver.ordered``).

    Its work grows with rows × columns and depth, not with the number of thresholds: every threshold of a
    numeric column is searched directly (``column_cuts``: the cuts of each ordered column).
    """
    lam = lam if has_lambda else None
    leaves = max_leaves(loss0, lam, max_depth)
    depth = effective_depth(leaves, max_depth)
    columns = len(column_cuts)
    word = ordered_level(n_rows, columns, depth)
    warnings, suggestions = [], []
    if word in ("hard", "very hard"):
        warnings.append(
            f"Every threshold of {columns:,} columns ({sum(column_cuts):,} in all) over {n_rows:,} rows, "
            f"{'to any depth' if depth is None else f'to depth {depth}'}: this search may stop at its time "
            "limit with an optimality gap."
        )
        if max_depth is None or max_depth > 3:
            suggestions.append("a depth limit of 3")
        elif max_depth == 3:
            suggestions.append("depth 2 (proved in seconds), or keep depth 3 with a longer time limit")
        if has_lambda and (lam or 0) < 0.01:
            suggestions.append("a larger λ (each doubling halves the most leaves an optimal model can have)")
        suggestions.append(
            "quantile thresholds (on the dataset page) for a faster approximation: optimal only among those thresholds"
        )
    return {
        "level": word,
        "max_leaves": leaves,
        "depth": depth,
        "warnings": warnings,
        "suggestions": suggestions,
        "ordered": True,
    }


def estimate_for(algorithm, n_candidates, n_rows, loss0, config, binarization="exact", column_cuts=None):
    """Return ``estimate`` for one registry ``Algorithm`` with its cleaned ``config``.

    ``n_candidates`` is what the search picks from (``Algorithm.searched_features``
    of the binary features); ``column_cuts`` (the cuts of each raw column, when known) lets the
    algorithms that search numeric columns' thresholds in order be judged by their own size model.
    """
    names = {p.name for p in algorithm.params}
    lam = config.get("regularization")
    if lam is None and loss0 is not None and any(p.name == "regularization" and p.from_data for p in algorithm.params):
        # λ left to the data: judge the search by the λ it will run with.
        from solver.regularization import scaled_default

        lam = scaled_default(loss0, n_rows, "")[0]
    lam = lam or 0.0
    if column_cuts and policy.chosen(algorithm.name, config, sum(column_cuts), len(column_cuts)):
        out = ordered_estimate(
            n_rows,
            column_cuts,
            loss0 if loss0 is not None else 1.0,
            lam,
            config.get("max_depth"),
            has_lambda="regularization" in names,
        )
        out["n_features"] = n_candidates
        return out
    out = estimate(
        n_candidates,
        n_rows,
        loss0 if loss0 is not None else 1.0,
        lam,
        config.get("max_depth"),
        rule_list=algorithm.model_type == "rule_list",
        has_lambda="regularization" in names,
        has_depth="max_depth" in names,
        binarization=binarization,
    )
    out["n_features"] = n_candidates
    return out
