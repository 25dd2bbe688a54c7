# Check the survival math against exact fractions, scikit-survival and lifelines.
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import survival as sv
from solver.testing import assert_survival_curve_valid
from tests.solver.osst.conftest import SURVIVAL_SETS, TOY_EVENT, TOY_TIME, load_problem

# Spec §7.6: root (single-leaf) IBS per (ties, normalizer), rounded to 6 digits.
ROOT_IBS = {
    "veterans": {
        ("osst", "range"): 0.076476,
        ("osst", "max"): 0.076400,
        ("sksurv", "range"): 0.076615,
        ("sksurv", "max"): 0.076538,
    },
    "whas500": {
        ("osst", "range"): 0.226240,
        ("osst", "max"): 0.226144,
        ("sksurv", "range"): 0.226271,
        ("sksurv", "max"): 0.226175,
    },
    "gbsg2": {
        ("osst", "range"): 0.194802,
        ("osst", "max"): 0.194216,
        ("sksurv", "range"): 0.195107,
        ("sksurv", "max"): 0.194520,
    },
}


def root_loss(event, time, ties="osst", normalizer="range"):
    data = sv.prepare_loss(event, time, ties, normalizer)
    return sv.leaf_loss(data, np.arange(len(time)))


def close(a, b, tol=1e-12):
    return abs(float(a) - float(b)) <= tol


def test_toy_kaplan_meier_and_censoring_curves_are_the_spec_fractions():
    km = sv.kaplan_meier(TOY_EVENT, TOY_TIME)
    assert np.allclose(km.survival, [5 / 6, 2 / 3, 4 / 9, 4 / 9, 0], atol=1e-15)
    grid = np.arange(1.0, 6.0)
    assert np.allclose(sv.censoring_survival(TOY_EVENT, TOY_TIME, grid, "osst"), [1, 0.8, 0.8, 0.4, 0.4], atol=1e-15)
    assert np.allclose(
        sv.censoring_survival(TOY_EVENT, TOY_TIME, grid, "sksurv"), [1, 0.75, 0.75, 0.375, 0.375], atol=1e-15
    )


@pytest.mark.parametrize(
    "ties, normalizer, expected",
    [
        ("osst", "range", Fraction(559, 2592)),
        ("osst", "max", Fraction(559, 3240)),
        ("sksurv", "range", Fraction(2629, 11664)),
        ("sksurv", "max", Fraction(2629, 14580)),
    ],
)
def test_toy_root_ibs_is_exact_under_every_convention(ties, normalizer, expected):
    assert close(root_loss(TOY_EVENT, TOY_TIME, ties, normalizer), expected)


def test_toy_split_and_per_sample_terms_add_up():
    data = sv.prepare_loss(TOY_EVENT, TOY_TIME)
    assert close(sv.leaf_loss(data, [0, 1, 2]), Fraction(17, 288))
    assert close(sv.leaf_loss(data, [3, 4, 5]), Fraction(5, 72))
    km = sv.kaplan_meier(TOY_EVENT, TOY_TIME)
    estimates = np.tile(sv.step_values(km.time, km.survival, data.grid), (6, 1))
    terms = sv.per_sample_losses(data, estimates)
    expected = [
        Fraction(497, 7776),
        Fraction(349, 7776),
        Fraction(1, 864),
        Fraction(107, 3888),
        Fraction(179, 7776),
        Fraction(143, 2592),
    ]
    assert all(close(a, b) for a, b in zip(terms, expected))
    assert close(terms.sum(), Fraction(559, 2592))


@pytest.mark.parametrize(
    "group, expected",
    [
        ([0, 3], Fraction(19, 432)),
        ([0, 2], Fraction(1, 48)),
        ([1, 2], 0),
        ([2, 4], 0),
        ([0, 1, 2, 3, 4, 5], Fraction(55, 256)),
    ],
)
def test_toy_equivalent_loss_is_the_spec_closed_form(group, expected):
    data = sv.prepare_loss(TOY_EVENT, TOY_TIME)
    classes = np.arange(6)
    classes[group] = 99
    assert close(sv.equivalent_losses(data, classes)[group].sum(), expected)


@pytest.mark.parametrize("name", SURVIVAL_SETS)
def test_root_ibs_matches_the_spec_table(name):
    problem = load_problem(name)
    for (ties, normalizer), expected in ROOT_IBS[name].items():
        assert abs(root_loss(problem.event, problem.time, ties, normalizer) - expected) < 5e-7, (ties, normalizer)


@pytest.mark.parametrize("name", SURVIVAL_SETS)
def test_root_ibs_equals_sksurv_brier_scores_summed_over_unique_times(name):
    from sksurv.metrics import brier_score, integrated_brier_score

    problem = load_problem(name)
    y = sv.survival_y(problem.event, problem.time)
    grid = np.unique(problem.time)
    km = sv.kaplan_meier(problem.event, problem.time)
    estimate = np.tile(sv.step_values(km.time, km.survival, grid[:-1]), (len(y), 1))
    _, scores = brier_score(y, y, estimate, grid[:-1])  # it refuses times >= the largest
    left_riemann = (scores * np.diff(grid)).sum() / (grid[-1] - grid[0])
    ours = root_loss(problem.event, problem.time, "sksurv", "range")
    assert abs(left_riemann - ours) < 1e-15
    # Its integrated_brier_score integrates with the trapezoid rule, which is not Eq. 1 (spec §7.5).
    assert abs(integrated_brier_score(y, y, estimate, grid[:-1]) - ours) > 1e-4


def test_censoring_distribution_matches_sksurv_under_its_tie_convention():
    from sksurv.nonparametric import CensoringDistributionEstimator

    problem = load_problem("whas500")
    y = sv.survival_y(problem.event, problem.time)
    grid = np.unique(problem.time)
    theirs = CensoringDistributionEstimator().fit(y).predict_proba(grid)
    assert np.abs(sv.censoring_survival(problem.event, problem.time, grid, "sksurv") - theirs).max() < 1e-14


def km_cases():
    """(event, time) cases: real data, ties of deaths and censorings, all censored, one event, one sample."""
    problem = load_problem("veterans")
    return {
        "veterans": (problem.event, problem.time),
        "ties": (np.array([0, 1, 1, 0, 1, 1, 0], bool), np.array([1, 2, 2, 2, 4, 4, 5.0])),
        "all_censored": (np.zeros(5, bool), np.array([3, 1, 4, 1, 5.0])),
        "one_event": (np.array([0, 0, 1, 0], bool), np.array([1, 2, 3, 4.0])),
        "all_die_together": (np.ones(3, bool), np.array([2, 2, 2.0])),
        "last_censored": (np.array([1, 1, 0], bool), np.array([1, 2, 3.0])),
    }


@pytest.mark.parametrize("case", list(km_cases()))
def test_kaplan_meier_equals_sksurv_and_lifelines(case):
    from lifelines import KaplanMeierFitter
    from sksurv.nonparametric import kaplan_meier_estimator

    event, time = km_cases()[case]
    km = sv.kaplan_meier(event, time)
    assert_survival_curve_valid(km.to_dict())
    times, survival, band = kaplan_meier_estimator(event, time, conf_type="log-log")
    assert np.array_equal(times, km.time)
    assert np.abs(survival - km.survival).max() == 0
    assert np.nanmax(np.abs(band - np.vstack([km.lower, km.upper]))) < 1e-12
    fitter = KaplanMeierFitter().fit(time, event)
    at = np.searchsorted(fitter.survival_function_.index.to_numpy(), km.time)
    assert np.abs(fitter.survival_function_.to_numpy()[at, 0] - km.survival).max() < 1e-12
    assert np.array_equal(fitter.event_table["at_risk"].to_numpy()[at], km.at_risk)
    assert np.nanmax(np.abs(fitter.confidence_interval_.to_numpy()[at].T - np.vstack([km.lower, km.upper]))) < 1e-12


def test_edge_cases_of_the_leaf_loss():
    # A leaf with no deaths, one that dies at once, and one sample all have zero loss (spec §7.1).
    time = np.array([1, 2, 2, 3, 4, 5, 5.0])
    event = np.array([1, 0, 1, 0, 0, 1, 1], bool)
    data = sv.prepare_loss(event, time)
    assert sv.leaf_loss(data, [3, 4]) == 0  # both censored
    assert sv.leaf_loss(data, [5, 6]) == 0  # both die at the last time
    assert sv.leaf_loss(data, [2]) == 0
    # A death and a censoring tied in one leaf: KM drops to 1/2, the loss is positive but the class floor is 0.
    tied = sv.kaplan_meier(event[[1, 2]], time[[1, 2]])
    assert tied.survival.tolist() == [0.5]
    assert sv.leaf_loss(data, [1, 2]) > 0
    classes = np.arange(7)
    classes[[1, 2]] = 9
    assert sv.equivalent_losses(data, classes)[[1, 2]].sum() == 0


def test_all_censored_data_has_zero_root_loss_and_no_ibs_ratio():
    event, time = np.zeros(4, bool), np.array([1, 2, 3, 4.0])
    assert root_loss(event, time) == 0
    assert sv.censoring_survival(event, time, np.array([4.0]))[0] == 0  # Ĝ reaches 0 only at the last time
    from solver.survival_metrics import ibs_ratio

    assert ibs_ratio(0.0, 0.0) is None


def test_splitting_can_increase_the_training_ibs():
    # Spec §7.4: Kaplan-Meier is not the IBS minimiser, so no bound may assume children lose less.
    time, event = np.array([1, 1, 1, 2, 3.0]), np.array([1, 1, 0, 0, 0], bool)
    data = sv.prepare_loss(event, time)
    order = data.order  # sorted ids of (1,d), (1,d), (1,c), (2,c), (3,c)
    assert close(sv.leaf_loss(data, order), Fraction(13, 50))
    split = sv.leaf_loss(data, [0, 2, 3]) + sv.leaf_loss(data, [1, 4])
    assert close(split, Fraction(9, 32))


def test_invalid_times_are_refused():
    for bad in ([1, np.nan], [1, -1], [2, 2]):
        with pytest.raises(ValueError):
            sv.prepare_loss(np.array([1, 0], bool), np.array(bad, dtype=float))


def test_survival_y_round_trips_and_accepts_sksurv_targets():
    from sksurv.util import Surv

    y = sv.survival_y([1, 0, 1], [3.0, 1.0, 2.0])
    event, time = sv.split_survival_y(y)
    assert event.tolist() == [True, False, True] and time.tolist() == [3, 1, 2]
    event, time = sv.split_survival_y(Surv.from_arrays([True, False], [5, 6], name_event="dead", name_time="t"))
    assert event.tolist() == [True, False] and time.tolist() == [5, 6]
    with pytest.raises(ValueError):
        sv.split_survival_y(np.array([1.0, 2.0]))


@st.composite
def tiny_survival(draw):
    n = draw(st.integers(2, 10))
    time = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), dtype=float)
    event = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    classes = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    return event, time, classes


@settings(max_examples=80, deadline=None)
@given(tiny_survival(), st.sampled_from(sv.TIES), st.sampled_from(sv.NORMALIZERS))
def test_losses_are_additive_and_the_equivalent_floor_holds(case, ties, normalizer):
    event, time, classes = case
    if len(np.unique(time)) < 2:
        return
    data = sv.prepare_loss(event, time, ties, normalizer)
    sorted_classes = classes[data.order]
    # Additivity (Thm 2.1): leaf losses = the per-sample terms of their own KM curves.
    members = np.flatnonzero(sorted_classes <= 1)
    if len(members):
        km = sv.kaplan_meier(data.event[members] == 1, data.grid[data.kappa[members]])
        estimates = np.tile(sv.step_values(km.time, km.survival, data.grid), (len(time), 1))
        assert abs(sv.per_sample_losses(data, estimates)[members].sum() - sv.leaf_loss(data, members)) < 1e-12
    # Lemma 2.4/2.5: 0 ≤ ℰ_u ≤ KM loss of u, and any leaf of whole classes loses at least Σ ℰ_u.
    e = sv.equivalent_losses(data, sorted_classes)
    assert (e >= 0).all()
    for u in np.unique(sorted_classes):
        rows = np.flatnonzero(sorted_classes == u)
        assert e[rows].sum() <= sv.leaf_loss(data, rows) + 1e-12
    assert e.sum() <= sv.leaf_loss(data, np.arange(len(time))) + 1e-12
