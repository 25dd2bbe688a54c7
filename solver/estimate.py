"""A rough, honest estimate of how hard a search will be, before it runs.

Not a promise: branch-and-bound time depends on how fast bounds close, which
no formula knows. What we can say is how large the space is that the bounds
must rule out, from the number of binary features ``m`` and the most leaves
(or rules) an optimal model can have (``H ≤ ℓ₀/λ + 1``, see
``solver.regularization``) or the depth limit.
"""

from __future__ import annotations

import math

LEVELS = ((10.0, "easy"), (20.0, "moderate"), (30.0, "hard"))


def max_leaves(loss0, lam, max_depth=None):
    """Return the most leaves an optimal tree can have under λ and the depth limit (None if unbounded)."""
    bounds = []
    if lam and lam > 0:
        bounds.append(int(math.floor(loss0 / lam + 1e-9)) + 1)
    if max_depth:
        bounds.append(2 ** max_depth)
    return min(bounds) if bounds else None


def log10_space(n_features, leaves, rule_list=False):
    """Return log10 of a count of candidate models with at most ``leaves`` leaves (or rules + 1)."""
    if leaves is None:
        return math.inf
    splits = max(0, leaves - 1)
    if n_features <= 1 or splits == 0:
        return 0.0
    if rule_list:
        return splits * math.log10(n_features)
    # (number of tree shapes ~ 4^splits) × (a feature per split)
    return splits * (math.log10(n_features) + math.log10(4))


def estimate(n_features, n_rows, loss0, lam, max_depth=None, rule_list=False):
    """Return ``{"level", "log10_space", "max_leaves", "warnings", "suggestions"}``."""
    leaves = max_leaves(loss0, lam, max_depth)
    space = log10_space(n_features, leaves, rule_list)
    level = next((name for limit, name in LEVELS if space < limit), "very hard")
    warnings, suggestions = [], []
    if level in ("hard", "very hard"):
        warnings.append(
            f"{n_features:,} binary features and up to {leaves if leaves else 'unboundedly many'} leaves make a "
            f"space of about 10^{space:.0f} models{'' if math.isfinite(space) else ' (no depth limit and λ = 0)'}: "
            "the search may stop at its time limit with an optimality gap.")
        if n_features > 64:
            suggestions.append("coarser thresholds (quantile binarization, 8 per column)")
        if lam < 0.01:
            suggestions.append(f"a larger λ (each 2× cuts the most leaves to about {max(2, (leaves or 2) // 2)})")
        if max_depth is None or max_depth > 3:
            suggestions.append("a depth limit of 3 or 4")
    return {"level": level, "log10_space": space, "max_leaves": leaves, "warnings": warnings,
            "suggestions": suggestions}


def features_from_profile(columns, excluded, method="exact"):
    """Count the binary features a binarization yields, from a column profile (no data read).

    Numeric columns give distinct − 1 thresholds (exact) or at most K
    (``quantile:K``); text columns one feature per value; 0/1 columns one;
    a column with missing values one more.
    """
    k = int(method.split(":")[1]) if method.startswith("quantile:") else None
    total = 0
    for c in columns:
        if c["name"] in excluded or c["type"] in ("constant", "empty", "identifier"):
            continue
        if c["type"] == "binary":
            n = 1
        elif c["type"] == "numeric":
            n = c["distinct"] - 1 if k is None else min(k, c["distinct"] - 1)
        else:
            n = 1 if c["distinct"] == 2 else c["distinct"]
        total += n + (1 if c.get("missing") else 0)
    return total
