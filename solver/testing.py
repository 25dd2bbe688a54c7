"""Invariant checkers for what we compute and plot; each raises one precise message per violation.

Used by solver tests and figure tests alike.
"""

import math


def assert_bound_trace_valid(trace, status=None, tol=1e-9):
    """Check a bound trace: lower bound never decreases, upper bound never increases,
    lower ≤ upper at every point, and they meet when the run proved optimality."""
    elapsed = trace["elapsed"]
    lower, upper = trace["lower_bound"], trace["upper_bound"]
    if not (len(elapsed) == len(lower) == len(upper)):
        raise AssertionError("trace columns have different lengths")
    if any(b < a for a, b in zip(elapsed, elapsed[1:])):
        raise AssertionError("trace time goes backwards")
    last_lower, last_upper = -math.inf, math.inf
    for i, (lo, up) in enumerate(zip(lower, upper)):
        if lo is not None:
            if lo < last_lower - tol:
                raise AssertionError(f"lower bound decreases at point {i}: {last_lower} -> {lo}")
            last_lower = lo
        if up is not None:
            if up > last_upper + tol:
                raise AssertionError(f"upper bound increases at point {i}: {last_upper} -> {up}")
            last_upper = up
        if lo is not None and up is not None and lo > up + tol:
            raise AssertionError(f"lower bound {lo} exceeds upper bound {up} at point {i}")
    if status == "optimal" and lower and (lower[-1] is None or upper[-1] is None or abs(lower[-1] - upper[-1]) > tol):
        raise AssertionError(f"optimal run ends with lower {lower[-1]} != upper {upper[-1]}")


def assert_survival_curve_valid(curve, tol=1e-12):
    """Check a Kaplan-Meier curve dict (``time``, ``survival`` and optionally ``at_risk``,
    ``events``, ``censored``, ``lower``, ``upper``): times strictly increase, survival lies in
    [0, 1] and never rises, the band holds the curve, and the counts agree with the steps."""
    time, survival = list(curve["time"]), list(curve["survival"])
    if len(time) != len(survival):
        raise AssertionError(f"curve has {len(time)} times but {len(survival)} survival values")
    if any(b <= a for a, b in zip(time, time[1:])):
        raise AssertionError("curve times are not strictly increasing")
    if any(not (-tol <= s <= 1 + tol) for s in survival):
        raise AssertionError("survival value outside [0, 1]")
    rises = [i for i in range(1, len(survival)) if survival[i] > survival[i - 1] + tol]
    if rises:
        raise AssertionError(f"survival rises at time {time[rises[0]]}")
    for name in ("lower", "upper", "at_risk", "events", "censored"):
        if name in curve and len(curve[name]) != len(time):
            raise AssertionError(f"curve {name} has {len(curve[name])} entries, expected {len(time)}")
    if "lower" in curve and "upper" in curve:
        for t, lo, s, up in zip(time, curve["lower"], survival, curve["upper"]):
            if not (lo - tol <= s <= up + tol):
                raise AssertionError(f"confidence band [{lo}, {up}] does not hold survival {s} at time {t}")
    if "at_risk" in curve and "events" in curve:
        _assert_counts_match_steps(time, survival, curve, tol)


def _assert_counts_match_steps(time, survival, curve, tol):
    at_risk, events = list(curve["at_risk"]), list(curve["events"])
    censored = list(curve.get("censored", [0] * len(time)))
    previous = 1.0
    for k, t in enumerate(time):
        if events[k] > at_risk[k] or events[k] < 0:
            raise AssertionError(f"{events[k]} events with {at_risk[k]} at risk at time {t}")
        if k + 1 < len(time) and at_risk[k + 1] != at_risk[k] - events[k] - censored[k]:
            raise AssertionError(f"at-risk count after time {t} does not equal at risk minus events and censored")
        expected = previous * (1 - events[k] / at_risk[k]) if at_risk[k] else previous
        if abs(survival[k] - expected) > 1e-9:
            raise AssertionError(f"survival {survival[k]} at time {t} is not the Kaplan-Meier step {expected}")
        previous = survival[k]


def assert_roc_hull_valid(points, tol=1e-12):
    """Check an ROC convex hull, given as ``(fpr, tpr)`` vertex pairs or a dict with ``fpr`` and
    ``tpr`` lists: it starts at (0, 0), ends at (1, 1), stays in the unit square, never goes left
    or down, and is concave (each segment's slope at most the previous one's)."""
    if isinstance(points, dict):
        fpr, tpr = [float(x) for x in points["fpr"]], [float(y) for y in points["tpr"]]
    else:
        fpr, tpr = [float(p[0]) for p in points], [float(p[1]) for p in points]
    if len(fpr) != len(tpr):
        raise AssertionError(f"hull has {len(fpr)} FPR values but {len(tpr)} TPR values")
    if len(fpr) < 2:
        raise AssertionError("hull has fewer than two vertices")
    if abs(fpr[0]) > tol or abs(tpr[0]) > tol:
        raise AssertionError(f"hull starts at ({fpr[0]}, {tpr[0]}), not (0, 0)")
    if abs(fpr[-1] - 1) > tol or abs(tpr[-1] - 1) > tol:
        raise AssertionError(f"hull ends at ({fpr[-1]}, {tpr[-1]}), not (1, 1)")
    for i, (x, y) in enumerate(zip(fpr, tpr)):
        if not (-tol <= x <= 1 + tol and -tol <= y <= 1 + tol):
            raise AssertionError(f"hull vertex {i} ({x}, {y}) lies outside the unit square")
    for i in range(1, len(fpr)):
        if fpr[i] < fpr[i - 1] - tol or tpr[i] < tpr[i - 1] - tol:
            raise AssertionError(f"hull goes left or down at vertex {i}")
    # Concave: the cross product of consecutive segments is never positive (no left turn).
    for i in range(1, len(fpr) - 1):
        ax, ay = fpr[i] - fpr[i - 1], tpr[i] - tpr[i - 1]
        bx, by = fpr[i + 1] - fpr[i], tpr[i + 1] - tpr[i]
        if ax * by - ay * bx > tol:
            raise AssertionError(f"hull is not convex at vertex {i} ({fpr[i]}, {tpr[i]})")
