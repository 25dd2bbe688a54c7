# Check solver/roc.py against the pairwise (Wilcoxon) AUC and the hull checker on valid and broken hulls.
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.metrics import rank_auc
from solver.roc import auc_ch, hull_points, pauc_ch
from solver.testing import assert_roc_hull_valid

counts = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=8).filter(
    lambda leaves: sum(p for p, _ in leaves) > 0 and sum(n for _, n in leaves) > 0
)


@settings(max_examples=200, deadline=None)
@given(counts)
def test_the_hull_area_is_the_pairwise_auc_of_leaf_scores(leaves):
    pos = np.array([p for p, _ in leaves], float)
    neg = np.array([n for _, n in leaves], float)
    y = np.concatenate([np.r_[np.ones(int(p)), np.zeros(int(n))] for p, n in leaves])
    score = np.concatenate([np.full(int(p + n), p / (p + n) if p + n else 0.0) for p, n in leaves])
    assert auc_ch(pos, neg) == pytest.approx(rank_auc(y.astype(np.int64), score), abs=1e-12)
    fpr, tpr, _ = hull_points(pos, neg)
    assert_roc_hull_valid(list(zip(fpr, tpr)))
    assert np.trapezoid(tpr, fpr) == pytest.approx(auc_ch(pos, neg), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(counts, st.floats(0.01, 1.0))
def test_partial_area_grows_with_theta_and_reaches_the_auc(leaves, theta):
    pos = np.array([p for p, _ in leaves], float)
    neg = np.array([n for _, n in leaves], float)
    a = pauc_ch(pos, neg, theta)
    assert 0 <= a <= theta + 1e-15
    assert a <= pauc_ch(pos, neg, min(1.0, theta + 0.05)) + 1e-15
    assert pauc_ch(pos, neg, 1.0) == pytest.approx(auc_ch(pos, neg), abs=1e-15)
    # Linear interpolation inside the segment that crosses θ.
    fpr, tpr, _ = hull_points(pos, neg)
    grid = np.linspace(0, theta, 2001)
    assert a == pytest.approx(np.trapezoid(np.interp(grid, fpr, tpr), grid), abs=2e-3)


@pytest.mark.parametrize(
    "points, message",
    [
        ([(0.1, 0), (1, 1)], "starts at"),
        ([(0, 0), (0.5, 0.9)], "ends at"),
        ([(0, 0), (0.5, 0.6), (0.4, 0.9), (1, 1)], "left or down"),
        ([(0, 0), (0.5, 0.2), (1, 1)], "not convex"),
        ([(0, 0), (0.5, 1.2), (1, 1)], "outside the unit square"),
    ],
)
def test_the_hull_checker_names_each_violation(points, message):
    with pytest.raises(AssertionError, match=message):
        assert_roc_hull_valid(points)


def test_the_hull_checker_accepts_dicts_and_collinear_segments():
    assert_roc_hull_valid({"fpr": [0, 0, 0.25, 0.5, 1], "tpr": [0, 0.5, 0.75, 1, 1]})
