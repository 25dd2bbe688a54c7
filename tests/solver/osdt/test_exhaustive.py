# Check that OSDT proves the same optimum as exhaustive search over every tree on tiny random data.
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.testing import assert_bound_trace_valid
from tests.oracles import best_additive, misclassification_leaf_cost
from tests.solver.osdt.helpers import objective, problem, run

LAMBDAS = (0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.2)


def random_data(seed, n, m, noise):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    rule = X[:, 0] ^ (X[:, -1] & X[:, min(1, m - 1)])
    y = np.where(rng.random(n) < noise, 1 - rule, rule).astype(np.int64)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return X, y


def assert_optimal_tree_properties(model, p, lam):
    """Section 7.1 invariants of an optimal tree.

    No two sibling leaves agree, every internal node has support ≥ 2λ, every leaf classifies ≥ λ correctly.
    """
    total = p.weights.sum()
    for i in range(model.n_nodes):
        if model.feature[i] < 0:
            assert model.counts[i].max() / total >= lam - 1e-12, f"leaf {i} classifies less than λ correctly"
            continue
        assert model.counts[i].sum() / total >= 2 * lam - 1e-12, f"node {i} has support below 2λ"
        left, right = model.left[i], model.right[i]
        if model.feature[left] < 0 and model.feature[right] < 0:
            assert model.prediction[left] != model.prediction[right], f"node {i} splits into leaves of one label"


@settings(max_examples=70, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(4, 40),
    st.integers(1, 4),
    st.sampled_from(LAMBDAS),
    st.sampled_from(("curiosity", "lower_bound", "objective", "bfs", "dfs")),
    st.booleans(),
    st.booleans(),
)
def test_it_matches_exhaustive_search(seed, n, m, lam, policy, warm_start, prune_when_queued):
    X, y = random_data(seed, n, m, noise=0.25)
    p = problem(X, y)
    result = run(p, regularization=lam, policy=policy, warm_start=warm_start, prune_when_queued=prune_when_queued)
    expected = best_additive(X, misclassification_leaf_cost(y, np.full(n, 1 / n), lam), depth=m)
    assert result.status == "optimal"
    assert abs(result.objective - expected) < 1e-9, (result.objective, expected)
    assert abs(objective(result.model, p, lam) - result.objective) < 1e-9
    assert result.lower_bound == result.objective
    assert_bound_trace_valid(result.trace, result.status)
    assert_optimal_tree_properties(result.model, p, lam)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(4, 30), st.integers(1, 4), st.sampled_from(LAMBDAS), st.booleans())
def test_it_matches_exhaustive_search_with_weights(seed, n, m, lam, whole):
    X, y = random_data(seed, n, m, noise=0.3)
    rng = np.random.default_rng(seed + 1)
    weights = rng.integers(1, 5, size=n).astype(float) if whole else rng.uniform(0.1, 3.0, size=n)
    p = problem(X, y, weights)
    result = run(p, regularization=lam)
    expected = best_additive(X, misclassification_leaf_cost(y, weights / weights.sum(), lam), depth=m)
    assert result.status == "optimal"
    assert abs(result.objective - expected) < 1e-9, (result.objective, expected)
    assert abs(objective(result.model, p, lam) - result.objective) < 1e-9


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 30), st.sampled_from(LAMBDAS))
def test_the_optimum_does_not_depend_on_feature_or_row_order(seed, n, lam):
    # Section 7.1, invariant 13.
    X, y = random_data(seed, n, 4, noise=0.2)
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(n), rng.permutation(4)
    a = run(problem(X, y), regularization=lam).objective
    b = run(problem(X[rows][:, cols], y[rows]), regularization=lam, feature_order="given").objective
    assert abs(a - b) < 1e-12
