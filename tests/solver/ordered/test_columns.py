"""Ordered columns stand for exactly the binary features, and a problem works without its binary matrix."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import predicates
from solver.api import Limits, solve
from solver.data import binarize
from solver.data.binarize import Roles, make_problem
from solver.data.features import feature_support
from solver.data.ordered import families, from_binary
from solver.data.table import Table


@st.composite
def tables(draw):
    n = draw(st.integers(2, 30))
    number = st.one_of(st.integers(-3, 5).map(float), st.just(np.nan), st.floats(-2, 2, width=32))
    columns = {
        "a": np.array(draw(st.lists(number, min_size=n, max_size=n)), dtype=np.float64),
        "b": np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n))),
        "c": np.array(draw(st.lists(st.sampled_from(["x", "y", "z", None]), min_size=n, max_size=n)), dtype=object),
        "d": np.array(draw(st.lists(st.sampled_from(["low", "mid", "high"]), min_size=n, max_size=n)), dtype=object),
        "label": np.array(draw(st.lists(st.sampled_from(["no", "yes"]), min_size=n, max_size=n)), dtype=object),
    }
    method = draw(st.sampled_from(["exact", "quantile:2", "quantile:5"]))
    return Table(columns), method


@settings(max_examples=120, deadline=None)
@given(tables())
def test_ranks_give_back_every_binary_feature(case):
    # Check the families' ranks reproduce the predicates evaluated on the raw rows, cut for cut.
    table, method = case
    roles = Roles(label="label", ordered={"d": ["low", "mid", "high"]})
    try:
        problem = make_problem(table, roles, method)
    except binarize.DataError:
        return  # no usable feature (every column constant)
    expected = predicates.evaluate_all(problem.features, table.columns)
    assert np.array_equal(problem.ordered.binary(), expected)
    assert np.array_equal(problem.X, expected)
    assert np.array_equal(from_binary(expected, problem.features).rank, problem.ordered.rank)
    assert np.array_equal(feature_support(problem), expected.sum(axis=0))
    # A numeric column's cuts are one family; a declared order is one family.
    thresholds = [p for p in problem.features if p["kind"] == "threshold" and p["column"] == "a"]
    sizes = {
        problem.features[a]["column"]: b - a
        for a, b in families(problem.features)
        if problem.features[a]["kind"] in ("threshold", "ordinal")
    }
    assert sizes.get("a", 0) == (len(thresholds) if len(thresholds) > 1 else sizes.get("a", 0))


def test_a_family_that_does_not_nest_on_the_rows_is_kept_as_single_features():
    # Check from_binary does not trust predicates whose columns contradict the nesting.
    X = np.array([[1, 0], [0, 1]], dtype=np.uint8)
    features = [predicates.threshold("a", 1.0), predicates.threshold("a", 2.0)]
    columns = from_binary(X, features)
    assert len(columns.size) == 2 and np.array_equal(columns.binary(), X)


def test_a_large_problem_is_solved_without_building_its_binary_matrix(monkeypatch):
    # Check a problem above the eager size keeps X unbuilt through the ordered solve, metrics and take().
    monkeypatch.setattr(binarize, "EAGER_CELLS", 10)
    rng = np.random.default_rng(0)
    n = 400
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    label = np.where(x1 + 0.5 * x2 > 0.2, "yes", "no").astype(object)
    problem = make_problem(Table({"x1": x1, "x2": x2, "label": label}), Roles(label="label"))
    assert not problem.has_binary and problem.n_samples == n and problem.n_features == 2 * (n - 1)
    for algorithm, params in (
        ("streed", {"max_depth": 2, "threshold_search": "ordered"}),
        ("gosdt", {"max_depth": 2, "regularization": 0.001, "threshold_search": "ordered"}),
    ):
        result = solve(problem, algorithm, params, Limits(time_limit=60))
        assert result.status == "optimal"
        assert 0.8 < result.metrics["accuracy"] <= 1.0
    part = problem.take(np.arange(100))
    assert not problem.has_binary and not part.has_binary and part.n_samples == 100
    # Reading X builds it, equal to the predicates on the raw rows.
    assert np.array_equal(problem.X, predicates.evaluate_all(problem.features, {"x1": x1, "x2": x2}))
