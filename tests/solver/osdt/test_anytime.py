# Check that OSDT stops on any limit or cancellation with its best tree, a valid lower bound and a valid trace.
import numpy as np

from solver import Limits, solve
from solver.osdt.params import ALGORITHM
from solver.osdt.search import OsdtSearch
from solver.testing import assert_bound_trace_valid
from tests.solver.osdt.helpers import objective, shared

OPTIMUM_MONK3_001 = 0.155574  # spec §7.2; OSDT needs minutes to prove it


def test_a_node_limit_returns_the_incumbent_and_a_lower_bound():
    p = shared("monk3")
    result = solve(p, "osdt", {"regularization": 0.01}, Limits(node_limit=20_000))
    assert result.status == "node_limit"
    assert result.lower_bound <= OPTIMUM_MONK3_001 + 1e-6 and result.objective >= OPTIMUM_MONK3_001 - 1e-6
    assert result.lower_bound < result.objective
    assert abs(objective(result.model, p, 0.01) - result.objective) < 1e-9
    assert_bound_trace_valid(result.trace, result.status)
    for column in ("queue_size", "tree_cache_size", "leaf_cache_size", "nodes"):
        assert len(result.trace[column]) == len(result.trace["elapsed"])


def test_a_time_limit_returns_a_valid_partial_result():
    result = solve(shared("tic-tac-toe"), "osdt", {"regularization": 0.01}, Limits(time_limit=1.0))
    assert result.status == "time_limit"
    assert result.stats["steps"] > 1
    assert result.lower_bound <= 0.250752 + 1e-6  # spec §7.2
    assert_bound_trace_valid(result.trace, result.status)


def test_cancel_returns_the_best_tree_so_far():
    calls = []

    def on_progress(point):
        calls.append(point)
        return len(calls) < 3

    result = solve(shared("tic-tac-toe"), "osdt", {"regularization": 0.01}, on_progress=on_progress)
    assert result.status == "cancelled"
    assert result.model.n_leaves >= 1 and result.lower_bound <= result.objective


def test_each_step_returns_quickly_for_a_large_budget():
    # step(budget) is bounded by its budget: one unit is a pop, a child tree or a split set.
    search = OsdtSearch(shared("tic-tac-toe"), ALGORITHM.clean({"regularization": 0.005}))
    for _ in range(5):
        before = search.nodes
        search.step(20_000)
        assert search.nodes - before <= 20_000


def test_lower_bound_never_exceeds_the_optimum_along_the_way():
    p = shared("compas-osdt-binary")
    search = OsdtSearch(p, ALGORITHM.clean({"regularization": 0.005, "prune_when_queued": False}))
    seen = []
    while not search.step(2_000):
        seen.append((search.lower_bound, search.upper_bound))
    lows = np.array([s[0] for s in seen])
    assert (np.diff(lows) >= -1e-12).all() and (lows <= 0.355969 + 1e-6).all()
    assert search.lower_bound == search.upper_bound
