"""Around the search, nothing materializes one 0/1 column per threshold (issue: tables at analyst scale).

The table below has 100,000 rows of distinct raw numbers: 299,997 exact thresholds, so a 0/1 matrix of the
problem would be 30 GB. Peak memory is measured with ``tracemalloc`` (numpy reports its buffers to it).
"""

import tracemalloc

import numpy as np
import pytest

from solver import export, metrics, pipeline, solve
from solver.data import Roles, Table, make_problem
from solver.data.evaluation import problem_like
from solver.models import LEAF, Tree

N = 100_000
MB = 1 << 20


@pytest.fixture(scope="module")
def wide():
    rng = np.random.default_rng(0)
    columns = {f"x{j}": rng.normal(size=N) for j in range(3)}
    noise = rng.random(N) < 0.1
    columns["y"] = np.where((columns["x0"] > 0.3) ^ noise, "yes", "no").astype(object)
    table = Table(columns)
    return table, make_problem(table, Roles(label="y"))


def traced_peak(call):
    tracemalloc.start()
    try:
        out = call()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def two_split_tree(problem):
    # x0 ≤ (its 70,000th threshold), then x1 ≤ (its middle one) on the right.
    t0 = 70_000
    t1 = problem.ordered.offset[1] + 50_000
    return Tree(
        feature=[t0, LEAF, t1, LEAF, LEAF],
        left=[1, LEAF, 3, LEAF, LEAF],
        right=[2, LEAF, 4, LEAF, LEAF],
        prediction=[0, 1, 0, 1, 0],
        counts=np.ones((5, 2)),
        features=problem.features,
        classes=problem.classes,
    )


# Check the problem really has hundreds of thousands of thresholds and no 0/1 matrix.
def test_it_keeps_the_thresholds_as_ranks(wide):
    _, problem = wide
    assert problem.n_features == 3 * (N - 1)
    assert not problem.has_binary


# Check export test vectors read only the model's splits: a few MB, every reached leaf, its predictions.
def test_it_builds_test_vectors_from_the_models_splits(wide):
    table, problem = wide
    tree = two_split_tree(problem)
    vectors, peak = traced_peak(lambda: export.test_vectors(tree, table))
    assert peak < 50 * MB
    assert len(vectors) == 50
    assert {tuple(sorted(v["row"])) for v in vectors} == {("x0", "x1")}
    leaves = {int(tree.apply({c: np.array([v["row"][c]]) for c in ("x0", "x1")})[0]) for v in vectors}
    assert leaves == {1, 3, 4}
    for v in vectors:
        row = {c: np.array([v["row"][c]]) for c in ("x0", "x1")}
        assert tree.classes[tree.predict(row)[0]] == v["expected"]


# Check training and test metrics read only the model's splits.
def test_it_scores_a_model_from_its_splits(wide):
    table, problem = wide
    tree = two_split_tree(problem)
    train, peak = traced_peak(lambda: metrics.evaluate(tree, problem))
    assert peak < 50 * MB
    narrow, _ = tree.narrowed()
    test, peak = traced_peak(
        lambda: metrics.evaluate(narrow, problem_like(problem, table, Roles(label="y"), narrow.features))
    )
    assert peak < 50 * MB
    assert test["confusion_matrix"] == train["confusion_matrix"]
    assert train["n_samples"] == N


# Check the CART baseline grows on the ranks (one column per raw column), not on 300k 0/1 columns.
def test_it_fits_cart_without_a_column_per_threshold(wide):
    _, problem = wide
    result, peak = traced_peak(lambda: solve(problem, "cart", {"max_depth": 3}))
    assert result.status == "heuristic"
    assert result.model.n_leaves > 1
    assert result.metrics["accuracy"] > 0.85
    assert peak < 100 * MB


# Check a whole fit with a holdout, scored and with test vectors, stays far from the 0/1 matrix's size.
def test_it_fits_and_scores_a_holdout_without_a_column_per_threshold(wide):
    table, _ = wide
    result, peak = traced_peak(
        lambda: pipeline.fit(table, Roles(label="y"), "cart", {"max_depth": 2}, evaluation=pipeline.Holdout(0.2))
    )
    assert result.holdout["metrics"]["accuracy"] > 0.85
    assert result.test_vectors
    assert peak < 200 * MB


SHARED = [
    "bank.csv",
    "car-evaluation.csv",
    "compas-gosdt.csv",
    "diamonds.csv",
    "eeg.csv",
    "hypothyroid.csv",
    "loans.csv",
    "monk1.csv",
    "occupancy.csv",
    "page.csv",
    "raisin.csv",
    "rice.csv",
    "segment.csv",
    "tic-tac-toe.csv",
    "wilt.csv",
]


# Check, on every shared classification file, that a model's predictions and metrics are the same read from the
# 0/1 matrix, from the problem's ranks, and from the raw table's values (both ways: training and test rows).
@pytest.mark.parametrize("name", SHARED)
def test_metrics_from_splits_equal_metrics_from_the_matrix(name):
    from conftest import shared_dataset
    from solver.data import read_file

    table = read_file(shared_dataset(name))
    label = "grade" if name == "loans.csv" else table.names[-1]
    roles = Roles(label=label)
    prepared = pipeline.prepare(table, roles, "cart", None, pipeline.Holdout(0.3))
    problem = prepared.problem.with_changes(X=None)  # ranks only; a small problem has built its matrix
    model = solve(problem, "cart", {"max_depth": 4}).model
    with_matrix = problem.with_changes(X=problem.ordered.binary())
    assert with_matrix.has_binary and not problem.has_binary
    assert (model.predict(with_matrix) == model.predict(problem)).all()
    assert (model.predict(prepared.train) == model.predict(problem)).all()
    assert metrics.evaluate(model, with_matrix) == metrics.evaluate(model, problem)
    narrow, _ = model.narrowed()
    test = problem_like(problem, prepared.test, roles, narrow.features)
    full = problem_like(problem, prepared.test, roles)
    full = full.with_changes(X=full.ordered.binary())
    assert not test.with_changes(X=None).has_binary
    assert metrics.evaluate(narrow, test.with_changes(X=None)) == metrics.evaluate(model, full)
