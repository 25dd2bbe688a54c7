"""Sets over three or four classes (accuracy, the one objective with a multi-class form) equal their exhaustive list."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import api
from solver.api import ProblemError
from solver.problem import Problem
from solver.rashomon.objective import exact
from solver.rashomon.report import load
from solver.rashomon.sets import tree_text
from tests.solver.rashomon import brute


def problem(X, y, k):
    X = np.asarray(X, dtype=np.uint8).reshape(len(y), -1)
    return Problem(
        X=X,
        features=[{"kind": "binary", "column": f"x{j + 1}"} for j in range(X.shape[1])],
        y=np.asarray(y, dtype=np.int64),
        classes=[str(c) for c in range(k)],
    )


@st.composite
def tiny(draw):
    k = draw(st.integers(3, 4))
    n = draw(st.integers(3, 9))
    m = draw(st.integers(1, 3))
    X = [[draw(st.integers(0, 1)) for _ in range(m)] for _ in range(n)]
    y = [draw(st.integers(0, k - 1)) for _ in range(n)]
    if len(set(y)) < 2:
        y[0] = (y[1] + 1) % k
    return X, y, k


DEFINITIONS = st.fixed_dictionaries(
    {
        "regularization": st.sampled_from([0.0, 0.05, 0.1, 0.25]),
        "max_depth": st.sampled_from([None, 1, 2]),
        "epsilon": st.sampled_from([0.0, 0.2, 0.6]),
        "leaf_labels": st.sampled_from(["majority", "any"]),
        "ignore_trivial_extensions": st.booleans(),
    }
)


def expected(X, y, k, params):
    trees = brute.all_trees(
        X,
        y,
        [1] * len(y),
        list(range(len(y))),
        params["max_depth"],
        params["ignore_trivial_extensions"],
        params["leaf_labels"] == "any",
        k,
    )
    lam = exact(params["regularization"])
    score = [(Fraction(m, len(y)) + lam * h, text) for text, m, h in trees]
    theta = min(v for v, _ in score) * (1 + exact(params["epsilon"]))
    return sorted((v, text) for v, text in score if v <= theta)


# Check the multi-class set against the exhaustive list, under each leaf and trivial-extension definition.
@settings(max_examples=150, deadline=None)
@given(data=tiny(), params=DEFINITIONS)
def test_multiclass_set_is_every_tree_within_theta(data, params):
    X, y, k = data
    result = api.solve(problem(X, y, k), "rashomon", params)
    s = load(result.extras["graph"])
    want = expected(X, y, k, params)
    assert sorted((s.objective(key), tree_text(t, s.label)) for key, t in s.trees()) == want, (X, y, params)
    assert result.extras["count"] == len(want)
    assert result.status == "optimal"


# Check the per-class votes of the set against its list, and that every tree's prediction sums to one vote per row.
@settings(max_examples=40, deadline=None)
@given(data=tiny(), params=DEFINITIONS)
def test_multiclass_votes_count_the_listed_trees(data, params):
    X, y, k = data
    result = api.solve(problem(X, y, k), "rashomon", params)
    s = result.live["set"]
    listed = [t for _, t in s.trees()]
    for row in {tuple(r) for r in X}:
        per_class = [0] * k
        for t in listed:
            while len(t) == 4:
                t = t[3] if row[t[1]] else t[2]
            per_class[s.leaf_label(t)] += 1
        assert [s.votes(row, label=c) for c in range(k)] == per_class
        assert sum(per_class) == s.count()


def test_an_objective_without_a_multiclass_form_is_refused_in_words():
    with pytest.raises(ProblemError, match="two classes"):
        api.solve(problem([[0], [1], [1]], [0, 1, 2], 3), "rashomon", {"objective": "balanced_accuracy"})


# Check the estimator on three classes: vote shares sum to one and predict is the set's plurality.
def test_estimator_on_three_classes():
    from solver.sklearn import RashomonSet

    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(40, 3))
    y = (X[:, 0] + X[:, 1] * (1 + X[:, 2])) % 3
    est = RashomonSet(regularization=0.02, epsilon=0.2, max_depth=2).fit(X, y)
    proba = est.predict_proba(X)
    assert proba.shape == (40, 3) and np.allclose(proba.sum(axis=1), 1.0)
    votes = est.class_votes(X)
    assert (est.predict(X) == est.classes_[np.argmax(proba, axis=1)])[
        votes.max(axis=1) > np.sort(votes, axis=1)[:, -2]
    ].all()
