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


def warm_all(report=None, names=None):
    """Warm the kernels of ``names`` (default: every algorithm) in this process, cheapest first.

    ``report(state)`` is called before and after each one, with ``state`` =
    ``{"ready": [names], "warming": name or ""}``. Returns the seconds each took.
    """
    from solver import api, registry

    state = {"ready": [], "warming": ""}
    seconds = {}
    for name in warm_order(list(names or registry.algorithms())):
        state["warming"] = name
        if report:
            report(state)
        t0 = time.perf_counter()
        try:
            with machine_lock(name):
                api.warm(name)
        except Exception:  # a kernel that fails to compile must not stop the others; its runs report the error
            log.exception("warming %s failed", name)
        seconds[name] = time.perf_counter() - t0
        state["ready"].append(name)
        log.warning("solver %s ready in %.1f s", name, seconds[name])
    state["warming"] = ""
    if report:
        report(state)
    return seconds


def start_in_background():
    """Start the low-priority thread that warms this pool process's kernels and reports them in its heartbeat."""
    from corelsweb.runs import lifecycle

    def run():
        from django.db import connection

        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
        except (AttributeError, OSError):
            pass
        try:
            warm_all(report=lifecycle.set_warm_state)
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
        if beat.warming:
            warming.add(beat.warming)
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


def run_wait_note(run):
    """Return a sentence when ``run`` waits for its solver's kernels (or for any worker), else ""."""
    from corelsweb.ops.models import WorkerBeat
    from solver import registry

    title = registry.get(run.algorithm).title if run.algorithm in registry.algorithms() else run.algorithm
    if run.status == "running" and not run.progress:
        beat = WorkerBeat.objects.filter(name=run.worker).only("ready").first()
        if beat is not None and run.algorithm not in (beat.ready or []):
            return (
                f"The worker is compiling the {title} kernels (first start only); the search starts by itself "
                "when they are ready."
            )
        return ""
    if run.status != "queued":
        return ""
    word = algorithm_state(run.algorithm, readiness())
    if word == "no-worker":
        return "No worker is running: the run starts when one is (scripts/run starts them)."
    if word != "ready":
        return (
            f"The {title} kernels are still compiling on the workers (first start only); the run starts by "
            "itself when they are ready."
        )
    return ""
