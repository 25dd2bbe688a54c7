"""A 0/1 search's matrix within its budget: exact thresholds thinned, labelled, and the same features otherwise."""

import numpy as np
import pytest

from solver import api, pipeline
from solver.data import Roles, Table, make_problem
from solver.data import budget
from solver.driver import Limits
from solver.gosdt import search as gosdt_search
from solver.gosdt.dpb.ordered import OrderedGOSDTSearch
from solver.registry import get
from solver.streed import search as streed_search
from solver.streed.ordered import OrderedSTreeDSearch


def table(n=2_000, seed=0):
    rng = np.random.default_rng(seed)
    columns = {
        "a": rng.normal(size=n).round(3),
        "b": rng.integers(0, 40, size=n).astype(float),
        "c": rng.choice(np.array(["red", "green", "blue"], dtype=object), size=n),
    }
    columns["b"][rng.random(n) < 0.05] = np.nan
    columns["y"] = np.where((columns["a"] > 0.2) ^ (rng.random(n) < 0.1), "yes", "no").astype(object)
    return Table(columns)


@pytest.fixture(scope="module")
def problem():
    return make_problem(table(), Roles(label="y"))


@pytest.fixture(scope="module")
def raw():
    return table()


def test_a_problem_that_fits_is_left_alone(problem):
    assert budget.thinned(problem, problem.ordered.cells()) is problem


def test_thinned_features_are_a_subset_of_the_exact_ones_with_the_same_columns(problem):
    n = problem.n_samples
    cells = n * 60
    small = budget.thinned(problem, cells)
    assert small.n_samples * small.n_features <= cells
    assert small.n_features < problem.n_features
    k = small.binarization["thinned"]["per_column"]
    assert int(small.ordered.size.max()) <= k
    assert budget.cuts_per_column(problem.ordered.size, n, cells) == k
    assert budget.cuts_per_column(problem.ordered.size, n, cells) + 1 > k  # the largest k that fits
    assert n * int(np.minimum(problem.ordered.size, k + 1).sum()) > cells
    # Every kept feature is one of the exact ones, and its 0/1 column is that feature's column.
    index = {repr(p): j for j, p in enumerate(problem.features)}
    for j, p in enumerate(small.features):
        assert repr(p) in index
        np.testing.assert_array_equal(small.column(j), problem.column(index[repr(p)]))
    assert small.binarization["exact"] is False
    assert small.binarization["thinned"]["exact_features"] == problem.n_features
    assert any("thresholds, at its quantiles" in note for note in small.notes)
    assert small.binarization["best_accuracy"] <= problem.binarization["best_accuracy"] + 1e-12


def test_the_kept_cuts_sit_at_the_rows_quantiles():
    rank = np.repeat(np.arange(11), 100).astype(np.int32)  # 1,100 rows, 10 cuts, 100 rows per bucket
    picks = budget.quantile_picks(rank, 10, 3)
    # Quantiles 1/4, 1/2, 3/4 of the 1,000 rows below some cut: the first cut holding 250, 500, 750 of them.
    np.testing.assert_array_equal(picks, [2, 4, 7])


def test_even_one_cut_per_column_too_many_leaves_the_refusal_to_the_matrix_check(problem):
    assert budget.thinned(problem, problem.n_samples) is problem


def small_budget(monkeypatch, cells):
    seen = []
    monkeypatch.setattr(budget, "budget_cells", lambda memory_limit: seen.append(memory_limit) or cells)
    return seen


def test_a_zero_one_search_is_thinned_and_says_so(problem, raw, monkeypatch):
    seen = small_budget(monkeypatch, problem.n_samples * 60)
    limits = Limits(memory_limit=1 << 30)
    result = api.solve(problem, "osdt", {"regularization": 0.02, "max_depth": 2}, limits)
    assert seen == [1 << 30]
    summary = result.problem
    assert summary["binarization"]["exact"] is False
    assert summary["binarization"]["thinned"]["features"] == summary["n_features"] < problem.n_features
    assert any("at its quantiles" in note for note in summary["notes"])
    assert result.status == "optimal"
    # The model's splits are exact thresholds of the raw data: on the raw rows it predicts as reported.
    predicted = np.asarray(result.model.predict(raw))
    assert result.metrics["accuracy"] == pytest.approx(float(np.mean(predicted == problem.y)), abs=1e-12)


def test_the_pipeline_solves_and_scores_the_thinned_problem(monkeypatch):
    data = table(3_000, seed=1)
    from solver.pipeline import Holdout

    prepared = pipeline.prepare(data, Roles(label="y"), "rashomon", evaluation=Holdout(0.25, seed=0))
    exact = prepared.problem.n_features
    small_budget(monkeypatch, prepared.problem.n_samples * 40)
    limits = Limits(time_limit=30)
    result = pipeline.run(prepared, {"regularization": 0.05, "max_depth": 2, "epsilon": 0.02}, limits)
    assert prepared.problem.n_features == result.problem["n_features"] < exact
    assert "error" not in result.holdout
    votes = result.extras.get("test_votes")
    assert votes is None or "error" not in votes


def test_searches_on_ranks_are_not_thinned(problem, monkeypatch):
    small_budget(monkeypatch, problem.n_samples * 60)
    limits = Limits()
    for algorithm, params in (("cart", {"max_depth": 2}), ("streed", {"max_depth": 2, "threshold_search": "ordered"})):
        assert api.within_budget(problem, algorithm, params, limits) is problem


@pytest.mark.parametrize(
    "config",
    [
        {"objective": "accuracy"},
        {"objective": "cost_sensitive"},
        {"objective": "f1"},
        {"objective": "accuracy", "threshold_search": "binary"},
        {"objective": "accuracy", "threshold_search": "ordered"},
    ],
)
def test_streed_says_whether_it_reads_the_matrix_as_it_then_searches(problem, config):
    config = get("streed").clean({"max_depth": 2, **config})
    searched = streed_search.make_search(problem, config)
    assert streed_search.reads_binary(problem, config) == (not isinstance(searched, OrderedSTreeDSearch))


def test_streed_with_test_costs_reads_the_matrix(problem):
    costly = problem.with_changes(feature_cost=np.ones(problem.n_features))
    config = get("streed").clean({"max_depth": 2, "objective": "cost_sensitive", "threshold_search": "auto"})
    searched = streed_search.make_search(costly, config)
    assert not isinstance(searched, OrderedSTreeDSearch)
    assert streed_search.reads_binary(costly, config)


@pytest.mark.parametrize("objective", ["accuracy", "balanced_accuracy", "f1"])
def test_gosdt_says_whether_it_reads_the_matrix_as_it_then_searches(problem, objective):
    config = get("gosdt").clean({"max_depth": 2, "objective": objective, "regularization": 0.01})
    searched = gosdt_search.make_search(problem, config)
    assert gosdt_search.reads_binary(problem, config) == (not isinstance(searched, OrderedGOSDTSearch))


def test_thinned_feature_costs_follow_their_features(problem):
    costly = problem.with_changes(feature_cost=np.arange(problem.n_features, dtype=float))
    small = budget.thinned(costly, costly.n_samples * 60)
    index = {repr(p): j for j, p in enumerate(problem.features)}
    expected = [float(index[repr(p)]) for p in small.features]
    np.testing.assert_array_equal(small.feature_cost, expected)


@pytest.mark.parametrize("weighted", [False, True])
def test_osdt_prepares_the_same_data_from_the_ranks_as_from_the_matrix(weighted):
    from solver.osdt.data import gini_order, gini_order_of_ranks, prepare

    problem = make_problem(table(seed=2), Roles(label="y"))

    if weighted:
        problem = problem.with_changes(sample_weight=np.arange(problem.n_samples) % 3 + 1.0)
    with_matrix = problem.with_changes(X=problem.ordered.binary())
    assert not problem.has_binary
    np.testing.assert_array_equal(
        gini_order_of_ranks(problem.ordered, problem.y, problem.weights),
        gini_order(with_matrix.X, problem.y, problem.weights),
    )
    for order in ("gini", "index"):
        a, b = prepare(problem, order), prepare(with_matrix, order)
        assert not problem.has_binary  # the ranks' matrix was not kept
        np.testing.assert_array_equal(a.order, b.order)
        for x, y in zip(a.data, b.data):
            np.testing.assert_array_equal(x, y)
        assert (a.total, a.n_points, a.minority, a.integral) == (b.total, b.n_points, b.minority, b.integral)


def test_a_subset_of_columns_is_built_in_the_order_asked(problem):
    columns = np.array([5, 0, problem.n_features - 1, 3])
    np.testing.assert_array_equal(problem.ordered.binary(columns), problem.ordered.binary()[:, columns])
