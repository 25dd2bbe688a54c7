# Check the anytime behaviour: on any limit the best tree so far, a proved lower bound and a valid trace.
import numpy as np
import pytest

from solver.api import Limits, solve
from solver.testing import assert_bound_trace_valid
from tests.solver.gosdt.helpers import objective_of, shared


@pytest.mark.parametrize("objective", ["accuracy", "balanced_accuracy"])
def test_a_node_limit_returns_the_incumbent_with_a_proved_bound(objective):
    p = shared("tic-tac-toe")
    full = solve(p, "gosdt", {"objective": objective, "regularization": 0.005, "max_depth": 5})
    cut = solve(p, "gosdt", {"objective": objective, "regularization": 0.005, "max_depth": 5}, Limits(node_limit=3000))
    assert full.status == "optimal" and cut.status == "node_limit"
    assert cut.lower_bound <= full.objective + 1e-12 <= cut.objective + 2e-12
    assert cut.gap > 0
    assert abs(objective_of(cut.model, p, objective, 0.005) - cut.objective) < 1e-12
    assert_bound_trace_valid(cut.trace, cut.status)
    for column in ("graph_size", "queue_size", "expansions"):
        assert len(cut.trace[column]) == len(cut.trace["elapsed"])


def test_the_trace_closes_at_the_optimum():
    p = shared("car-evaluation")
    result = solve(p, "gosdt", {"regularization": 0.005, "max_depth": 5})
    assert result.status == "optimal"
    trace = result.trace
    assert_bound_trace_valid(trace, result.status)
    assert trace["lower_bound"][-1] == trace["upper_bound"][-1] == result.objective
    assert trace["upper_bound"][0] >= result.objective and trace["lower_bound"][0] <= result.objective
    assert np.all(np.diff(trace["graph_size"]) >= 0)


def test_a_cancelled_run_keeps_its_tree():
    p = shared("tic-tac-toe")
    result = solve(p, "gosdt", {"regularization": 0.002}, on_progress=lambda point: False)
    assert result.status == "cancelled"
    assert result.lower_bound <= result.objective
    assert abs(objective_of(result.model, p, "accuracy", 0.002) - result.objective) < 1e-12
