# Check that OSST's search returns proved optima: brute force, every switch combination, the spec's oracles.
import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solver import survival as sv
from solver.api import Limits, ProblemError, solve
from solver.best_tree import NO_SPLIT
from solver.osst.params import ALGORITHM
from solver.osst.search import OSSTSearch
from solver.problem import Problem
from solver.testing import assert_bound_trace_valid, assert_survival_curve_valid
from tests.oracles import best_additive, enumerate_trees
from tests.solver.osst.conftest import load_problem

SWITCHES = [p.name for p in ALGORITHM.params if p.group == "bounds"]


def make_problem(X, time, event):
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(X.shape[1])]
    return Problem(X=X, features=features, time=time, event=event)


def brute_force(problem, depth, lam, min_leaf, ties, normalizer):
    """Return the least objective over every tree of at most ``depth`` splits whose leaves hold ≥ min_leaf rows."""
    data = sv.prepare_loss(problem.event, problem.time, ties, normalizer)
    sorted_of_row = np.empty(problem.n_samples, dtype=np.int64)
    sorted_of_row[data.order] = np.arange(problem.n_samples)
    cache = {}

    def leaf_cost(rows):
        key = tuple(rows)
        if key not in cache:
            cache[key] = np.inf if len(rows) < min_leaf else sv.leaf_loss(data, sorted_of_row[rows]) + lam
        return cache[key]

    return best_additive(problem.X, leaf_cost, depth=depth)


def brute_force_by_enumeration(problem, depth, lam, min_leaf):
    """The same optimum by listing every tree (slower; checks ``brute_force`` itself)."""
    data = sv.prepare_loss(problem.event, problem.time)
    sorted_of_row = np.empty(problem.n_samples, dtype=np.int64)
    sorted_of_row[data.order] = np.arange(problem.n_samples)
    best = np.inf
    for leaves in enumerate_trees(problem.X, depth=depth):
        if len(leaves) > 1 and min(len(rows) for rows in leaves) < min_leaf:
            continue
        best = min(best, sum(sv.leaf_loss(data, sorted_of_row[rows]) + lam for rows in leaves))
    return best


def combos():
    return [dict(zip(SWITCHES, values)) for values in itertools.product((True, False), repeat=len(SWITCHES))]


@st.composite
def tiny_problems(draw):
    n = draw(st.integers(5, 12))
    m = draw(st.integers(2, 4))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=n * m, max_size=n * m)), dtype=np.uint8).reshape(n, m)
    time = np.array(draw(st.lists(st.integers(1, 6), min_size=n, max_size=n)), dtype=float)
    event = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return make_problem(X, time, event)


@settings(max_examples=120, deadline=None)
@given(
    tiny_problems(),
    st.integers(1, 3),
    st.sampled_from([0.0, 0.001, 0.01, 0.05]),
    st.integers(1, 2),
    st.sampled_from(sv.TIES),
    st.sampled_from(sv.NORMALIZERS),
)
def test_every_switch_combination_finds_the_brute_force_optimum(problem, depth, lam, min_leaf, ties, normalizer):
    assume(len(np.unique(problem.time)) >= 2)
    expected = brute_force(problem, depth, lam, min_leaf, ties, normalizer)
    base = {
        "max_depth": depth,
        "regularization": lam,
        "min_samples_leaf": min_leaf,
        "ipcw_ties": ties,
        "time_normalizer": normalizer,
    }
    for switches in combos():
        result = solve(problem, "osst", {**base, **switches})
        assert result.status == "optimal"
        assert abs(result.objective - expected) < 1e-12, (switches, result.objective, expected)
        assert result.lower_bound == result.objective
        assert result.model.depth <= depth
        if (ties, normalizer) == ("osst", "range"):  # the training metrics use the defaults
            assert abs(result.metrics["ibs"] + lam * result.model.n_leaves - result.objective) < 1e-12


@settings(max_examples=15, deadline=None)
@given(tiny_problems(), st.integers(1, 2), st.sampled_from([0.0, 0.01]), st.integers(1, 3))
def test_the_two_brute_force_oracles_agree(problem, depth, lam, min_leaf):
    assume(len(np.unique(problem.time)) >= 2)
    fast = brute_force(problem, depth, lam, min_leaf, "osst", "range")
    assert abs(fast - brute_force_by_enumeration(problem, depth, lam, min_leaf)) < 1e-12


def test_every_switch_combination_agrees_on_veterans():
    problem = load_problem("veterans")
    base = {"max_depth": 3, "regularization": 0.001, "min_samples_leaf": 1}
    objectives = set()
    for switches in combos():
        result = solve(problem, "osst", {**base, **switches})
        assert result.status == "optimal"
        assert_bound_trace_valid(result.trace, result.status)
        objectives.add(round(result.objective, 12))
    assert len(objectives) == 1 and abs(objectives.pop() - 0.062386) < 5e-7


def test_veterans_caption_eight_leaves_and_ibs_ratio_32_83_percent():
    # Spec §7.7 / paper Fig. 6: depth_budget 5 (≤ 4 split levels), λ = 0.0025, min leaf 1.
    problem = load_problem("veterans")
    result = solve(problem, "osst", {"max_depth": 4, "regularization": 0.0025, "min_samples_leaf": 1})
    tree = result.model
    assert result.status == "optimal" and tree.n_leaves == 8
    assert abs(result.metrics["ibs"] - 0.051367) < 5e-7
    assert abs(result.metrics["ibs_ratio"] - 0.328329) < 5e-7
    assert f"{100 * result.metrics['ibs_ratio']:.2f}" == "32.83"
    assert sorted(tree.counts[tree.is_leaf, 0].tolist(), reverse=True) == [75, 27, 22, 5, 2, 2, 2, 2]
    assert problem.features[tree.feature[0]]["column"] == "Celltype_squamous"
    for curve in tree.curves.values():
        assert_survival_curve_valid(curve)
    sksurv = solve(
        problem, "osst", {"max_depth": 4, "regularization": 0.0025, "min_samples_leaf": 1, "ipcw_ties": "sksurv"}
    )
    root_loss = sksurv.stats["root_leaf_objective"] - 0.0025
    assert sksurv.model.n_leaves == 8
    assert f"{1 - sksurv.stats['training_loss'] / root_loss:.4f}" == "0.3285"  # spec §7.7


# Spec §7.8 on the shared files: (data, depth, λ, m) -> osst/range (objective, H), osst/max, sksurv/max.
ORACLES = [
    ("veterans", 3, 0.01, 1, (0.086476, 1), (0.086400, 1), (0.086538, 1)),
    ("veterans", 3, 0.001, 1, (0.062386, 8), (0.062332, 8), (0.062425, 8)),
    ("veterans", 4, 0.0025, 1, (0.071367, 8), (0.071315, 8), (0.071392, 8)),
    ("veterans", 4, 0.0025, 7, (0.074017, 4), (0.073953, 4), (0.074056, 4)),
    ("gbsg2", 2, 0.001, 7, (0.184233, 3), (0.183688, 3), (0.183922, 3)),
    ("gbsg2", 3, 0.0005, 7, (0.173810, 8), (0.173299, 8), (0.173479, 8)),
    ("whas500", 2, 0.001, 7, (0.165557, 4), (0.165488, 4), (0.165508, 4)),
]


@pytest.mark.parametrize("name, depth, lam, m, osst_range, osst_max, sksurv_max", ORACLES)
def test_spec_solver_oracles(name, depth, lam, m, osst_range, osst_max, sksurv_max):
    problem = load_problem(name)
    base = {"max_depth": depth, "regularization": lam, "min_samples_leaf": m}
    for conventions, (objective, leaves) in (
        ({"ipcw_ties": "osst", "time_normalizer": "range"}, osst_range),
        ({"ipcw_ties": "osst", "time_normalizer": "max"}, osst_max),
        ({"ipcw_ties": "sksurv", "time_normalizer": "max"}, sksurv_max),
    ):
        result = solve(problem, "osst", {**base, **conventions})
        assert result.status == "optimal"
        assert abs(result.objective - objective) < 5e-7, (conventions, result.objective)
        assert result.model.n_leaves == leaves


def test_the_subset_bound_of_theorem_b7_does_not_hold_for_kaplan_meier_leaves():
    # Thm B.7 would keep split x0 (left loses no more, right holds a subset) and prune x1, which is better.
    time, event = np.array([1, 1, 2, 3, 4.0]), np.array([1, 0, 0, 0, 0], bool)
    X = np.array([[1, 1], [0, 1], [0, 0], [0, 0], [1, 1]], dtype=np.uint8)
    data = sv.prepare_loss(event, time)  # already in time order: sorted ids are the rows

    def leaf(rows):
        return sv.leaf_loss(data, rows)

    assert leaf([1, 2, 3]) <= leaf([2, 3])  # R(t1) ≤ R(T1), and t2 = {0, 4} ⊂ T2 = {0, 1, 4}
    split_x0, split_x1 = leaf([1, 2, 3]) + leaf([0, 4]), leaf([2, 3]) + leaf([0, 1, 4])
    assert split_x1 < split_x0 - 0.01
    result = solve(make_problem(X, time, event), "osst", {"max_depth": 1, "regularization": 0.0, "min_samples_leaf": 1})
    assert result.model.feature[0] == 1 and abs(result.objective - split_x1) < 1e-15


def test_anytime_stop_returns_valid_bounds_and_its_incumbent():
    problem = load_problem("whas500")
    params = {"max_depth": 4, "regularization": 0.001, "min_samples_leaf": 7}
    stopped = solve(problem, "osst", params, Limits(node_limit=3000))
    full = solve(problem, "osst", params)
    assert stopped.status == "node_limit" and full.status == "optimal"
    assert stopped.lower_bound <= full.objective + 1e-12 <= stopped.objective + 2e-12
    assert stopped.lower_bound < stopped.objective
    assert_bound_trace_valid(stopped.trace, stopped.status)
    assert_bound_trace_valid(full.trace, full.status)
    # The reported objective is the incumbent's: its training IBS + λ × leaves.
    model_objective = stopped.metrics["ibs"] + 0.001 * stopped.model.n_leaves
    assert abs(model_objective - stopped.objective) < 1e-12


def test_a_small_memo_grows_without_changing_the_answer():
    problem = load_problem("veterans")
    config = ALGORITHM.clean({"max_depth": 4, "regularization": 0.0025, "min_samples_leaf": 1})
    search = OSSTSearch(problem, config, memo_capacity=16)
    while not search.step(50):
        pass
    assert search.growths > 3
    assert abs(search.upper_bound - 0.071367) < 5e-7 and search.lower_bound == search.upper_bound


def test_each_best_split_records_the_subproblems_it_makes():
    # The tree is read by following these records (solver.best_tree), so they must survive the memo's growth too.
    problem = load_problem("veterans")
    config = ALGORITHM.clean({"max_depth": 3, "regularization": 0.001, "min_samples_leaf": 1})
    search = OSSTSearch(problem, config, memo_capacity=16)
    while not search.step(50):
        pass
    memo, cols = search.memo, search.data.cols
    nodes = np.flatnonzero(memo.split[: memo.count[0]] != NO_SPLIT)
    assert search.growths > 0 and len(nodes) > 1
    for v in nodes:
        j = memo.split[v]
        for child, bits in ((memo.left[v], memo.keys[v] & ~cols[j]), (memo.right[v], memo.keys[v] & cols[j])):
            assert (memo.keys[child] == bits).all() and memo.depth[child] == memo.depth[v] - 1, (v, j, child)


@settings(max_examples=25, deadline=None)
@given(tiny_problems(), st.integers(1, 3), st.sampled_from([0.0, 0.001, 0.01]))
def test_guessing_keeps_the_theorem_2_7_guarantee(problem, depth, lam):
    assume(len(np.unique(problem.time)) >= 2)
    params = {"max_depth": depth, "regularization": lam, "min_samples_leaf": 1}
    exact = solve(problem, "osst", params)
    guessed = solve(problem, "osst", {**params, "use_reference_bound": True})
    assert guessed.status == "heuristic" and guessed.lower_bound <= exact.objective + 1e-12
    assert_bound_trace_valid(guessed.trace)
    data = sv.prepare_loss(problem.event, problem.time)
    reference = per_sample(data, class_of_rows(problem.X[data.order]))
    optimal = per_sample(data, exact.model.apply(problem.X[data.order]))
    bound = lam * exact.model.n_leaves + np.maximum(reference, optimal).sum()  # Eq. 13
    assert guessed.objective <= bound + 1e-12
    assert guessed.objective >= exact.objective - 1e-12


def class_of_rows(X):
    return np.unique(X, axis=0, return_inverse=True)[1].reshape(-1)


def per_sample(data, group):
    """Return ℓ_i of every sorted sample under the KM curve of its group."""
    estimates = np.zeros((len(group), len(data.grid)))
    for g in np.unique(group):
        rows = np.flatnonzero(group == g)
        km = sv.kaplan_meier(data.event[rows] == 1, data.grid[data.kappa[rows]])
        estimates[rows] = sv.step_values(km.time, km.survival, data.grid)
    return sv.per_sample_losses(data, estimates)


def test_unusable_times_are_one_plain_sentence():
    X = np.zeros((3, 1), dtype=np.uint8)
    with pytest.raises(ProblemError, match="at least two distinct"):
        solve(make_problem(X, np.array([2.0, 2.0, 2.0]), np.array([1, 0, 1], bool)), "osst")
    with pytest.raises(ProblemError, match="negative"):
        solve(make_problem(X, np.array([2.0, -1.0, 3.0]), np.array([1, 0, 1], bool)), "osst")


def test_row_weights_are_refused_rather_than_ignored():
    X = np.zeros((3, 1), dtype=np.uint8)
    problem = Problem(
        X=X,
        features=[{"kind": "binary", "column": "x0"}],
        time=np.array([1.0, 2.0, 3.0]),
        event=np.array([1, 0, 1], bool),
        sample_weight=np.ones(3),
    )
    with pytest.raises(ProblemError, match="weights"):
        solve(problem, "osst")


def test_all_censored_data_gives_the_single_leaf():
    X = np.array([[0], [1], [0], [1]], dtype=np.uint8)
    result = solve(
        make_problem(X, np.array([1, 2, 3, 4.0]), np.zeros(4, bool)),
        "osst",
        {"regularization": 0.01, "min_samples_leaf": 1},
    )
    assert result.status == "optimal" and result.model.n_leaves == 1
    assert result.objective == pytest.approx(0.01) and result.metrics["ibs_ratio"] is None


@settings(max_examples=30, deadline=None)
@given(
    tiny_problems(),
    st.integers(1, 3),
    st.sampled_from([0.0, 0.005]),
    st.integers(0, 10_000),
    st.sampled_from([0.5, 3.0]),
    st.sampled_from([0.25, 7.0]),
)
def test_the_optimum_is_invariant_under_permutations_shifts_and_rescaling(problem, depth, lam, seed, shift, scale):
    # Spec §7.4: rows and columns may be permuted; times shifted (Z = range) or rescaled (either Z).
    assume(len(np.unique(problem.time)) >= 2)
    params = {"max_depth": depth, "regularization": lam, "min_samples_leaf": 1}
    base = solve(problem, "osst", params).objective
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(problem.n_samples), rng.permutation(problem.n_features)
    permuted = make_problem(problem.X[rows][:, cols], problem.time[rows], problem.event[rows])
    assert abs(solve(permuted, "osst", params).objective - base) < 1e-12
    shifted = make_problem(problem.X, problem.time + shift, problem.event)
    assert abs(solve(shifted, "osst", params).objective - base) < 1e-12
    for normalizer in sv.NORMALIZERS:
        reference = solve(problem, "osst", {**params, "time_normalizer": normalizer}).objective
        scaled = make_problem(problem.X, problem.time * scale, problem.event)
        assert abs(solve(scaled, "osst", {**params, "time_normalizer": normalizer}).objective - reference) < 1e-12
