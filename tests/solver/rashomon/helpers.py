"""Shared pieces of the Rashomon tests: tiny problems, the exact costs of the brute force, a set from ``solve``."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from solver import api
from solver.problem import Problem
from solver.rashomon.objective import class_costs, exact
from solver.rashomon.report import load


def problem(X, y):
    X = np.asarray(X, dtype=np.uint8).reshape(len(y), -1)
    return Problem(
        X=X,
        features=[{"kind": "binary", "column": f"x{j + 1}"} for j in range(X.shape[1])],
        y=np.asarray(y, dtype=np.int64),
        classes=["0", "1"],
    )


def costs(y, objective, cost_weight=1.0):
    """Return each row's cost in the loss as a ``Fraction`` (the brute force's own arithmetic)."""
    pos = sum(1 for v in y if v == 1)
    neg = len(y) - pos
    c = class_costs(objective, Fraction(pos), Fraction(neg), cost_weight)
    return [c[v] for v in y]


def solve(X, y, **params):
    result = api.solve(problem(X, y), "rashomon", params)
    return result, load(result.extras["graph"])


def theta_of(optimum, params):
    if params.get("objective_bound") is not None:
        return exact(params["objective_bound"])
    if params.get("additive_epsilon") is not None:
        return optimum + exact(params["additive_epsilon"])
    return optimum * (1 + exact(params.get("epsilon", 0.05)))
