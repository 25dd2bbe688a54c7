# Check the spec's worked examples (§7.2 c, d; §2.2; §2.8) for F-score, AUC_ch and pAUC_ch exactly.
from fractions import Fraction

import numpy as np
import pytest

from solver.gosdt.rank import kernels as rk
from solver.roc import auc_ch, f1_tree_loss, hull_points, pauc_ch
from tests.solver.gosdt_rank.helpers import counts_problem, leaf_counts, run

D3 = {
    "000": (0, 6),
    "001": (1, 2),
    "010": (1, 1),
    "011": (2, 0),
    "100": (0, 4),
    "101": (0, 1),
    "110": (3, 0),
    "111": (1, 1),
}

# Spec §7.2 (c): optimal objectives on D3 (N = 23, N⁺ = 8), found there by enumerating all 244 trees.
D3_OPTIMA = [
    ("f1", 0.01, {"cost_weight": 1.0}, Fraction(167, 850), [(7, 2), (1, 13)]),
    ("f1", 0.01, {"cost_weight": 2.0}, Fraction(167, 850), [(7, 2), (1, 13)]),
    ("f1", 0.03, {"cost_weight": 1.0}, Fraction(201, 850), [(7, 2), (1, 13)]),
    ("f1", 0.03, {"cost_weight": 2.0}, Fraction(201, 850), [(7, 2), (1, 13)]),
    ("auc", 0.01, {}, Fraction(5, 48), [(3, 0), (3, 1), (1, 1), (1, 3), (0, 10)]),
    ("auc", 0.03, {}, Fraction(71, 400), [(7, 2), (1, 3), (0, 10)]),
    ("pauc", 0.01, {"pauc_theta": 0.2}, Fraction(13879, 15600), [(3, 0), (3, 1), (1, 1), (1, 13)]),
    ("pauc", 0.03, {"pauc_theta": 0.2}, Fraction(14711, 15600), [(7, 2), (1, 13)]),
]


@pytest.mark.parametrize("objective, lam, extra, expected, leaves", D3_OPTIMA)
def test_it_finds_the_d3_optima(objective, lam, extra, expected, leaves):
    result = run(counts_problem(D3), objective=objective, regularization=lam, **extra)
    assert result.status == "optimal"
    assert abs(result.objective - float(expected)) < 1e-12
    pos, neg = leaf_counts(result.model)
    # The spec names the optimal leaves; the optimum is unique here (runner-up values are distinct).
    assert sorted(zip(pos.astype(int).tolist(), neg.astype(int).tolist())) == sorted(leaves)


# Spec §7.2 (d): leaves (3,1), (1,1), (0,4); N⁺ = 4, N⁻ = 6.
POS, NEG = np.array([3.0, 1.0, 0.0]), np.array([1.0, 1.0, 4.0])


def test_the_hull_arithmetic_of_the_spec():
    fpr, tpr, _ = hull_points(POS[::-1], NEG[::-1])
    assert np.allclose(fpr, [0, 1 / 6, 1 / 3, 1]) and np.allclose(tpr, [0, 3 / 4, 1, 1])
    assert auc_ch(POS, NEG) == pytest.approx(7 / 8, abs=1e-15)
    for theta, area in ((1 / 6, 1 / 16), (1 / 4, 25 / 192), (1 / 2, 3 / 8), (1.0, 7 / 8)):
        assert pauc_ch(POS, NEG, theta) == pytest.approx(area, abs=1e-15)
    assert pauc_ch(POS, NEG, 1 / 4) / (1 / 4) == pytest.approx(0.520833, abs=1e-6)


def test_the_kernels_agree_with_the_hull_arithmetic():
    for kind, theta, loss in ((rk.AUC, 1.0, 1 / 8), (rk.PAUC, 0.25, 1 - 25 / 192), (rk.PAUC, 1 / 6, 1 - 1 / 16)):
        assert rk.tree_loss(kind, POS, NEG, 4.0, 6.0, 1.0, theta) == pytest.approx(loss, abs=1e-15)


@pytest.mark.parametrize("omega, loss", [(1.0, 1 / 4), (2.0, 1 / 5), (0.5, 1 / 4)])
def test_the_f_score_of_the_omega_rule(omega, loss):
    assert f1_tree_loss(POS, NEG, omega) == pytest.approx(loss, abs=1e-15)
    assert rk.tree_loss(rk.F1, POS, NEG, 4.0, 6.0, omega, 1.0) == pytest.approx(loss, abs=1e-15)


def test_equation_4_on_the_spec_example():
    # Fixed {(3,1), (0,4)}, split leaf {(1,1)}: b = 1/16 + 3λ (no lookahead).
    lam = 0.01
    bounds, rules = np.empty(2), np.empty(2, np.int64)
    rk.entry_bounds(
        rk.AUC,
        POS,
        NEG,
        np.array([1]),
        np.zeros(1),
        np.zeros(2, np.int64),
        np.zeros(0),
        np.zeros(0),
        -np.inf,
        np.inf,
        lam,
        4.0,
        6.0,
        1.0,
        1.0,
        True,
        False,
        False,
        bounds,
        rules,
    )
    assert bounds[1] == pytest.approx(1 / 16 + 3 * lam, abs=1e-15)
    assert rules[1] == rk.KEPT


def test_the_safe_f_score_equivalent_points_bound_on_the_spec_counterexample():
    # Spec §2.8: a split leaf holding a mixed class (10+, 11−) and a pure one (50+, 0−); everything else perfect.
    pos, neg = np.array([60.0, 40.0, 0.0]), np.array([11.0, 0.0, 89.0])
    true_loss = rk.tree_loss(rk.F1, pos, neg, 100.0, 100.0, 1.0, 1.0)
    assert true_loss == pytest.approx(11 / 211, abs=1e-15)
    assert rk.f1_loss(0.0, 10.0, 100.0) > true_loss  # the paper's componentwise form would cut this tree
    bounds, rules = np.empty(2), np.empty(2, np.int64)
    rk.entry_bounds(
        rk.F1,
        pos,
        neg,
        np.array([0]),
        np.array([10.0]),
        np.zeros(2, np.int64),
        np.zeros(0),
        np.zeros(0),
        -np.inf,
        np.inf,
        0.0,
        100.0,
        100.0,
        1.0,
        1.0,
        True,
        False,
        True,
        bounds,
        rules,
    )
    assert bounds[1] == pytest.approx(10 / 210, abs=1e-15)
    assert bounds[1] <= true_loss


def test_a_one_leaf_tree_has_the_spec_values():
    p = counts_problem({"0": (3, 5), "1": (3, 5)})  # no split separates anything
    for objective, extra, loss in (("auc", {}, 0.5), ("pauc", {"pauc_theta": 0.3}, 1 - 0.3**2 / 2)):
        result = run(p, objective=objective, regularization=0.01, **extra)
        assert result.model.n_leaves == 1
        assert result.objective == pytest.approx(loss + 0.01, abs=1e-15)
