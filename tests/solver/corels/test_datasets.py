# Check CORELS on the shared datasets: the paper's COMPAS facts, agreement of every switch and policy, limits.
import itertools
import time

import numpy as np
import pytest

from conftest import shared_dataset
from solver import Limits, solve
from solver.corels import kernels as K
from solver.corels.objective import rule_list_errors
from solver.data import Roles, make_problem, read_file
from solver.predicates import evaluate_all
from solver.problem import Problem
from solver.testing import assert_bound_trace_valid
from tests.solver.corels.test_exhaustive import POLICIES, SWITCHES, run_search

SMALL = (
    "monk1.csv",
    "monk2.csv",
    "monk3.csv",
    "car-evaluation.csv",
    "tic-tac-toe.csv",
    "compas-corels-binary.csv",
    "hypothyroid.csv",
)
_cache = {}


def load(name, binarize="none"):
    if (name, binarize) not in _cache:
        table = read_file(shared_dataset(name))
        _cache[name, binarize] = make_problem(table, Roles(label=table.names[-1]), binarize)
    return _cache[name, binarize]


def recomputed_objective(result, problem_X, y, lam):
    errors, _, _, _ = rule_list_errors(problem_X, y, result.model.antecedents)
    return errors / len(y) + lam * result.model.length


def test_compas_has_the_certified_optimum_of_corels():
    # The corels/corels training fold at λ = 0.01 (datasets README, paper Fig 19's λ = 0.01 lists).
    problem = load("compas-corels-rules.csv")
    result = solve(problem, "corels", {"regularization": 0.01, "antecedents": "given"})
    assert result.status == "optimal"
    assert round(result.objective, 5) == 0.36797
    assert result.objective == pytest.approx(2258 / 6489 + 0.02, abs=1e-15)
    assert result.model.rule_texts() == ["sex:Male,juvenile-crimes:>0", "priors:>3"]
    assert result.model.predictions.tolist() == [1, 1] and result.model.default == 0
    assert round(result.metrics["accuracy"], 5) == 0.65203
    assert result.lower_bound == result.objective
    assert_bound_trace_valid(result.trace, result.status)
    assert {"queue_size", "trie_size", "pmap_size"} <= set(result.trace)


def test_the_papers_configuration_searches_as_table_4_reports():
    # Feature Set A (the 17 attribute values and their pairs; no charge degree) at λ = 0.005:
    # the optimum is the 4-rule list of CORELS' README for this fold, and the work falls within
    # Table 4's mean ± one std over the paper's folds (26 ± 15 M evaluations, 0.29 ± 0.2 M
    # insertions, maximum evaluated length 5).
    table = read_file(shared_dataset("compas-corels-rules.csv"))
    features = tuple(c for c in table.names[:-1] if "current-charge-degree" not in c)
    problem = make_problem(table, Roles(label=table.names[-1], features=features), "none")
    result = solve(problem, "corels", {"regularization": 0.005, "antecedents": "given"})
    assert result.status == "optimal" and problem.n_features == 119
    assert result.model.rule_texts() == ["age:23-25,priors:2-3", "age:18-20", "sex:Male,age:21-22", "priors:>3"]
    assert result.model.predictions.tolist() == [1, 1, 1, 1] and result.model.default == 0
    assert 11e6 <= result.stats["lower_bound_evaluations"] <= 41e6
    assert 0.09e6 <= result.stats["queue_insertions"] <= 0.49e6
    assert result.stats["max_evaluated_prefix_length"] == 5


def test_compas_at_a_large_penalty_is_priors_above_three():
    # Paper Fig 19: at λ = 0.02 every fold's optimal list is "priors > 3 → yes, else no".
    result = solve(load("compas-corels-rules.csv"), "corels", {"regularization": 0.02, "antecedents": "given"})
    assert result.status == "optimal"
    assert result.model.rule_texts() == ["priors:>3"] and result.model.default == 0


@pytest.mark.parametrize("name", SMALL)
def test_every_policy_and_every_switch_off_agree_on_a_shared_dataset(name):
    problem = load(name)
    base = {"regularization": 0.01, "antecedents": "given"}
    reference = solve(problem, "corels", base)
    assert reference.status == "optimal"
    variants = [{"policy": p} for p in POLICIES] + [{s: s == "use_captured_vector_map"} for s in SWITCHES]
    for variant in variants:
        result = solve(problem, "corels", {**base, **variant})
        assert result.status == "optimal", variant
        assert result.objective == reference.objective, (name, variant)
        assert recomputed_objective(result, problem.X, problem.y, 0.01) == pytest.approx(result.objective, abs=1e-12)
        assert_bound_trace_valid(result.trace, result.status)


@pytest.mark.parametrize("name", SMALL)
def test_every_switch_combination_agrees_on_the_first_columns_of_a_shared_dataset(name):
    # The full product of the switches includes "no pruning at all" (an enumeration of every
    # ordered prefix), so it runs on the first 7 columns; each policy takes a fifth of the product.
    full = load(name)
    problem = Problem(X=full.X[:, :7], features=full.features[:7], y=full.y, classes=full.classes)
    for lam in (0.0, 0.02):
        base = {"regularization": lam, "antecedents": "given"}
        reference = run_search(problem, base).counters[K.BEST]
        for i, values in enumerate(itertools.product([False, True], repeat=len(SWITCHES))):
            params = {**base, **dict(zip(SWITCHES, values)), "policy": POLICIES[i % len(POLICIES)]}
            assert run_search(problem, params).counters[K.BEST] == reference, (name, params)


def test_mined_antecedents_agree_across_policies():
    problem = load("compas-osdt-binary.csv")
    # Pairs of clauses (the default is single clauses since issue 21), so that conjunctions are mined.
    results = [solve(problem, "corels", {"regularization": 0.01, "policy": p, "max_clauses": 2}) for p in POLICIES]
    assert all(r.status == "optimal" for r in results)
    assert len({r.objective for r in results}) == 1
    model = results[0].model
    assert any(model.features[j]["kind"] in ("and", "not") for j in model.antecedents)  # mined predicates
    table = read_file(shared_dataset("compas-osdt-binary.csv"))
    raw = model.predict(table.columns)  # the predicates, evaluated on the raw rows
    assert np.mean(raw == problem.y) == pytest.approx(results[0].metrics["accuracy"], abs=1e-12)


SLOW = {"regularization": 0.01, "max_clauses": 2}  # mined pairs: far longer than the limits below


def slow_problem():
    # Mined antecedents (with pairs) on tic-tac-toe at λ = 0.01 take far longer than the limits below.
    return load("tic-tac-toe.csv", "exact")


def test_a_time_limited_run_returns_a_valid_rule_list_and_bound():
    problem = slow_problem()
    result = solve(problem, "corels", SLOW, Limits(time_limit=1.0))
    assert result.status == "time_limit"
    assert result.lower_bound <= result.objective
    assert_bound_trace_valid(result.trace, result.status)
    table = read_file(shared_dataset("tic-tac-toe.csv"))
    X = evaluate_all(result.model.features, table.columns)
    y = problem.y
    errors, labels, default, counts = rule_list_errors(X, y, result.model.antecedents)
    assert result.objective == pytest.approx(errors / len(y) + 0.01 * result.model.length, abs=1e-12)
    assert (result.model.predictions == labels).all() and result.model.default == default
    assert (result.model.counts == counts).all()


def test_node_and_memory_limits_stop_the_search():
    problem = slow_problem()
    by_nodes = solve(problem, "corels", SLOW, Limits(node_limit=20_000))
    assert by_nodes.status == "node_limit" and by_nodes.lower_bound <= by_nodes.objective
    by_memory = solve(problem, "corels", SLOW, Limits(memory_limit=8 * 2**20))
    assert by_memory.status == "memory_limit" and by_memory.lower_bound <= by_memory.objective


def test_a_cancelled_run_stops_within_a_second():
    asked = []

    def on_progress(point):
        if point["elapsed"] < 0.5:
            return True
        asked.append(time.perf_counter())
        return False

    result = solve(slow_problem(), "corels", SLOW, on_progress=on_progress)
    stopped = time.perf_counter()
    assert result.status == "cancelled"
    assert stopped - asked[0] < 1.0
    assert result.lower_bound <= result.objective and result.model.length >= 0


def test_the_regularization_path_is_monotone():
    # Spec §7.3.6: a larger λ never lowers R* nor lengthens the optimal list.
    problem = load("compas-corels-binary.csv")
    results = [
        solve(problem, "corels", {"regularization": lam, "antecedents": "given"})
        for lam in (0.0, 0.002, 0.005, 0.01, 0.02, 0.05)
    ]
    objectives = [r.objective for r in results]
    lengths = [r.model.length for r in results]
    assert objectives == sorted(objectives)
    assert lengths == sorted(lengths, reverse=True)
    for r in results:  # Proposition 19: R* ≥ Σθ + λK
        floor = r.stats["equivalent_points_share"] + r.params["regularization"] * r.model.length
        assert r.objective >= floor - 1e-12


def test_weights_other_than_equal_are_refused():
    from solver.api import ProblemError

    problem = load("monk1.csv")
    weighted = Problem(
        X=problem.X,
        features=problem.features,
        y=problem.y,
        classes=problem.classes,
        sample_weight=np.linspace(1, 2, problem.n_samples),
    )
    with pytest.raises(ProblemError, match="no row weights"):
        solve(weighted, "corels", {"antecedents": "given"})


# Check a search whose queue outgrows its memory budget sets the worse half aside and goes on, its structures
# kept near the budget, its bound valid, and claims optimality only when it is proved (Feature Set A at
# λ = 0.005 queues 200,000 prefixes, about 26 MB, against a 16 MB budget here).
def test_a_queue_past_its_memory_budget_is_set_aside_with_a_valid_bound():
    table = read_file(shared_dataset("compas-corels-rules.csv"))
    features = tuple(c for c in table.names[:-1] if "current-charge-degree" not in c)
    problem = make_problem(table, Roles(label=table.names[-1], features=features), "none")
    result = solve(problem, "corels", {"regularization": 0.005, "antecedents": "given", "queue_memory": 16})
    optimum = 0.34809
    assert result.stats["set_aside_prefixes"] > 0
    assert result.stats["queue_memory_budget_bytes"] == 16 << 20
    assert "filled their 16 MB of queue memory" in result.extras["set_aside"]["note"]
    assert result.extras["set_aside"]["floor"] >= result.lower_bound
    assert result.lower_bound <= optimum + 5e-6 and result.objective >= optimum - 5e-6
    assert result.status in ("optimal", "memory_limit")
    if result.status == "optimal":
        assert round(result.objective, 5) == optimum and result.lower_bound == result.objective
    else:
        assert result.lower_bound < result.objective
    assert_bound_trace_valid(result.trace, result.status)
