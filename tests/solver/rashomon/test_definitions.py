"""Each definition of the set (leaf labels, trivial extensions, exact λ or integer γ) equals its exhaustive list.

The brute force (``brute.py``) builds every admissible tree with exact fractions; under ``integer_gamma``
a tree's score is the integer ``mistakes·D + γ·leaves`` … in units of 1/D, with γ = round(λ·D) and θ
rounded as arborenum rounds it (C's ``llround`` of a double).
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.rashomon.objective import exact
from solver.rashomon.sets import tree_text
from tests.solver.rashomon import brute
from tests.solver.rashomon.helpers import costs, solve, theta_of
from tests.solver.rashomon.test_exhaustive import tiny


def llround(x):
    """Round a non-negative double to the nearest integer, halves up (C's llround)."""
    n = math.floor(x)
    return n + (1 if x - n >= 0.5 else 0)


DEFINITIONS = st.fixed_dictionaries(
    {
        "objective": st.sampled_from(["accuracy", "balanced_accuracy"]),
        "regularization": st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.25]),
        "max_depth": st.sampled_from([None, 1, 2]),
        "epsilon": st.sampled_from([0.0, 0.1, 0.3, 0.8]),
        "leaf_labels": st.sampled_from(["majority", "any"]),
        "ignore_trivial_extensions": st.booleans(),
        "integer_gamma": st.booleans(),
    }
)


def expected(X, y, params):
    """Return sorted [(objective, tree text)] of the set under ``params``'s definition, by brute force."""
    c = costs(y, params["objective"])
    scale = math.lcm(*(x.denominator for x in c))
    trees = brute.all_trees(
        X,
        y,
        [int(x * scale) for x in c],
        list(range(len(y))),
        params["max_depth"],
        params["ignore_trivial_extensions"],
        params["leaf_labels"] == "any",
    )
    if params["integer_gamma"]:
        gamma = llround(float(params["regularization"]) * scale)
        score = [(m + gamma * h, text) for text, m, h in trees]
        theta = llround(float(min(k for k, _ in score)) * (1.0 + float(params["epsilon"])))
        return sorted((Fraction(k, scale), text) for k, text in score if k <= theta)
    lam = exact(params["regularization"])
    score = [(Fraction(m, scale) + lam * h, text) for text, m, h in trees]
    theta = theta_of(min(k for k, _ in score), params)
    return sorted((k, text) for k, text in score if k <= theta)


def listing(s):
    return sorted((s.objective(k), tree_text(t, s.label)) for k, t in s.trees())


# Check every definition of the set against the exhaustive list: same trees, same objectives, same count.
@settings(max_examples=200, deadline=None)
@given(data=tiny(), params=DEFINITIONS)
def test_each_definition_is_its_exhaustive_list(data, params):
    X, y = data
    result, s = solve(X, y, **params)
    want = expected(X, y, params)
    assert listing(s) == want, (X, y, params)
    assert result.extras["count"] == s.count() == len(want)
    assert result.status == "optimal"


# Check that votes, importance and the stored graph agree with the list under every definition.
@settings(max_examples=60, deadline=None)
@given(data=tiny(), params=DEFINITIONS)
def test_votes_and_importance_follow_the_definition(data, params):
    X, y = data
    _, s = solve(X, y, **params)
    listed = [t for _, t in s.trees()]
    for row in {tuple(r) for r in X}:
        ones = 0
        for t in listed:
            while len(t) == 4:
                t = t[3] if row[t[1]] else t[2]
            ones += s.leaf_label(t) == 1
        assert s.votes(row) == ones
    for j, n in s.importance().items():
        assert n == sum(1 for t in listed if j in _features(t))


def _features(t):
    return set() if len(t) < 4 else {t[1]} | _features(t[2]) | _features(t[3])


# Check that listing the set (whole cells at once) gives the trees in rank order: trees() == [tree_at(r)].
@settings(max_examples=60, deadline=None)
@given(data=tiny(), params=DEFINITIONS)
def test_listing_follows_the_ranks(data, params):
    X, y = data
    _, s = solve(X, y, **params)
    listed = [t for _, t in s.trees()]
    assert listed == [s.tree_at(r) for r in range(s.count())]
    assert [t for _, t in s.trees(limit=3)] == listed[:3]
