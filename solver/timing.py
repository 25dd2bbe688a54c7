"""Where a fit's time went: consecutive stages on one clock, so that the stages sum to the total.

A ``Stopwatch`` is handed along a fit (the command line, ``solver.pipeline``, ``solver.api.solve``, and on the web
a run's worker and its forked solve). Each ``lap(stage)`` adds the time since the previous lap to ``stage``: no
moment is counted twice or left out. The clock is ``time.perf_counter`` (on Linux the machine's monotonic clock,
the same in a forked child), so a stopwatch can be carried across a fork and lapped on the other side.

``split()`` returns the JSON form a result carries as ``timing`` (``docs/result-schema.md``).
"""

from __future__ import annotations

import time

# Every stage, in the order a run goes through them, with the words the pages use.
STAGES = (
    ("queued", "waiting for a worker"),
    ("compile_wait", "waiting for the compilation"),
    ("compiling", "compiling the solver"),
    ("reading", "reading the data"),
    ("preparing", "preparing"),
    ("searching", "searching"),
    ("evaluating", "evaluating"),
    ("storing", "storing"),
)
STAGE_NAMES = tuple(name for name, _ in STAGES)


class Stopwatch:
    """Laps of one clock: each stage starts where the previous one ended."""

    def __init__(self, clock=time.perf_counter, mark=None):
        self.clock = clock
        self.mark = clock() if mark is None else mark  # the end of the last lap
        self.seconds = dict.fromkeys(STAGE_NAMES, 0.0)

    def lap(self, stage):
        """Add the time since the last lap to ``stage``; return it."""
        if stage not in self.seconds:
            raise KeyError(f"unknown stage {stage!r}")
        now = self.clock()
        spent = now - self.mark
        self.seconds[stage] += spent
        self.mark = now
        return spent

    def state(self):
        """Return the stopwatch as plain values (to send it to another process)."""
        return {"mark": self.mark, "seconds": dict(self.seconds)}

    @classmethod
    def from_state(cls, state, clock=time.perf_counter):
        watch = cls(clock, state["mark"])
        watch.seconds.update(state["seconds"])
        return watch

    def total(self):
        return sum(self.seconds.values())

    def split(self, **before):
        """Return ``{"stages": {stage: seconds}, "total_seconds": float}``; ``before`` adds stages timed elsewhere."""
        stages = dict(self.seconds)
        for stage, seconds in before.items():
            if stage not in stages:
                raise KeyError(f"unknown stage {stage!r}")
            stages[stage] += seconds
        return {"stages": stages, "total_seconds": sum(stages.values())}


def rows(timing):
    """Return ``[(stage, words, seconds, fraction of the total)]`` of a stored ``timing`` (empty when there is none)."""
    stages = (timing or {}).get("stages") or {}
    if not stages:
        return []
    total = float((timing or {}).get("total_seconds") or 0.0)
    return [
        (name, words, float(stages.get(name, 0.0)), float(stages.get(name, 0.0)) / total if total > 0 else 0.0)
        for name, words in STAGES
    ]


def summary_line(timing):
    """Return the split in one line of text: ``12.3 s: searching 10.0 s (81 %), …`` (stages that took time)."""
    parts = [f"{words} {seconds:.2f} s ({fraction:.0%})" for _, words, seconds, fraction in rows(timing) if seconds > 0]
    return f"{float(timing['total_seconds']):.2f} s in all: " + ", ".join(parts)
