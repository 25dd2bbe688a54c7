# Check that the tree-level search proves the same optimum as exhaustive search over every tree on tiny data.
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.roc import hull_points
from solver.testing import assert_bound_trace_valid, assert_roc_hull_valid
from tests.solver.gosdt_rank.helpers import brute_force, leaf_counts, model_objective, problem, run

LAMBDAS = (0.0, 0.002, 0.01, 0.02, 0.05, 0.1)
SHAPES = ((2, 2), (3, 2), (3, 3), (4, 2))  # (features, depth limit): at most 244 trees each


def random_data(seed, n, m, positive_rate):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    score = X @ rng.normal(size=m) + rng.normal(scale=0.8, size=n)
    y = (score > np.quantile(score, 1 - positive_rate)).astype(np.int64)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    y[0], y[1] = 1, 0
    return X, y


def check_run(X, y, objective, lam, depth, omega=1.0, theta=1.0, weights=None):
    p = problem(X, y, weights)
    result = run(p, objective=objective, regularization=lam, max_depth=depth, cost_weight=omega, pauc_theta=theta)
    expected = brute_force(X, y, objective, lam, depth, omega, theta, weights)
    setup = f"{objective} λ={lam} depth={depth} ω={omega} θ={theta}"
    assert result.status == "optimal", setup
    assert abs(result.objective - expected) < 1e-12, f"{setup}: {result.objective} != {expected}"
    assert abs(model_objective(result.model, objective, lam, omega, theta) - result.objective) < 1e-12, setup
    assert result.lower_bound == result.objective
    assert result.model.depth <= depth
    assert_bound_trace_valid(result.trace, result.status)
    pos, neg = leaf_counts(result.model)
    fpr, tpr, _ = hull_points(pos, neg)
    assert_roc_hull_valid(list(zip(fpr, tpr)))
    return result


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(4, 30),
    st.sampled_from(SHAPES),
    st.sampled_from(LAMBDAS),
    st.sampled_from((0.5, 0.3, 0.15)),
    st.sampled_from((0.5, 1.0, 2.0, 4.0)),
)
def test_f1_matches_exhaustive_search(seed, n, shape, lam, positive_rate, omega):
    X, y = random_data(seed, n, shape[0], positive_rate)
    check_run(X, y, "f1", lam, shape[1], omega=omega)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(4, 30),
    st.sampled_from(SHAPES),
    st.sampled_from(LAMBDAS),
    st.sampled_from((0.5, 0.3, 0.15)),
)
def test_auc_matches_exhaustive_search(seed, n, shape, lam, positive_rate):
    X, y = random_data(seed, n, shape[0], positive_rate)
    result = check_run(X, y, "auc", lam, shape[1])
    # The leaves score rows by their positive share (the tree's ROC curve is its hull).
    leaves = result.model.feature < 0
    counts = result.model.counts[leaves]
    assert np.allclose(result.model.score[leaves], counts[:, 1] / counts.sum(axis=1))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(4, 30),
    st.sampled_from(SHAPES),
    st.sampled_from(LAMBDAS),
    st.sampled_from((0.5, 0.3, 0.15)),
    st.sampled_from((0.05, 0.1, 0.2, 0.5, 1.0)),
)
def test_pauc_matches_exhaustive_search(seed, n, shape, lam, positive_rate, theta):
    X, y = random_data(seed, n, shape[0], positive_rate)
    check_run(X, y, "pauc", lam, shape[1], theta=theta)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(4, 25),
    st.sampled_from(("f1", "auc", "pauc")),
    st.sampled_from((0.005, 0.02, 0.05)),
)
def test_it_matches_exhaustive_search_with_weights(seed, n, objective, lam):
    X, y = random_data(seed, n, 3, 0.3)
    weights = np.random.default_rng(seed).uniform(0.2, 3.0, size=n)
    check_run(X, y, objective, lam, 3, omega=1.5, theta=0.3, weights=weights)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 24), st.sampled_from(("f1", "auc", "pauc")))
def test_without_a_depth_limit_it_matches_every_tree(seed, n, objective):
    # With three features no path has more than three splits, so depth 3 is every tree.
    X, y = random_data(seed, n, 3, 0.3)
    p = problem(X, y)
    result = run(p, objective=objective, regularization=0.01, pauc_theta=0.25)
    assert result.status == "optimal"
    assert abs(result.objective - brute_force(X, y, objective, 0.01, 3, theta=0.25)) < 1e-12
