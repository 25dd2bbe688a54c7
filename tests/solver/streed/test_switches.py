"""Every combination of the bound switches gives the same optimum (and the same root front) (spec §7.4 item 3)."""

import itertools

import numpy as np
import pytest

from solver import api
from solver.testing import assert_bound_trace_valid
from tests.solver.streed.conftest import make_problem, root_front, run

SWITCHES = (
    "use_depth_two_solver",
    "use_upper_bound",
    "use_lower_bound",
    "use_similarity_lower_bound",
    "use_dataset_caching",
    "use_branch_caching",
)
COMBINATIONS = [dict(zip(SWITCHES, values)) for values in itertools.product((False, True), repeat=len(SWITCHES))]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, (70, 6))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(70) < 0.2)).astype(np.int64)
    return X, y, rng.integers(0, 2, 70), rng.normal(size=(70, 2)), rng.uniform(0.2, 0.8, 70)


def problems(data):
    X, y, group, predicted, propensity = data
    return {
        "accuracy": (make_problem(X, y), {}),
        "cost_sensitive": (make_problem(X, y), {}),
        "f1": (make_problem(X, y), {}),
        "demographic_parity": (make_problem(X, y, group=group), {}),
        "equality_of_opportunity": (make_problem(X, y, group=group), {}),
        "policy": (
            make_problem(X, treatment=y, outcome=predicted[:, 0]),
            {"outcomes": predicted, "propensity": propensity},
        ),
    }


@pytest.mark.parametrize(
    "task, depth, nodes",
    [
        (task, depth, nodes)
        for task in ("accuracy", "cost_sensitive", "f1", "demographic_parity", "equality_of_opportunity", "policy")
        for depth, nodes in ((3, None), (3, 4))
    ]
    + [("accuracy", 4, 5)],
)
def test_every_switch_combination_gives_the_same_optimum(data, task, depth, nodes):
    problem, options = problems(data)[task]
    params = {"objective": task, "max_depth": depth, "max_nodes": nodes, "delta": 0.1}
    outcomes = {}
    for switches in COMBINATIONS:
        search = run(problem, {**params, **switches}, **options)
        reported = round(float(search.upper_bound), 9)
        front = root_front(search) if search.task.p > 1 and not search.task.root_scalar else None
        outcomes.setdefault((reported, None if front is None else frozenset(front)), []).append(switches)
    assert len(outcomes) == 1, {k: v[:2] for k, v in outcomes.items()}


def test_trace_is_valid_and_anytime_result_has_a_status(data):
    # Check the bound trace of a full solve, and that a node limit stops early with a usable tree.
    X, y = data[0], data[1]
    problem = make_problem(X, y)
    result = api.solve(problem, "streed", {"objective": "accuracy", "max_depth": 4})
    assert result.status == "optimal" and result.lower_bound == result.objective
    assert_bound_trace_valid(result.trace, result.status)
    # A small depth-four root is one kernel call (terminal.DepthFourRoot): stop a depth-five search,
    # whose root and depth-four children are resumable, and compare it with that search's optimum.
    result = api.solve(problem, "streed", {"objective": "accuracy", "max_depth": 5})
    assert result.status == "optimal" and result.lower_bound == result.objective
    stopped = api.solve(
        problem,
        "streed",
        {"objective": "accuracy", "max_depth": 5, "use_lower_bound": False, "use_upper_bound": False},
        api.Limits(node_limit=3),
    )
    assert stopped.status == "node_limit"
    assert_bound_trace_valid(stopped.trace, stopped.status)
    assert stopped.objective >= result.objective and stopped.lower_bound <= result.objective
    assert stopped.model.n_nodes >= 1


def test_a_time_limit_returns_the_best_tree_so_far():
    # Check the anytime result: status time_limit, a valid trace, an objective no better than the optimum.
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (800, 24))  # depth 5: about 1.7 s to prove (a depth-four root is one 0.07 s kernel)
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2] ^ (rng.random(800) < 0.1)).astype(np.int64)
    problem = make_problem(X, y)
    params = {"objective": "f1", "max_depth": 5}
    stopped = api.solve(problem, "streed", params, api.Limits(time_limit=0.05))
    assert stopped.status == "time_limit"
    assert_bound_trace_valid(stopped.trace, stopped.status)
    best = api.solve(problem, "streed", params)
    assert stopped.objective >= best.objective - 1e-12 and stopped.lower_bound <= best.objective


@pytest.mark.parametrize("task", ["accuracy", "f1"])
def test_the_optimum_never_gets_worse_with_more_depth_or_nodes(data, task):
    # Check §7.3: the optimum is non-increasing in d and n, and n > 2^d − 1 equals n = 2^d − 1.
    problem, _ = problems(data)[task]
    values = {}
    for depth in (1, 2, 3):
        for nodes in range(0, 2**depth + 1):
            values[depth, nodes] = run(problem, {"objective": task, "max_depth": depth, "max_nodes": nodes}).upper_bound
    for (depth, nodes), value in values.items():
        if (depth, nodes + 1) in values:
            assert values[depth, nodes + 1] <= value + 1e-12
        if (depth + 1, nodes) in values:
            assert values[depth + 1, nodes] <= value + 1e-12
    assert values[2, 4] == values[2, 3] and values[3, 8] == values[3, 7]
