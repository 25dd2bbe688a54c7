# Check that DPB returns the brute-force optimum on tiny random data, for the three additive objectives.
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.api import solve
from solver.testing import assert_bound_trace_valid
from tests.oracles import enumerate_trees, misclassification_leaf_cost
from tests.solver.gosdt.helpers import ADDITIVE, brute_force, objective_of, problem, row_weights


@st.composite
def tiny(draw, n_classes=2, weighted=False):
    n = draw(st.integers(4, 14))
    m = draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=n * m, max_size=n * m)), dtype=np.uint8).reshape(n, m)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    y[:n_classes] = np.arange(n_classes)  # every class present
    weights = None
    if weighted:
        weights = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))
    return problem(X, y, weights, n_classes)


def check(p, objective, lam, depth, cost_weight=1.0):
    expected = brute_force(p, objective, lam, depth, cost_weight)
    result = solve(
        p, "gosdt", {"objective": objective, "regularization": lam, "max_depth": depth, "cost_weight": cost_weight}
    )
    assert result.status == "optimal"
    assert abs(result.objective - expected) < 1e-12, (objective, lam, depth, result.objective, expected)
    assert result.lower_bound == result.objective
    assert abs(objective_of(result.model, p, objective, lam, cost_weight) - result.objective) < 1e-12
    if depth is not None:
        assert result.model.depth <= depth
    assert_bound_trace_valid(result.trace, result.status)


LAMBDAS = st.sampled_from([0.0, 0.005, 0.02, 0.05, 0.1, 0.3])
DEPTHS = st.sampled_from([1, 2, 3, None])


@settings(max_examples=60, deadline=None)
@given(tiny(), st.sampled_from(ADDITIVE), LAMBDAS, DEPTHS, st.sampled_from([0.5, 1.0, 3.0]))
def test_it_finds_the_brute_force_optimum(p, objective, lam, depth, cost_weight):
    check(p, objective, lam, depth, cost_weight)


@settings(max_examples=30, deadline=None)
@given(tiny(weighted=True), st.sampled_from(ADDITIVE), LAMBDAS, DEPTHS)
def test_it_finds_the_brute_force_optimum_with_sample_weights(p, objective, lam, depth):
    check(p, objective, lam, depth, 2.0)


@settings(max_examples=30, deadline=None)
@given(tiny(n_classes=3), LAMBDAS, DEPTHS)
def test_it_finds_the_brute_force_optimum_for_three_classes(p, lam, depth):
    check(p, "accuracy", lam, depth)


@settings(max_examples=20, deadline=None)
@given(tiny(weighted=True), st.sampled_from(ADDITIVE), LAMBDAS, st.sampled_from([1, 2, 3]))
def test_it_matches_the_enumeration_of_every_tree(p, objective, lam, depth):
    # The brute force itself, checked against listing every tree of depth ≤ 3 (tests/oracles.enumerate_trees).
    p = problem(p.X[:, :3], p.y, p.sample_weight)
    weights = row_weights(p, objective, 2.0)
    cost = misclassification_leaf_cost(p.y, weights, lam)
    best = min(sum(cost(rows) for rows in leaves) for leaves in enumerate_trees(p.X, depth=depth))
    result = solve(p, "gosdt", {"objective": objective, "regularization": lam, "max_depth": depth, "cost_weight": 2.0})
    assert abs(result.objective - best) < 1e-12
