"""Solver kernels warm in the background of each worker process; pages show which algorithms are ready.

A fresh machine has an empty numba cache: compiling every kernel takes minutes.
The web server does not wait for it. Each Celery pool process compiles (or
loads from numba's on-disk cache) the kernels of every algorithm in a
low-priority thread, cheapest first, and reports each finished one in its
heartbeat row (``WorkerBeat.ready``). One file lock per algorithm makes the
processes of one machine take turns, so a kernel is compiled once and the
other processes load it from the cache. A run whose kernels are not ready
yet waits on its worker (the run page says so) and starts by itself.
"""

import fcntl
import logging
import os
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

log = logging.getLogger(__name__)

# Cheapest first, so that most algorithms are ready soon; measured compile times on an empty cache.
WARM_ORDER = ("cart", "osst", "corels", "gosdt", "osdt", "streed")
NICE = 10  # the warm thread yields the processor to web requests and running searches


def warm_order(names):
    """Return the algorithm names in warming order (unknown ones last, in their given order)."""
    rank = {name: i for i, name in enumerate(WARM_ORDER)}
    return sorted(names, key=lambda n: rank.get(n, len(rank)))


@contextmanager
def machine_lock(name):
    """Hold an exclusive lock shared by every process of this machine (a file in ``VAR_DIR``)."""
    folder = settings.VAR_DIR / "warm"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


_state = {"ready": [], "warming": []}  # this process's kernels: ready, and being compiled now (by any thread)
_state_lock = threading.Lock()


def is_ready(name):
    """Return True when this process has compiled (or loaded) the kernels of algorithm ``name``."""
    return name in _state["ready"]


def _mark(name, warming, report):
    with _state_lock:
        if warming:
            _state["warming"].append(name)
        else:
            _state["warming"].remove(name)
            if name not in _state["ready"]:
                _state["ready"].append(name)
        state = {"ready": list(_state["ready"]), "warming": list(_state["warming"])}
    if report:
        report(state)


def _report_to_beat(state):
    from corelsweb.runs.liveness import set_warm_state

    set_warm_state(state)


def ensure(name, report=_report_to_beat, stopwatch=None):
    """Compile (or load from the cache) algorithm ``name``'s kernels in this process unless ready; return the seconds.

    One compile per machine: the processes take turns through a file lock and the
    others load numba's cache. An error propagates (the caller's run fails with it).
    ``stopwatch`` (a run's ``solver.timing.Stopwatch``) laps the wait for the lock, which
    another process or this one's warming thread holds while it compiles, as ``compile_wait``
    and the compilation (or the load from the cache) as ``compiling``.
    """
    if is_ready(name):
        return 0.0
    from solver import api

    t0 = time.perf_counter()
    _mark(name, True, report)
    try:
        with machine_lock(name):
            if stopwatch is not None:
                stopwatch.lap("compile_wait")
            api.warm(name)
            if stopwatch is not None:
                stopwatch.lap("compiling")
    except BaseException:
        with _state_lock:
            _state["warming"].remove(name)
        raise
    _mark(name, False, report)
    return time.perf_counter() - t0


def warm_all(report=_report_to_beat, names=None):
    """Warm the kernels of ``names`` (default: every algorithm) in this process, cheapest first.

    ``report(state)`` is called before and after each one, with ``state`` =
    ``{"ready": [names], "warming": [names]}``. Returns the seconds each took.
    """
    from solver import registry

    seconds = {}
    for name in warm_order(list(names or registry.algorithms())):
        try:
            seconds[name] = ensure(name, report)
        except Exception:  # a kernel that fails to compile must not stop the others; its runs report the error
            log.exception("warming %s failed", name)
            continue
        log.warning("solver %s ready in %.1f s", name, seconds[name])
    return seconds


def start_in_background():
    """Start the low-priority thread that warms this pool process's kernels and reports them in its heartbeat."""

    def run():
        from django.db import connection

        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
        except (AttributeError, OSError):
            pass
        try:
            warm_all()
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="warm-solvers", daemon=True)
    thread.start()
    return thread


def readiness(now=None):
    """Return ``{"workers": n, "ready": set, "warming": set}`` over the worker processes alive now.

    An algorithm is ready when a live worker process has its kernels loaded.
    """
    from corelsweb.ops.models import WorkerBeat

    now = now or timezone.now()
    alive = WorkerBeat.objects.filter(last_seen__gte=now - timedelta(seconds=settings.CORELSWEB_STALE_SECONDS))
    ready, warming, n = set(), set(), 0
    for beat in alive.only("ready", "warming"):
        n += 1
        ready.update(beat.ready or [])
        warming.update(name for name in beat.warming.split(",") if name)
    return {"workers": n, "ready": ready, "warming": warming - ready}


def algorithm_state(name, state):
    """Return ``ready``, ``compiling``, ``waiting`` (kernels not started) or ``no-worker`` for one algorithm."""
    if state["workers"] == 0:
        return "no-worker"
    if name in state["ready"]:
        return "ready"
    return "compiling" if name in state["warming"] else "waiting"


STATE_WORDS = {
    "ready": "ready",
    "compiling": "compiling its kernels (first start only)",
    "waiting": "waiting to compile (first start only)",
    "no-worker": "no worker is running",
}


def algorithm_readiness(algorithms):
    """Return ``[(name, algorithm, state, words)]`` for ``[(name, algorithm)]``, with each one's readiness."""
    state = readiness()
    out = []
    for name, algorithm in algorithms:
        word = algorithm_state(name, state)
        out.append((name, algorithm, word, STATE_WORDS[word]))
    return out


def title_of(name):
    from solver import registry

    return registry.get(name).title if name in registry.algorithms() else name


def compiling_note(run):
    """Return what the worker of a compiling run has compiled so far and what it compiles now, in a sentence."""
    from corelsweb.ops.models import WorkerBeat

    beat = WorkerBeat.objects.filter(name=run.worker).only("ready", "warming").first()
    ready = [title_of(n) for n in warm_order((beat.ready or []) if beat else [])]
    also = [title_of(n) for n in (beat.warming.split(",") if beat and beat.warming else []) if n != run.algorithm]
    words = f"The worker is compiling the {title_of(run.algorithm)} kernels (first start only)"
    if also:
        words += f"; it is also compiling {', '.join(also)}"
    words += f"; compiled so far: {', '.join(ready) if ready else 'none yet'}. "
    return words + "The search, and its time limit, start by themselves when they are ready."


def queue_place(run):
    """Return a queued run's place in line in words ("" for a run that is not queued)."""
    from corelsweb.runs.queueing import place_in_line

    if run.status != "queued":
        return ""
    place, ahead = place_in_line(run)
    runs = "run was" if ahead == 1 else "runs were"
    return f"number {place} in line for the {run.queue} queue ({ahead} {runs} sent before it and wait)"


def queued_note(run):
    """Return a sentence when a queued run's kernels are not ready on any worker (or no worker runs), else ""."""
    word = algorithm_state(run.algorithm, readiness())
    if word == "no-worker":
        return "No worker is running: the run starts when one is (scripts/run starts them)."
    if word != "ready":
        return (
            f"The {title_of(run.algorithm)} kernels are still compiling on the workers (first start only); the run "
            "starts by itself when they are ready."
        )
    return ""


def run_wait_note(run):
    """Return a sentence when an active ``run`` waits for its solver's kernels (or for any worker), else ""."""
    if run.status == "compiling":
        return compiling_note(run)
    if run.status == "queued":
        return queued_note(run)
    return ""
