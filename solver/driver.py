"""The chunked-search driver: a Python loop around a bounded search step.

A search object expands at most ``budget`` nodes per ``step`` and returns.
Between steps this loop records a trace point, calls ``on_progress``, and
enforces cancellation and the time, node and memory limits, so that every
solver can stop at any time with its best model and a valid lower bound.

A search object provides
------------------------
``step(budget) -> bool``
    Expand at most ``budget`` nodes; return True when the search is over
    (for an exact solver: optimality is proved).
``lower_bound``, ``upper_bound`` : float
    Valid bounds on the optimal objective; ``upper_bound`` is the objective
    of the incumbent (``inf`` before one exists).
``nodes`` : int
    Nodes evaluated so far.
``progress() -> dict``
    Extra trace columns (``queue_size``, ``graph_size``, ...), numbers only.
``best_model()``, ``stats() -> dict``
``finished_status`` : str
    Status when ``step`` returns True: ``optimal`` for exact solvers,
    ``heuristic`` for baselines that prove nothing.
``state_bytes() -> int`` (optional)
    Bytes held by the search's arrays, checked against the memory limit.
``problem`` (optional)
    The ``Problem`` whose columns the model's feature indices refer to, when
    the search built its own (CORELS' mined antecedents); training metrics
    are computed on it.
``extras() -> dict`` (optional)
    JSON-able output beyond the model (a Pareto front, ...), stored in
    ``Result.extras``.
``stop(deadline)`` (optional)
    Called by ``solver.api.solve`` once this loop has returned, before it reads
    the model and ``extras()``: work done after the search (the Rashomon
    set's report) must end by ``deadline`` (a ``time.perf_counter()`` value,
    None without a time limit) and say what it left out.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from solver.memory import current_rss, peak_since_reset, reset_peak

FINAL_STATUSES = ("optimal", "heuristic", "time_limit", "node_limit", "memory_limit", "cancelled")

# Aim for steps this long: short enough to cancel promptly, long enough that
# the Python loop costs nothing next to the kernel.
TARGET_STEP_SECONDS = 0.1
PROGRESS_INTERVAL_SECONDS = 0.25
TRACE_INTERVAL_SECONDS = 0.05
MAX_TRACE_POINTS = 4000


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run; ``None`` means unlimited.

    ``memory_limit`` is in bytes, counted as the growth of the process's
    resident memory since the search began (and the search's own arrays);
    ``solver.api.solve`` has the operating system enforce it too
    (``solver.memory.hard_limit``).
    """

    time_limit: float | None = None
    node_limit: int | None = None
    memory_limit: int | None = None

    def to_dict(self):
        return {"time_limit": self.time_limit, "node_limit": self.node_limit, "memory_limit": self.memory_limit}

    @classmethod
    def from_dict(cls, d):
        d = d or {}
        return cls(
            time_limit=None if d.get("time_limit") is None else float(d["time_limit"]),
            node_limit=None if d.get("node_limit") is None else int(d["node_limit"]),
            memory_limit=None if d.get("memory_limit") is None else int(d["memory_limit"]),
        )


class Trace:
    """Columns of (elapsed, lower_bound, upper_bound, nodes, memory, extras...)."""

    def __init__(self):
        self.columns = {}
        self.last_elapsed = -math.inf
        self.last_bounds = None

    def record(self, elapsed, search, memory, force=False):
        bounds = (search.lower_bound, search.upper_bound)
        changed = bounds != self.last_bounds
        if not force and not changed and elapsed - self.last_elapsed < TRACE_INTERVAL_SECONDS:
            return
        point = {
            "elapsed": elapsed,
            "lower_bound": _finite_or_none(search.lower_bound),
            "upper_bound": _finite_or_none(search.upper_bound),
            "nodes": int(search.nodes),
            "memory": int(memory),
        }
        point.update(search.progress())
        n = len(self.columns.get("elapsed", ()))
        for key, value in point.items():
            self.columns.setdefault(key, [None] * n).append(value)
        for key in set(self.columns) - set(point):
            self.columns[key].append(None)
        self.last_elapsed, self.last_bounds = elapsed, bounds
        if n + 1 > MAX_TRACE_POINTS:
            self._thin()

    def _thin(self):
        # Keep the first and last points and every other one in between, so a
        # long run keeps its whole shape in bounded space.
        n = len(self.columns["elapsed"])
        keep = list(range(0, n - 1, 2)) + [n - 1]
        self.columns = {k: [v[i] for i in keep] for k, v in self.columns.items()}

    def last(self):
        return {k: v[-1] for k, v in self.columns.items()} if self.columns else {}


def _finite_or_none(x):
    return float(x) if x is not None and math.isfinite(x) else None


@dataclass
class Outcome:
    status: str
    trace: Trace
    solve_seconds: float
    peak_memory_bytes: int
    steps: int


def run(search, limits=None, on_progress=None, clock=time.perf_counter, baseline=None):
    """Drive ``search`` until it finishes or a limit or cancellation stops it.

    Parameters
    ----------
    search : object
        See the module docstring.
    limits : Limits, optional
    on_progress : callable, optional
        Called with a dict (``elapsed``, bounds, ``nodes``, extras) at most
        every ``PROGRESS_INTERVAL_SECONDS``; returning ``False`` cancels.
    baseline : int, optional
        Resident bytes that memory is counted from (the caller's, taken with ``solver.memory.reset_peak``
        before the search was set up); now, when not given.

    Returns
    -------
    Outcome
        ``peak_memory_bytes``: the peak resident growth over ``baseline``, between steps and within them.
    """
    limits = limits or Limits()
    trace = Trace()
    if baseline is None:
        reset_peak()
        baseline = current_rss()
    start = clock()
    peak = 0
    budget = getattr(search, "initial_budget", 256)
    last_progress = -math.inf
    trace.record(0.0, search, 0, force=True)
    steps = 0
    status = None
    while status is None:
        t0 = clock()
        try:
            done = search.step(budget)
        except MemoryError:  # the operating system refused an allocation past the hard limit
            done, status = False, "memory_limit"
        steps += 1
        now = clock()
        elapsed = now - start
        memory = max(current_rss() - baseline, _state_bytes(search))
        peak = max(peak, memory)
        if done:
            status = search.finished_status
        elif status is None:
            status = _limit_reached(limits, search, elapsed, memory)
        trace.record(elapsed, search, memory, force=status is not None)
        if on_progress is not None and (status is not None or now - last_progress >= PROGRESS_INTERVAL_SECONDS):
            last_progress = now
            if on_progress(_progress(trace, status)) is False and status is None:
                status = "cancelled"
                trace.record(clock() - start, search, memory, force=True)
        budget = _next_budget(budget, now - t0)
    peak = max(peak, peak_since_reset() - baseline)
    return Outcome(status, trace, clock() - start, peak, steps)


def _limit_reached(limits, search, elapsed, memory):
    if limits.time_limit is not None and elapsed >= limits.time_limit:
        return "time_limit"
    if limits.node_limit is not None and search.nodes >= limits.node_limit:
        return "node_limit"
    if limits.memory_limit is not None and memory >= limits.memory_limit:
        return "memory_limit"
    return None


def _state_bytes(search):
    measure = getattr(search, "state_bytes", None)
    return int(measure()) if measure is not None else 0


def _progress(trace, status):
    point = trace.last()
    point["status"] = status or "running"
    return point


def _next_budget(budget, seconds):
    if seconds <= 0:
        return min(budget * 4, 1 << 30)
    factor = min(4.0, max(0.25, TARGET_STEP_SECONDS / seconds))
    return int(min(max(budget * factor, 16), 1 << 30))


PIECE_SECONDS = 0.05  # the aim for one piece of a kernel that works over ranges (``in_pieces``)


def in_pieces(total, run, first=1, clock=time.perf_counter):
    """Generator: call ``run(lo, hi)`` over consecutive ranges covering ``[0, total)``, yielding after each.

    For kernels whose work is a loop over independent items (root features, rows of a count table): each
    range is sized from the last one's time to take about ``PIECE_SECONDS`` (at most four times longer
    or shorter than the last), starting from ``first`` items, so a search's step returns to the driver
    between pieces and time limits and cancellation are checked (the anytime contract).
    """
    lo, size = 0, max(1, int(first))
    while lo < total:
        hi = min(total, lo + size)
        start = clock()
        run(lo, hi)
        seconds = clock() - start
        factor = 4.0 if seconds <= 0 else min(4.0, max(0.25, PIECE_SECONDS / seconds))
        size = max(1, int(size * factor))
        lo = hi
        yield
