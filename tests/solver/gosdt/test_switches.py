# Check that every combination of the bound switches gives the same optimum (each bound only prunes).
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.api import solve
from solver.gosdt.params import ALGORITHM
from solver.testing import assert_bound_trace_valid
from tests.solver.gosdt.helpers import ADDITIVE, brute_force, problem, shared, switch_combinations

COMBOS = switch_combinations()


def test_every_bound_has_a_switch_in_the_registry():
    names = {p.name for p in ALGORITHM.params if p.group == "bounds"}
    assert names == set(COMBOS[0])
    assert len(COMBOS) == 2**8


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10**6), st.sampled_from(ADDITIVE), st.sampled_from((0.0, 0.01, 0.04)), st.sampled_from((2, 3, None))
)
def test_every_switch_combination_finds_the_brute_force_optimum(seed, objective, lam, depth):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(6, 16)), int(rng.integers(2, 5))
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    p = problem(X, y)
    expected = brute_force(p, objective, lam, depth, 2.0)
    for switches in COMBOS:
        result = solve(
            p,
            "gosdt",
            {"objective": objective, "regularization": lam, "max_depth": depth, "cost_weight": 2.0, **switches},
        )
        assert result.status == "optimal", switches
        assert abs(result.objective - expected) < 1e-12, (switches, result.objective, expected)


@pytest.mark.parametrize("objective", ADDITIVE)
def test_every_switch_combination_agrees_on_monk2(objective):
    p = shared("monk2")
    objectives = set()
    for switches in COMBOS:
        result = solve(
            p, "gosdt", {"objective": objective, "regularization": 0.02, "max_depth": 3, "cost_weight": 3.0, **switches}
        )
        assert result.status == "optimal"
        assert_bound_trace_valid(result.trace, result.status)
        objectives.add(round(result.objective, 12))
    assert len(objectives) == 1, objectives
