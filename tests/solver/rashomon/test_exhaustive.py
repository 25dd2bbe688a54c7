"""The set equals the exhaustive list of every tree within θ (spec §7): same trees, same exact objectives."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.rashomon.objective import exact
from solver.rashomon.sets import tree_text
from tests.solver.rashomon import brute
from tests.solver.rashomon.helpers import costs, solve, theta_of


@st.composite
def tiny(draw):
    n = draw(st.integers(2, 8))
    m = draw(st.integers(1, 3))
    X = [[draw(st.integers(0, 1)) for _ in range(m)] for _ in range(n)]
    y = [draw(st.integers(0, 1)) for _ in range(n)]
    if len(set(y)) < 2:
        y[0] = 1 - y[1]
    return X, y


PARAMS = st.fixed_dictionaries(
    {
        "objective": st.sampled_from(["accuracy", "balanced_accuracy", "weighted_accuracy"]),
        "regularization": st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.25]),
        "max_depth": st.sampled_from([None, 1, 2]),
        "epsilon": st.sampled_from([0.0, 0.1, 0.3, 0.8]),
        "cost_weight": st.sampled_from([1.0, 2.5]),
    }
)


def listing(s):
    return sorted((s.objective(k), tree_text(t, s.label)) for k, t in s.trees())


def expected(X, y, params):
    c = costs(y, params["objective"], params["cost_weight"])
    lam = exact(params["regularization"])
    best = brute.optimum(X, y, c, 1, lam, params["max_depth"])
    return brute.rashomon(X, y, c, 1, lam, theta_of(best, params), params["max_depth"])


@settings(max_examples=150, deadline=None)
@given(data=tiny(), params=PARAMS)
def test_the_set_is_every_tree_within_theta(data, params):
    X, y = data
    result, s = solve(X, y, **params)
    want = expected(X, y, params)
    assert listing(s) == want, (X, y, params)
    assert s.count() == len(want) == result.extras["count"]
    assert result.status == "optimal"
    assert Fraction(result.extras["optimum"]).limit_denominator(10**6) == want[0][0]


@settings(max_examples=60, deadline=None)
@given(data=tiny(), lam=st.sampled_from([0.02, 0.1]), delta=st.sampled_from([0.05, 0.2, 0.5]))
def test_additive_and_absolute_bounds(data, lam, delta):
    X, y = data
    params = {
        "objective": "accuracy",
        "regularization": lam,
        "max_depth": None,
        "cost_weight": 1.0,
        "additive_epsilon": delta,
    }
    assert listing(solve(X, y, **params)[1]) == expected(X, y, params)
    params = {**params, "additive_epsilon": None, "objective_bound": delta + 0.3}
    assert listing(solve(X, y, **params)[1]) == expected(X, y, params)


# Spec §7.1: D1, XOR-8 and D3 with their published lists and counts.
D1 = ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1], [0, 0]], [0, 0, 1, 1, 0, 1])
XOR8 = (
    [[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)],
    [a ^ b for a in (0, 1) for b in (0, 1) for _ in (0, 1)],
)
D3 = ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 1, 1], [1, 1, 1]], [0, 0, 1, 0, 1, 1, 0])


@pytest.mark.parametrize(
    "data, params, count",
    [
        (D1, {"regularization": 0.05, "epsilon": 0.2}, 4),
        (D1, {"regularization": 0.05, "additive_epsilon": 0.2}, 5),
        (D1, {"regularization": 0.1, "epsilon": 0.5}, 5),
        (D1, {"regularization": 0.05, "epsilon": 0.2, "ignore_trivial_extensions": False}, 6),
        (XOR8, {"regularization": 0.05, "epsilon": 0.6}, 6),
        (XOR8, {"regularization": 0.05, "epsilon": 0.6, "ignore_trivial_extensions": False}, 26),
        (XOR8, {"regularization": 0.05, "epsilon": 0.6, "max_depth": 2}, 2),
        (XOR8, {"regularization": 0.05, "epsilon": 0.6, "max_depth": 1}, 1),
        (XOR8, {"regularization": 0.05, "epsilon": 1.0}, 24),
        (XOR8, {"regularization": 0.05, "epsilon": 1.0, "max_depth": 2}, 6),
        (XOR8, {"regularization": 0.02, "additive_epsilon": 0.1}, 12),
        (XOR8, {"regularization": 0.1, "epsilon": 0.1}, 2),
        (D3, {"regularization": 0.05, "epsilon": 0.3}, 21),
        (D3, {"regularization": 0.05, "epsilon": 0.3, "max_depth": 2}, 8),
        (D3, {"regularization": 0.05, "epsilon": 0.3, "max_depth": 1}, 3),
        (D3, {"regularization": 0.05, "epsilon": 0.3, "ignore_trivial_extensions": False}, 43),
        (D3, {"regularization": 0.02, "additive_epsilon": 0.15}, 26),
        (D3, {"regularization": 0.1, "additive_epsilon": 0.2}, 24),
    ],
)
def test_the_specs_tiny_sets(data, params, count):
    result, s = solve(*data, **params)
    assert result.extras["count"] == s.count() == count
    assert len(list(s.trees())) == count


def test_xor8_list_matches_the_spec():
    _, s = solve(*XOR8, regularization=0.05, epsilon=0.6)
    assert [tree_text(t, s.label) for _, t in s.trees(limit=2)] in (
        ["x1?(x2?(0|1)|x2?(1|0))", "x2?(x1?(0|1)|x1?(1|0))"],
        ["x2?(x1?(0|1)|x1?(1|0))", "x1?(x2?(0|1)|x2?(1|0))"],
    )
    assert {str(s.objective(k)) for k, _ in s.trees()} == {"1/5", "3/10"}
