# Check our optima against the gosdt package (accuracy, and balanced accuracy via its balance option) and pystreed.
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.gosdt import load
from solver.api import solve
from solver.testing import assert_bound_trace_valid
from tests.solver.gosdt.helpers import objective_of, problem

pytestmark = pytest.mark.reference


def gosdt_fit(X, y, lam, depth, balance=False):
    """Return the gosdt package's (lower, upper) bounds and leaf count on a 0/1 matrix."""
    import json

    from gosdt import GOSDTClassifier

    clf = GOSDTClassifier(regularization=lam, allow_small_reg=True, depth_budget=depth, balance=balance, time_limit=120)
    clf.fit(pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]), y)
    leaves = json.loads(clf.result_.model)[0]
    return float(clf.result_.lowerbound), float(clf.result_.upperbound), _count_leaves(leaves)


def _count_leaves(node):
    return 1 if "prediction" in node else _count_leaves(node["true"]) + _count_leaves(node["false"])


# The shared datasets both solve in well under a second (compas-gosdt: our exact binarization, 134 features).
CASES = [
    (name, lam, depth)
    for name in ("monk1", "monk2", "monk3", "tic-tac-toe", "car-evaluation")
    for lam, depth in ((0.01, 3), (0.02, 4))
] + [("compas-gosdt", 0.01, 3)]


@pytest.fixture(scope="module")
def datasets():
    return {name: load(name) for name in {case[0] for case in CASES}}


@pytest.mark.parametrize("name, lam, depth", CASES)
def test_it_agrees_with_the_gosdt_package_on_accuracy(datasets, name, lam, depth):
    p = datasets[name]
    result = solve(p, "gosdt", {"regularization": lam, "max_depth": depth})
    assert result.status == "optimal"
    assert_bound_trace_valid(result.trace, result.status)
    lower, upper, leaves = gosdt_fit(p.X, p.y, lam, depth)
    assert lower == upper, "gosdt did not prove its tree optimal"
    assert abs(result.objective - upper) < 1e-6  # gosdt reports in single precision
    assert abs(objective_of(result.model, p, "accuracy", lam) - result.objective) < 1e-12
    assert result.model.depth <= depth


@pytest.mark.parametrize(
    "name, lam, depth", [case for case in CASES if case[0] in ("monk2", "tic-tac-toe", "car-evaluation")]
)
def test_it_agrees_with_the_gosdt_package_on_balanced_accuracy(datasets, name, lam, depth):
    p = datasets[name]
    result = solve(p, "gosdt", {"objective": "balanced_accuracy", "regularization": lam, "max_depth": depth})
    assert result.status == "optimal"
    lower, upper, _ = gosdt_fit(p.X, p.y, lam, depth, balance=True)
    assert lower == upper
    assert abs(result.objective - upper) < 1e-6


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(10, 60),
    st.integers(2, 7),
    st.sampled_from((0.005, 0.02, 0.05)),
    st.sampled_from((1, 2, 3, None)),
    st.booleans(),
)
def test_it_agrees_with_the_gosdt_package_on_random_data(seed, n, m, lam, depth, balance):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    y = (X[:, 0] & X[:, m - 1]) | (rng.random(n) < 0.25)
    y[:2] = (0, 1)
    objective = "balanced_accuracy" if balance else "accuracy"
    result = solve(problem(X, y), "gosdt", {"objective": objective, "regularization": lam, "max_depth": depth})
    assert result.status == "optimal"
    _, upper, _ = gosdt_fit(X, y.astype(int), lam, depth, balance=balance)
    assert abs(result.objective - upper) < 1e-6


def test_gosdt_depth_budget_counts_split_levels_like_max_depth():
    # y = a xor b needs two split levels; depth_budget=1 must allow one split (a stump), as max_depth=1 does.
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 4, dtype=np.uint8)
    y = np.array([0, 1, 1, 0] * 4)
    stump_y = X[:, 0].astype(int)
    for target, depth in ((stump_y, 1), (y, 1), (y, 2)):
        ours = solve(problem(X, target), "gosdt", {"regularization": 0.01, "max_depth": depth})
        _, upper, _ = gosdt_fit(X, target, 0.01, depth)
        assert abs(ours.objective - upper) < 1e-6
    assert abs(solve(problem(X, stump_y), "gosdt", {"regularization": 0.01, "max_depth": 1}).objective - 0.02) < 1e-12


@pytest.mark.parametrize("name, depth", [("monk1", 3), ("monk2", 3), ("tic-tac-toe", 3), ("car-evaluation", 4)])
def test_it_agrees_with_pystreed_at_zero_regularization(datasets, name, depth):
    # Both minimise misclassifications under the same depth limit when λ = 0.
    from pystreed import STreeDClassifier

    p = datasets[name]
    result = solve(p, "gosdt", {"regularization": 0.0, "max_depth": depth})
    assert result.status == "optimal"
    clf = STreeDClassifier(optimization_task="accuracy", max_depth=depth, time_limit=120)
    clf.fit(p.X, p.y)
    errors = int(np.count_nonzero(clf.predict(p.X) != p.y))
    assert abs(result.objective - errors / p.n_samples) < 1e-12
