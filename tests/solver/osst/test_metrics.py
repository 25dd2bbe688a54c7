# Check the survival metrics (IBS, IBS ratio, Harrell's and Uno's C) against oracles and brute force.
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import survival as sv
from solver.models import Tree
from solver.survival_metrics import concordance_index, group_estimates, integrated_brier_score, tree_metrics
from tests.solver.osst.conftest import TOY_EVENT, TOY_TIME


def toy_tree():
    """The spec's 2-leaf toy tree: samples 1-3 in one leaf, 4-6 in the other (feature x0)."""
    curves = {}
    for leaf, rows in ((1, [0, 1, 2]), (2, [3, 4, 5])):
        curves[leaf] = sv.kaplan_meier(TOY_EVENT[rows], TOY_TIME[rows]).to_dict()
    tree = Tree(
        feature=[0, -1, -1],
        left=[1, -1, -1],
        right=[2, -1, -1],
        prediction=[0, 0, 1],
        counts=[[6, 4], [3, 2], [3, 2]],
        features=[{"kind": "binary", "column": "x0"}],
        classes=[],
        kind="survival",
        curves=curves,
    )
    X = np.array([[0], [0], [0], [1], [1], [1]], dtype=np.uint8)
    return tree, X


@pytest.mark.parametrize("ties", sv.TIES)
def test_toy_tree_concordance_is_four_fifths_and_a_single_leaf_scores_one_half(ties):
    tree, X = toy_tree()
    metrics = tree_metrics(tree, X, TOY_EVENT, TOY_TIME, ties=ties)
    assert abs(metrics["harrell_c"] - 0.8) < 1e-12
    assert abs(metrics["uno_c"] - 0.8) < 1e-12
    root = sv.kaplan_meier(TOY_EVENT, TOY_TIME)
    single = group_estimates([(root.time, root.survival)], np.unique(TOY_TIME))
    groups = np.zeros(6, dtype=np.int64)
    assert concordance_index(single, TOY_EVENT, TOY_TIME, groups=groups) == 0.5
    assert concordance_index(single, TOY_EVENT, TOY_TIME, groups=groups, ipcw=True, ties=ties) == 0.5


def test_toy_tree_ibs_and_ratio_are_the_spec_values():
    tree, X = toy_tree()
    metrics = tree_metrics(tree, X, TOY_EVENT, TOY_TIME)
    assert abs(metrics["ibs"] - 37 / 288) < 1e-15
    assert abs(metrics["root_ibs"] - 559 / 2592) < 1e-15
    assert abs(metrics["ibs_ratio"] - 0.404293) < 1e-6
    sksurv = tree_metrics(tree, X, TOY_EVENT, TOY_TIME, ties="sksurv")
    assert abs(sksurv["ibs"] - 29 / 216) < 1e-15
    assert abs(sksurv["ibs_ratio"] - 0.404336) < 1e-6
    # The ratio does not depend on the normaliser (spec §7.9).
    assert abs(tree_metrics(tree, X, TOY_EVENT, TOY_TIME, normalizer="max")["ibs_ratio"] - metrics["ibs_ratio"]) < 1e-12


def brute_concordance(estimates, event, time, weight):
    """Eq. 43/44 as the O(N²) double loop over pairs, estimates per sample at the unique times."""
    grid = np.unique(time)
    num = den = 0.0
    for i in range(len(time)):
        if not event[i]:
            continue
        k = np.searchsorted(grid, time[i])
        for j in range(len(time)):
            if time[i] < time[j]:
                den += weight[i]
                diff = estimates[j, k] - estimates[i, k]
                num += weight[i] * (0.5 if abs(diff) <= 1e-8 else float(diff > 0))
    return num / den if den else None


@st.composite
def predictions(draw):
    n = draw(st.integers(2, 12))
    time = np.array(draw(st.lists(st.integers(1, 6), min_size=n, max_size=n)), dtype=float)
    event = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    n_groups = draw(st.integers(1, 4))
    groups = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    steps = np.array(
        draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5]), min_size=n_groups * 6, max_size=n_groups * 6))
    ).reshape(n_groups, 6)
    curves = 1.0 - np.minimum(1.0, steps.cumsum(axis=1))  # non-increasing curves over times 1..6
    return event, time, groups, curves


@settings(max_examples=60, deadline=None)
@given(predictions(), st.sampled_from(sv.TIES))
def test_concordance_equals_the_pairwise_definition(case, ties):
    event, time, groups, curves = case
    grid = np.unique(time)
    estimates = curves[:, (grid - 1).astype(int)]
    per_sample = estimates[groups]
    harrell = concordance_index(estimates, event, time, groups=groups)
    assert harrell == pytest.approx(brute_concordance(per_sample, event, time, np.ones(len(time))), abs=1e-12)
    assert concordance_index(per_sample, event, time) == pytest.approx(harrell, abs=1e-12)
    weight = sv.inverse(sv.censoring_survival(event, time, time, ties)) ** 2
    uno = concordance_index(estimates, event, time, groups=groups, ipcw=True, ties=ties)
    assert uno == pytest.approx(brute_concordance(per_sample, event, time, weight), abs=1e-12)


def test_holdout_metrics_match_the_osst_package_without_tied_times():
    # osst's metrics are the paper's definitions; its pair search mishandles tied times, so use distinct times.
    from osst.model.metrics import integrated_brier_score as osst_ibs
    from osst.model.metrics import uno_c_index

    rng = np.random.default_rng(3)
    train_time, test_time = rng.permutation(400)[:150] + 1.0, rng.permutation(400)[:80] + 0.5
    train_event, test_event = rng.random(150) < 0.6, rng.random(80) < 0.6
    test_time = test_time[test_time < train_time.max()]
    test_event = test_event[: len(test_time)]
    grid = np.unique(test_time)
    groups = (test_time > 120).astype(np.int64)
    curves = [
        sv.kaplan_meier(train_event[train_time <= 200], train_time[train_time <= 200]),
        sv.kaplan_meier(train_event, train_time),
    ]
    estimates = group_estimates([(c.time, c.survival) for c in curves], grid)
    kwargs = {"train_event": train_event, "train_time": train_time}
    ours = integrated_brier_score(estimates, test_event, test_time, groups=groups, **kwargs)
    theirs = osst_ibs(train_event, train_time, test_event, test_time, estimates[groups], grid)
    assert ours == pytest.approx(theirs, rel=1e-12)
    ours_uno = concordance_index(estimates, test_event, test_time, groups=groups, ipcw=True, **kwargs)
    theirs_uno = uno_c_index(train_event, train_time, test_event, test_time, estimates[groups], grid)[0]
    assert ours_uno == pytest.approx(theirs_uno, rel=1e-12)


def test_holdout_ibs_ratio_uses_the_training_root_curve():
    tree, X = toy_tree()
    held_time, held_event = np.array([1.5, 2.5, 4.5, 3.0]), np.array([1, 0, 1, 1], bool)
    held_X = np.array([[0], [1], [1], [0]], dtype=np.uint8)
    metrics = tree_metrics(tree, held_X, held_event, held_time, train_event=TOY_EVENT, train_time=TOY_TIME)
    root = sv.kaplan_meier(TOY_EVENT, TOY_TIME)
    grid = np.unique(held_time)
    root_ibs = integrated_brier_score(
        group_estimates([(root.time, root.survival)], grid),
        held_event,
        held_time,
        groups=np.zeros(4, dtype=np.int64),
        train_event=TOY_EVENT,
        train_time=TOY_TIME,
    )
    assert metrics["root_ibs"] == pytest.approx(root_ibs, abs=1e-15)
    assert metrics["ibs_ratio"] == pytest.approx(1 - metrics["ibs"] / root_ibs, abs=1e-15)
    assert metrics["n_samples"] == 4 and metrics["events"] == 3
