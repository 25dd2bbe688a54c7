# Check the OSDT paper's published facts and the spec's exact oracles (spec §7.2–7.3, Table 2 and §6.2 counts).
import math

import numpy as np
import pytest

from solver import driver
from solver.osdt import bounds
from solver.osdt.data import prepare
from solver.osdt.params import ALGORITHM
from solver.osdt.search import OsdtSearch
from solver.osdt.state import P_LEAF_COUNT, P_PREFIX_LEAF_COUNT, make_cfg
from tests.solver.osdt.helpers import objective, problem, run, shared


class PaperOptimaCases:
    """Spec §7.2: R*, leaves and errors on the paper's binarized data (those OSDT proves in seconds)."""

    rows = [
        ("compas-osdt-binary", 0.025, 0.411083, 2, 2494),
        ("compas-osdt-binary", 0.01, 0.374868, 3, 2382),
        ("compas-osdt-binary", 0.007, 0.365773, 4, 2333),
        ("compas-osdt-binary", 0.005, 0.355969, 5, 2286),
        ("tic-tac-toe", 0.1, 0.446555, 1, 332),
        ("tic-tac-toe", 0.05, 0.396555, 1, 332),
        ("car-evaluation", 0.1, 0.399769, 1, 518),
        ("car-evaluation", 0.05, 0.294676, 3, 250),
        ("car-evaluation", 0.025, 0.219676, 3, 250),
        ("monk1", 0.1, 0.466129, 2, 33),
        ("monk1", 0.05, 0.338710, 5, 11),
        ("monk1", 0.025, 0.200000, 8, 0),
        ("monk2", 0.1, 0.478698, 1, 64),
        ("monk3", 0.1, 0.521311, 3, 27),
        ("monk3", 0.025, 0.272951, 6, 15),
    ]


@pytest.mark.parametrize("name, lam, optimum, leaves, errors", PaperOptimaCases.rows)
def test_it_proves_the_papers_optima(name, lam, optimum, leaves, errors):
    p = shared(name)
    result = run(p, regularization=lam)
    assert result.status == "optimal"
    assert abs(result.objective - optimum) < 1e-6
    assert result.model.n_leaves == leaves
    assert result.metrics["misclassifications"] == errors
    assert abs(objective(result.model, p, lam) - result.objective) < 1e-12


def test_figure_7_tree_on_compas():
    # λ = 0.007: splits age<26, priors>3 and priors=0, 4 leaves, 66.223 % (spec §6.5).
    result = run(shared("compas-osdt-binary"), regularization=0.007)
    used = {result.model.features[f]["column"] for f in result.model.feature if f >= 0}
    assert used == {"age:<26", "priors:>3", "priors:=0"}
    assert round(100 * result.metrics["accuracy"], 3) == 66.223


def test_no_tree_beats_the_equivalent_points_ceiling_on_compas():
    # Spec §5.1: 123 distinct feature vectors, minority mass 0.32257, so accuracy ≤ 67.743 %.
    prepared = prepare(shared("compas-osdt-binary"))
    assert prepared.n_points == 123
    assert round(prepared.minority / prepared.total, 5) == 0.32257


@pytest.mark.parametrize(
    "switches, warm_start, policy, nodes, nodes_to_optimum",
    [
        ({}, True, "curiosity", 232_402, 16_001),  # Table 2, all bounds
        ({"use_support_bound": False}, True, "curiosity", 279_763, 18_880),  # Table 2, no support bound
        ({"use_incremental_accuracy_bound": False}, True, "curiosity", 546_402, 21_686),  # Table 2
        ({"use_leaf_accuracy_bound": False}, True, "curiosity", 475_691, 19_676),  # Table 2, no accuracy bound
        ({}, False, "curiosity", 241_306, 18_195),  # spec §6.3, cold start
        ({}, False, "objective", 635_449, None),  # spec §6.2
        ({}, False, "lower_bound", 1_714_011, None),  # spec §6.2
    ],
)
def test_it_reproduces_the_papers_tree_counts_on_compas(switches, warm_start, policy, nodes, nodes_to_optimum):
    # The counts of Table 2 (Appendix I) and of the authors' code, replayed in its queue order.
    result = run(
        shared("compas-osdt-binary"),
        regularization=0.005,
        prune_when_queued=False,
        warm_start=warm_start,
        policy=policy,
        **switches,
    )
    assert abs(result.objective - 0.355969) < 1e-6
    assert result.stats["nodes"] == nodes
    if nodes_to_optimum is not None:
        assert result.stats["nodes_to_optimum"] == nodes_to_optimum


def test_symmetry_maps_are_used_on_compas():
    # T-E9: the tree cache and the leaf cache both find something already built.
    result = run(shared("compas-osdt-binary"), regularization=0.005, prune_when_queued=False)
    assert result.stats["tree_cache_hits"] >= 1
    assert result.stats["leaf_cache_hits"] >= 1


def te1():
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    return problem(np.column_stack([y, np.zeros(10), np.zeros(10)]), y)


def xor():
    X = np.repeat(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), 5, axis=0)
    return problem(X, X[:, 0] ^ X[:, 1])


def test_te1_the_printed_parent_bound_would_drop_the_root_split():
    # Theorem C.3 as printed (floor) prunes the root entry; the corrected form keeps it.
    p = te1()
    result = run(p, regularization=0.2, warm_start=False)
    assert abs(result.objective - 0.4) < 1e-12 and result.model.n_leaves == 2
    cfg = make_cfg(ALGORITHM.clean({"regularization": 0.2}), 3, 2)
    lam, incumbent, lower = 0.2, 0.3 + 0.2, 0.2  # root entry: R_c = root objective, b = λ
    assert bounds.pruning_rule(lower, lower, 1, 1, incumbent, lam, cfg) < 0
    assert 1 + 1 >= min(1 + math.floor((incumbent - lower) / lam), 2**3)  # what the paper's form would do


def test_te2_the_complete_tree_of_every_feature_is_allowed():
    # XOR needs 2^M = 4 leaves: the printed strict cap H' < 2^M would forbid it.
    result = run(xor(), regularization=0.01, warm_start=False)
    assert abs(result.objective - 0.04) < 1e-12 and result.model.n_leaves == 4
    cfg = make_cfg(ALGORITHM.clean({"regularization": 0.01}), 2, 4)
    # the depth-1 tree splitting both leaves: 2 + 2 = 4 = 2^M leaves, kept
    assert bounds.pruning_rule(0.02, 0.04, 2, 2, 0.51, 0.01, cfg) not in (P_PREFIX_LEAF_COUNT, P_LEAF_COUNT)


def test_te3_a_useless_first_split_is_forced_deeper_not_pruned():
    # The first XOR split gains nothing (a = 0 ≤ λ): Theorem 3.4 forces a further split.
    assert bounds.must_split_further(0.5, 0.25, 0.25, 0.01)
    for on in (True, False):
        result = run(xor(), regularization=0.01, use_incremental_accuracy_bound=on)
        assert abs(result.objective - 0.04) < 1e-12


def test_te4_the_a_priori_leaf_cap_is_one_more_than_printed():
    # Corollary C.2 printed: ⌊1/(2λ)⌋ = 1 leaf; the optimum has 2.
    result = run(problem([[0], [1]], [0, 1]), regularization=0.4)
    assert abs(result.objective - 0.8) < 1e-12 and result.model.n_leaves == 2


def test_te5_equivalent_points_bound_the_objective_from_below():
    x = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 0])
    p = problem(np.column_stack([x, np.zeros(10), np.ones(10)]), y)
    assert abs(prepare(p).minority / 10 - 0.3) < 1e-12
    for on in (True, False):
        result = run(p, regularization=0.05, use_equivalent_points_bound=on)
        assert abs(result.objective - 0.4) < 1e-12 and result.model.n_leaves == 2
        assert result.objective >= 0.3 + 0.05 * result.model.n_leaves - 1e-12


def test_te6_one_label_gives_the_root():
    p = problem(np.eye(4, dtype=np.uint8), [0, 0, 0, 0])
    search = OsdtSearch(p, ALGORITHM.clean({"regularization": 0.1}))
    assert driver.run(search).status == "optimal"
    assert abs(search.upper_bound - 0.1) < 1e-12 and search.best_model().n_leaves == 1


@pytest.mark.parametrize("lam", [0.5, 0.7])
def test_te7_a_large_penalty_gives_the_root(lam):
    p = shared("monk2")
    result = run(p, regularization=lam)
    assert result.model.n_leaves == 1
    assert abs(result.objective - (64 / 169 + lam)) < 1e-12


@pytest.mark.parametrize("name, lam", [("monk1", 0.05), ("compas-osdt-binary", 0.01)])
def test_te8_constant_and_copied_features_change_nothing(name, lam):
    p = shared(name)
    X = np.column_stack([p.X, np.zeros(p.n_samples), np.ones(p.n_samples), p.X[:, 3]])
    q = problem(X, p.y)
    assert abs(run(q, regularization=lam).objective - run(p, regularization=lam).objective) < 1e-12
