# Check the chunked driver: limits, cancellation, trace columns and budgets.
import math

from solver.driver import Limits, run


class CountingSearch:
    """A fake search that needs ``total`` nodes; the bounds close linearly."""

    finished_status = "optimal"

    def __init__(self, total, state=0):
        self.total, self.nodes, self.state = total, 0, state
        self.lower_bound, self.upper_bound = 0.0, math.inf
        self.budgets = []

    def step(self, budget):
        self.budgets.append(budget)
        self.nodes = min(self.total, self.nodes + budget)
        self.upper_bound = 1.0 - 0.5 * self.nodes / self.total
        self.lower_bound = 0.5 * self.nodes / self.total
        return self.nodes >= self.total

    def progress(self):
        return {"queue_size": self.total - self.nodes}

    def state_bytes(self):
        return self.state


class FakeClock:
    def __init__(self, step=0.01):
        self.t, self.step = 0.0, step

    def __call__(self):
        self.t += self.step
        return self.t


def test_it_runs_to_completion_and_records_a_trace():
    search = CountingSearch(10_000)
    out = run(search, clock=FakeClock())
    assert out.status == "optimal"
    trace = out.trace.columns
    assert set(trace) >= {"elapsed", "lower_bound", "upper_bound", "nodes", "memory", "queue_size"}
    assert len({len(v) for v in trace.values()}) == 1
    assert trace["upper_bound"][0] is None  # no incumbent at the start
    assert trace["lower_bound"][-1] == trace["upper_bound"][-1] == 0.5


def test_it_stops_at_the_node_limit():
    out = run(CountingSearch(10**9), Limits(node_limit=5_000), clock=FakeClock())
    assert out.status == "node_limit"


def test_it_stops_at_the_time_limit():
    out = run(CountingSearch(10**12), Limits(time_limit=1.0), clock=FakeClock(0.05))
    assert out.status == "time_limit"
    assert out.solve_seconds >= 1.0


def test_it_stops_at_the_memory_limit_from_state_bytes():
    out = run(CountingSearch(10**12, state=10**9), Limits(memory_limit=10**6), clock=FakeClock())
    assert out.status == "memory_limit"
    assert out.peak_memory_bytes >= 10**9


def test_on_progress_returning_false_cancels():
    calls = []

    def on_progress(point):
        calls.append(point)
        return len(calls) < 3

    out = run(CountingSearch(10**12), on_progress=on_progress, clock=FakeClock(0.2))
    assert out.status == "cancelled"
    assert calls[0]["status"] == "running"
    assert {"elapsed", "lower_bound", "upper_bound", "nodes"} <= set(calls[0])


def test_budgets_adapt_towards_the_target_step_length():
    search = CountingSearch(10**8)
    run(search, Limits(node_limit=10**8), clock=FakeClock(0.001))
    assert search.budgets[-1] > search.budgets[0]


def test_memory_error_in_a_step_ends_as_memory_limit():
    class Exploding(CountingSearch):
        def step(self, budget):
            raise MemoryError

    out = run(Exploding(10), clock=FakeClock())
    assert out.status == "memory_limit"


def test_the_trace_satisfies_the_bound_invariants():
    from solver.testing import assert_bound_trace_valid

    out = run(CountingSearch(50_000), clock=FakeClock())
    assert_bound_trace_valid(out.trace.columns, out.status)


def test_the_invariant_checker_catches_a_rising_upper_bound():
    import pytest

    from solver.testing import assert_bound_trace_valid

    with pytest.raises(AssertionError, match="upper bound increases at point 1"):
        assert_bound_trace_valid({"elapsed": [0, 1], "lower_bound": [0, 0], "upper_bound": [0.5, 0.6]})


def test_a_deferred_search_holds_its_interim_model_until_the_set_up_is_done():
    import threading

    from solver.background import DeferredSearch

    release = threading.Event()

    def begin():
        release.wait()
        return CountingSearch(1000)

    search = DeferredSearch(begin, "leaf", upper_bound=0.9, lower_bound=0.1)
    out = run(search, Limits(time_limit=0.3))
    assert out.status == "time_limit" and search.best_model() == "leaf"
    assert (search.lower_bound, search.upper_bound, search.nodes) == (0.1, 0.9, 0)
    release.set()
    out = run(search)
    assert out.status == "optimal" and search.nodes == 1000 and search.upper_bound == 0.5


def test_a_deferred_search_raises_what_its_set_up_raised():
    import pytest

    from solver.background import DeferredSearch

    def begin():
        raise ValueError("bad data")

    with pytest.raises(ValueError, match="bad data"):
        run(DeferredSearch(begin, "leaf", upper_bound=1.0))
