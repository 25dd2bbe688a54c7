# Check CORELS against brute force over every rule list on tiny random data, and the spec's worked example.
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import solve
from solver.corels import kernels as K
from solver.corels.objective import exact_regularization, rule_list_errors, scaled_objective
from solver.corels.search import CorelsSearch
from solver.problem import binary_problem as problem_of
from solver.registry import get
from solver.testing import assert_bound_trace_valid
from tests.solver.corels.brute import best_rule_list

SWITCHES = (
    "use_hierarchical_bound",
    "use_lookahead_bound",
    "use_length_bound",
    "use_minimum_support_bound",
    "use_accurate_support_bound",
    "use_equivalent_points_bound",
    "use_permutation_map",
    "use_captured_vector_map",
    "use_garbage_collection",
)
POLICIES = ("lower_bound", "curiosity", "objective", "bfs", "dfs")
LAMBDAS = (0.0, 0.001, 0.01, 0.02, 0.025, 0.05, 0.1, 1 / 12, 1 / 6, 0.2, 0.25, 1 / 3, 0.5, 0.75)


def binary_problem(A, y):
    return problem_of(A, y, prefix="a")


def run_search(problem, params):
    """Run CORELS to the end without the driver (fast for many tiny solves); return the search."""
    search = CorelsSearch(problem, get("corels").clean(params))
    while not search.step(1 << 30):
        pass
    return search


def exact_objective(A, y, search):
    """Return the scaled objective of the search's rule list, recomputed from scratch."""
    prefix = search.best_antecedents()
    errors, _, _, _ = rule_list_errors(np.asarray(A), np.asarray(y), prefix)
    return scaled_objective(errors, len(prefix), search.data)


@st.composite
def tiny_data(draw, max_rows=40, max_antecedents=8):
    n = draw(st.integers(2, max_rows))
    m = draw(st.integers(0, max_antecedents))
    density = draw(st.sampled_from([0.1, 0.3, 0.5, 0.8]))
    bits = draw(st.lists(st.floats(0, 1), min_size=n * m, max_size=n * m))
    A = (np.array(bits).reshape(n, m) < density).astype(np.uint8)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[1] = 0, 1  # two classes, as solve() requires
    return A, y


@st.composite
def switches(draw):
    return {name: draw(st.booleans()) for name in SWITCHES} | {"policy": draw(st.sampled_from(POLICIES))}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tiny_data(max_antecedents=8), lam=st.sampled_from(LAMBDAS), config=switches(), max_length=st.integers(1, 3))
def test_it_matches_brute_force_with_at_most_three_rules(data, lam, config, max_length):
    A, y = data
    search = run_search(
        binary_problem(A, y), {"regularization": lam, "antecedents": "given", "max_length": max_length, **config}
    )
    lam_num, scale = exact_regularization(lam, len(y))
    best, prefix = best_rule_list(A, y, lam_num, scale, max_length)
    found = int(search.counters[K.BEST])
    assert found == best, f"{config}: CORELS {found} vs brute force {best} ({prefix})"
    assert exact_objective(A, y, search) == found
    assert search.lower_bound == search.upper_bound
    assert abs(search.upper_bound - best / (scale * len(y))) <= 1e-12


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tiny_data(max_antecedents=6), lam=st.sampled_from(LAMBDAS), config=switches())
def test_it_matches_brute_force_over_every_length(data, lam, config):
    A, y = data
    result = solve(binary_problem(A, y), "corels", {"regularization": lam, "antecedents": "given", **config})
    lam_num, scale = exact_regularization(lam, len(y))
    best, prefix = best_rule_list(A, y, lam_num, scale)
    assert result.status == "optimal"
    assert abs(result.objective - best / (scale * len(y))) <= 1e-12, f"{config}: brute force {prefix}"
    assert result.lower_bound == result.objective
    assert_bound_trace_valid(result.trace, result.status)
    errors, labels, default, _ = rule_list_errors(A, y, result.model.antecedents)
    assert (result.model.predictions == labels).all() and result.model.default == default
    assert result.metrics["misclassifications"] == errors


# The 12-row example of spec §7.1, with its exact optima (checked there by brute force).
WORKED_A = np.array(
    [
        [0, 1, 0, 1],
        [0, 0, 1, 0],
        [0, 1, 0, 1],
        [0, 0, 1, 0],
        [0, 0, 1, 1],
        [1, 0, 0, 1],
        [0, 1, 0, 0],
        [1, 0, 1, 0],
        [0, 0, 1, 0],
        [1, 1, 1, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
    ]
)
WORKED_Y = np.array([1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0])


def data_worked_example():
    """(λ, R* as a fraction, rule list antecedents or None when tied)."""
    return [
        (0.0, Fraction(1, 12), None),
        (0.01, Fraction(31, 300), [2, 3]),
        (0.02, Fraction(37, 300), [2, 3]),
        (0.05, Fraction(11, 60), [2, 3]),
        (0.1, Fraction(4, 15), [3]),
        (1 / 6, Fraction(1, 3), None),
        (0.2, Fraction(1, 3), []),
        (0.25, Fraction(1, 3), []),
        (1 / 3, Fraction(1, 3), []),
    ]


@pytest.mark.parametrize("lam,optimum,rules", data_worked_example())
def test_the_worked_example_has_its_known_optima(lam, optimum, rules):
    result = solve(binary_problem(WORKED_A, WORKED_Y), "corels", {"regularization": lam, "antecedents": "given"})
    assert result.status == "optimal"
    assert result.objective == pytest.approx(float(optimum), abs=1e-15)
    if rules is not None:
        assert result.model.antecedents.tolist() == rules
    if rules == [2, 3]:
        assert result.model.predictions.tolist() == [0, 1] and result.model.default == 0


def test_every_switch_combination_and_policy_solves_the_worked_example():
    # Check the full product of the bound switches (and every policy) at three regularizations.
    problem = binary_problem(WORKED_A, WORKED_Y)
    for lam, optimum, _ in (data_worked_example()[i] for i in (0, 2, 4)):
        for values in itertools.product([False, True], repeat=len(SWITCHES)):
            for policy in POLICIES:
                params = dict(zip(SWITCHES, values), policy=policy, regularization=lam, antecedents="given")
                search = run_search(problem, params)
                scale_n = search.data.scale * search.data.n
                assert Fraction(int(search.counters[K.BEST]), scale_n) == optimum, params


def test_a_child_whose_lookahead_fails_still_improves_the_incumbent():
    # Twenty rows, 8 positive; the one antecedent captures the 8 positives and 5 negatives. Its
    # one-rule list (0.35) beats the empty list (0.4) although b + λ = 0.45 ≥ 0.4.
    A = np.array([[1]] * 13 + [[0]] * 7)
    y = np.array([1] * 8 + [0] * 12)
    result = solve(binary_problem(A, y), "corels", {"regularization": 0.1, "antecedents": "given"})
    assert result.objective == pytest.approx(0.35) and result.model.antecedents.tolist() == [0]


# Check a search that sets prefixes aside (as it does when its trie, queue and map fill their memory budget) keeps
# a valid lower bound, and claims optimality only when the list it returns is the brute-force optimum.
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tiny_data(max_antecedents=7), lam=st.sampled_from(LAMBDAS), config=switches())
def test_setting_prefixes_aside_keeps_the_bound_valid(data, lam, config):
    A, y = data
    search = CorelsSearch(
        binary_problem(A, y), get("corels").clean({"regularization": lam, "antecedents": "given", **config})
    )
    while not search.step(8):
        search._set_aside()
    lam_num, scale = exact_regularization(lam, len(y))
    best, prefix = best_rule_list(A, y, lam_num, scale)
    found = int(search.counters[K.BEST])
    assert search._lower <= best <= found
    assert exact_objective(A, y, search) == found
    if search.finished_status == "optimal":
        assert found == best and search._lower == found
