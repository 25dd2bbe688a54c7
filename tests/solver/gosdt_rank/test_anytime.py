# Check that a stopped search returns its best tree, a valid lower bound, the gap and a monotone bound trace.
import pytest

from solver import Limits, solve
from solver.testing import assert_bound_trace_valid
from tests.solver.gosdt_rank.helpers import model_objective, shared


@pytest.mark.parametrize("objective, extra", [("f1", {}), ("auc", {}), ("pauc", {"pauc_theta": 0.1})])
def test_a_node_limit_stops_with_the_best_tree_and_its_gap(objective, extra):
    p = shared("monk2")
    params = {"objective": objective, "regularization": 0.002, "max_depth": 4, **extra}
    result = solve(p, "gosdt", params, Limits(node_limit=3000))
    assert result.status == "node_limit"
    assert result.lower_bound < result.objective
    assert 0 < result.gap < 1
    assert_bound_trace_valid(result.trace, result.status)
    lam, theta = 0.002, extra.get("pauc_theta", 1.0)
    assert model_objective(result.model, objective, lam, theta=theta) == pytest.approx(result.objective, abs=1e-12)
    assert result.trace["queue_size"][-1] > 0


def test_a_cancelled_run_keeps_a_valid_bound():
    calls = []

    def cancel_after_three(point):
        calls.append(point)
        return len(calls) < 3

    result = solve(
        shared("monk2"),
        "gosdt",
        {"objective": "auc", "regularization": 0.001, "max_depth": 4},
        on_progress=cancel_after_three,
    )
    assert result.status == "cancelled"
    assert result.lower_bound <= result.objective
    assert_bound_trace_valid(result.trace, result.status)
