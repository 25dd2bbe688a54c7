# Check that every combination of the bound switches proves the same optimum, with a valid bound trace.
import itertools

import numpy as np
import pytest

from solver import driver
from solver.gosdt.rank import kernels as rk
from solver.gosdt.params import ALGORITHM
from solver.gosdt.rank.search import RankSearch
from solver.roc import auc_ch, f1_loss
from solver.testing import assert_bound_trace_valid
from tests.solver.gosdt_rank.helpers import SWITCHES, problem, shared


def solve_directly(p, **params):
    search = RankSearch(p, ALGORITHM.clean(params))
    outcome = driver.run(search)
    return search, outcome


def tiny_problem(seed, n, positive_rate):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4)).astype(np.uint8)
    score = X @ rng.normal(size=4) + rng.normal(scale=0.7, size=n)
    y = (score > np.quantile(score, 1 - positive_rate)).astype(np.int64)
    return problem(X, y)


CASES = [("f1", {"cost_weight": 1.0}), ("f1", {"cost_weight": 3.0}), ("auc", {}), ("pauc", {"pauc_theta": 0.2})]


@pytest.mark.parametrize("objective, extra", CASES)
@pytest.mark.parametrize("seed, n, rate, lam", [(1, 40, 0.3, 0.005), (2, 30, 0.15, 0.02)])
def test_every_switch_combination_gives_the_same_optimum(objective, extra, seed, n, rate, lam):
    p = tiny_problem(seed, n, rate)
    reference, _ = solve_directly(p, objective=objective, regularization=lam, max_depth=3, **extra)
    for values in itertools.product((True, False), repeat=len(SWITCHES)):
        switches = dict(zip(SWITCHES, values))
        search, outcome = solve_directly(p, objective=objective, regularization=lam, max_depth=3, **extra, **switches)
        setup = ", ".join(f"{k}={v}" for k, v in switches.items() if not v) or "all bounds on"
        assert outcome.status == "optimal", setup
        assert abs(search.upper_bound - reference.upper_bound) < 1e-12, f"{setup}: {search.upper_bound}"
        assert_bound_trace_valid(outcome.trace.columns, outcome.status)


@pytest.mark.parametrize("objective, extra", CASES)
def test_turning_off_one_bound_keeps_the_optimum_on_real_data(objective, extra):
    p = shared("monk1")
    params = dict(objective=objective, regularization=0.02, max_depth=2, **extra)
    reference, _ = solve_directly(p, **params)
    for switch in SWITCHES:
        search, outcome = solve_directly(p, **params, **{switch: False})
        assert outcome.status == "optimal", switch
        assert abs(search.upper_bound - reference.upper_bound) < 1e-12, switch


def random_tree(rng, h):
    pos = rng.integers(0, 6, size=h).astype(float)
    neg = rng.integers(0, 6, size=h).astype(float)
    pos[0], neg[-1] = pos[0] + 1, neg[-1] + 1
    return pos, neg


@pytest.mark.parametrize("seed", range(30))
def test_the_auc_incremental_progress_is_the_gain_of_two_pure_children(seed):
    # Theorem C.2 (Eq. 37): τ = AUC with leaf j replaced by a pure positive and a pure negative leaf − AUC.
    rng = np.random.default_rng(seed)
    pos, neg = random_tree(rng, 5)
    j = int(rng.integers(0, 5))
    purified_p = np.r_[np.delete(pos, j), pos[j], 0.0]
    purified_n = np.r_[np.delete(neg, j), 0.0, neg[j]]
    gain = auc_ch(purified_p, purified_n) - auc_ch(pos, neg)
    tau = rk.incremental_progress(rk.AUC, pos, neg, 5, j, pos.sum(), neg.sum(), 1.0)
    assert tau == pytest.approx(gain, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_the_incremental_progress_bounds_the_gain_in_every_refinement(seed):
    # τ̄ of a new leaf bounds the gain of purifying it after the other new leaves are split further.
    rng = np.random.default_rng(seed)
    pos, neg = random_tree(rng, 5)
    n_old, j, omega = 2, 3, float(rng.choice([0.5, 1.0, 2.0]))
    P, N = pos.sum(), neg.sum()
    for kind in (rk.F1, rk.AUC):
        tau = rk.incremental_progress(kind, pos, neg, n_old, j, P, N, omega)
        for _ in range(20):
            # Split every other new leaf into two random parts.
            parts_p, parts_n = list(pos[:n_old]) + [pos[j]], list(neg[:n_old]) + [neg[j]]
            for w in range(n_old, 5):
                if w != j:
                    a, b = rng.integers(0, pos[w] + 1), rng.integers(0, neg[w] + 1)
                    parts_p += [a, pos[w] - a]
                    parts_n += [b, neg[w] - b]
            lp, ln = np.array(parts_p, float), np.array(parts_n, float)
            at = n_old
            merged = rk.tree_loss(kind, lp, ln, P, N, omega, 1.0)
            pure = rk.tree_loss(
                kind, np.r_[np.delete(lp, at), lp[at], 0.0], np.r_[np.delete(ln, at), 0.0, ln[at]], P, N, omega, 1.0
            )
            assert merged - pure <= tau + 1e-12, (kind, merged - pure, tau)
    assert f1_loss(1.0, 1.0, 4.0) == pytest.approx(0.25)
