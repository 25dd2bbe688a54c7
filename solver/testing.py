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
