"""Solver kernels warm in the background of each worker process; pages show which algorithms are ready.

A fresh machine has an empty numba cache: compiling every kernel takes minutes.
The web server does not wait for it. Each Celery pool process compiles (or
loads from numba's on-disk cache) the warm units of every algorithm
(``solver.compiling``) in a low-priority thread: the quick algorithms first,
then the long units longest first (so that the processes of a host end
together), the units of the runs waiting in the queue before the others; it reports each
algorithm whose units are all ready in its heartbeat row (``WorkerBeat.ready``).
One lock file per unit shares the work among the processes of one machine: a
process skips a unit that another is compiling and takes it last (it then loads
from the cache), so two processes compile two units at once. A run whose
kernels are not ready yet waits on its worker (the run page says so) and starts
by itself; it waits only for the units its own settings use.
"""

import logging
import os
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

log = logging.getLogger(__name__)

# Cheapest first, so that most algorithms are ready soon (solver.compiling.UNIT_SECONDS: compile times on an empty
# cache); the units of the long ones are then taken longest first (solver.compiling.schedule).
WARM_ORDER = ("cart", "osst", "corels", "gosdt", "osdt", "streed")
NICE = 10  # the warm thread yields the processor to web requests and running searches


def warm_order(names):
    """Return the algorithm names in warming order (unknown ones last, in their given order)."""
    rank = {name: i for i, name in enumerate(WARM_ORDER)}
    return sorted(names, key=lambda n: rank.get(n, len(rank)))


def lock_dir():
    """Return the folder of the lock files that a machine's processes share while warming (in ``VAR_DIR``)."""
    return settings.VAR_DIR / "warm"


_state = {"ready": [], "warming": []}  # this process's algorithms: ready, and with a unit being compiled now
_state_lock = threading.Lock()


def _config(name, params):
    # The cleaned parameters say which units a run uses; invalid ones (the run fails with their message) need all.
    from solver import registry

    try:
        return None if params is None else registry.get(name).clean(params)
    except Exception:
        return None


def is_ready(name, params=None):
    """Return True when this process has the kernels of algorithm ``name`` (those a run with ``params`` uses)."""
    from solver import compiling

    return all(compiling.is_warm(u) for u in compiling.units_for(name, _config(name, params)))


def _algorithms_of(unit):
    from solver import compiling

    return [name for name, units in compiling.ALGORITHM_UNITS.items() if unit in units]


def _lapped(stopwatch, on_start, on_unit):
    """Return ``on_start``, ``on_unit`` that first lap ``stopwatch``: the wait for a unit, then its compilation."""

    def start(unit):
        stopwatch.lap("compile_wait")
        on_start(unit)

    def done(unit, seconds):
        stopwatch.lap("compiling")
        on_unit(unit, seconds)

    return start, done


def _reporter(report):
    """Return ``on_start(unit)``, ``on_unit(unit, seconds)`` that keep ``_state`` and report it."""
    from solver import compiling

    def publish():
        with _state_lock:
            state = {"ready": list(_state["ready"]), "warming": list(_state["warming"])}
        if report:
            report(state)

    def on_start(unit):
        with _state_lock:
            for name in _algorithms_of(unit):
                if name not in _state["warming"] and name not in _state["ready"]:
                    _state["warming"].append(name)
        publish()

    def on_unit(unit, seconds):
        with _state_lock:
            for name in _algorithms_of(unit):
                if all(compiling.is_warm(u) for u in compiling.ALGORITHM_UNITS[name]):
                    if name in _state["warming"]:
                        _state["warming"].remove(name)
                    if name not in _state["ready"]:
                        _state["ready"].append(name)
        publish()

    return on_start, on_unit


def _report_to_beat(state):
    from corelsweb.runs.liveness import set_warm_state

    set_warm_state(state)


def ensure(name, params=None, report=_report_to_beat, stopwatch=None):
    """Compile (or load from the cache) the kernels a run of ``name`` with ``params`` uses, unless ready; return seconds.

    The processes of a machine share the work through one lock file per unit (``solver.compiling.warm``):
    a unit is compiled once and the others load it from the kernel cache. An error propagates (the caller's
    run fails with it). ``stopwatch`` (a run's ``solver.timing.Stopwatch``) laps the wait for a unit's lock,
    which another process or this one's warming thread holds while it compiles, as ``compile_wait``, and the
    compilation (or the load from the cache) as ``compiling``.
    """
    from solver import compiling

    units = compiling.units_for(name, _config(name, params))
    if all(compiling.is_warm(u) for u in units):
        return 0.0
    t0 = time.perf_counter()
    on_start, on_unit = _reporter(report)
    if stopwatch is not None:
        on_start, on_unit = _lapped(stopwatch, on_start, on_unit)
    try:
        compiling.warm(units, lock_dir(), on_start=on_start, on_unit=on_unit)
    finally:
        with _state_lock:
            if name in _state["warming"] and not is_ready(name):
                _state["warming"].remove(name)
    return time.perf_counter() - t0


def warm_units(names):
    """Return the units of algorithms ``names`` in warming order: the quick algorithms' first, then longest first."""
    from solver import compiling

    return compiling.schedule(warm_order(names))


def warm_all(report=_report_to_beat, names=None, first=None):
    """Warm the kernels of ``names`` (default: every algorithm) in this process, in ``warm_units`` order.

    Units that another process of this machine is compiling are taken last (loaded from the cache
    by then), so the processes compile different units in parallel. ``first()`` returns units to
    warm before the others (those of the runs that wait). ``report(state)`` is called before and after
    each unit, with ``state`` = ``{"ready": [names], "warming": [names]}``. Returns the seconds per unit.
    """
    from solver import compiling, registry

    def failed(unit, error):  # a unit that fails to compile must not stop the others; its runs report the error
        log.error("warming %s failed", unit, exc_info=error)

    on_start, on_unit = _reporter(report)
    units = warm_units(list(names or registry.algorithms()))
    return compiling.warm(units, lock_dir(), first=first, on_start=on_start, on_unit=on_unit, on_error=failed)


def waiting_units(limit=20):
    """Return the units that the oldest runs waiting (queued, or compiling on a worker) use, oldest run first."""
    from corelsweb.runs.models import Run
    from solver import compiling

    units = []
    waiting = Run.objects.filter(status__in=(Run.Status.QUEUED, Run.Status.COMPILING)).order_by("created")
    try:
        rows = list(waiting.values_list("algorithm", "params")[:limit])
    except Exception:  # the database away for a moment: warm in the usual order
        log.warning("warming: could not read the waiting runs", exc_info=True)
        return []
    for algorithm, params in rows:
        if algorithm in compiling.ALGORITHM_UNITS:
            units.extend(compiling.units_for(algorithm, _config(algorithm, params)))
    return list(dict.fromkeys(units))


def start_in_background():
    """Start the low-priority thread that warms this pool process's kernels and reports them in its heartbeat.

    Before each unit it looks at the runs that wait, and compiles their units first.
    """

    def run():
        from django.db import connection

        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
        except (AttributeError, OSError):
            pass
        try:
            warm_all(first=waiting_units)
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
