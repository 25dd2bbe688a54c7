"""The trees a search reports: node counts over the training rows and the metrics read off them."""

import numpy as np
import pytest

from solver import api, metrics
from solver.models import Tree
from solver.streed import search as streed_search
from tests.solver.streed.conftest import make_problem


def _walked_counts(model, problem):
    # Per-node weighted class counts by walking every row from the root (no shortcuts).
    counts = np.zeros((model.n_nodes, model.counts.shape[1]))
    for x, label, weight in zip(problem.X, problem.y, problem.weights):
        node = 0
        while True:
            counts[node, label] += weight
            if model.feature[node] < 0:
                break
            node = model.right[node] if x[model.feature[node]] else model.left[node]
    return counts


@pytest.mark.parametrize("depth", [3, 4])  # depth-three / depth-four kernel codes
@pytest.mark.parametrize("distinct_from", [0, 10**9])  # distinct rows merged / the rows themselves
def test_front_trees_count_every_training_row(monkeypatch, distinct_from, depth):
    # Each front point's tree (built in one pass for the whole front) counts the rows as a walk does.
    monkeypatch.setattr(streed_search, "DISTINCT_FROM", distinct_from)
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (300, 5))  # 32 patterns: many duplicated rows
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(300) < 0.2)).astype(np.int64)
    problem = make_problem(X, y, weights=rng.integers(1, 4, 300).astype(float))
    result = api.solve(problem, "streed", {"objective": "f1", "max_depth": depth})
    models = [Tree.from_dict(p["model"]) for p in result.extras["front"] if "model" in p]
    assert len(models) > 3  # all points up to FRONT_TREES_MAX, then that many spread along the front
    for model in models + [result.model]:
        assert np.array_equal(model.counts, _walked_counts(model, problem))


def test_tree_metrics_equal_the_per_row_metrics():
    # metrics.evaluate reads a tree's metrics off its leaves' class counts; per-row predictions give the same.
    rng = np.random.default_rng(6)
    X = rng.integers(0, 2, (200, 6))
    y = (X[:, 0] | (rng.random(200) < 0.3)).astype(np.int64)
    problem = make_problem(X, y, weights=rng.random(200) + 0.5)
    model = api.solve(problem, "streed", {"objective": "accuracy", "max_depth": 3}).model
    got = metrics.evaluate(model, problem)
    reached = model.apply(problem.X)
    expected = metrics.classification_metrics(
        problem.y, model.prediction[reached], 2, problem.sample_weight, metrics.leaf_scores(model)[reached]
    )
    assert got.keys() == expected.keys() | {"leaf_counts"}
    for key, value in expected.items():
        assert np.allclose(got[key], value, rtol=1e-12, atol=1e-12), key
    leaves = np.flatnonzero(model.is_leaf)
    assert got["leaf_counts"]["node"] == leaves.tolist()
    assert np.allclose(got["leaf_counts"]["counts"], _walked_counts(model, problem)[leaves])
