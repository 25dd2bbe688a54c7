"""What a run needs compiled: the solvers' kernels in units, and which units each algorithm and run needs.

A unit is a group of kernels compiled together by solving tiny problems (the searches'
``warmup`` pieces), so that every kernel and every type combination a run uses is in
the on-disk kernel cache afterwards. Units are the grain of warming: the processes of a
host take different units at the same time (``warm``, one lock file per unit), and a run
waits only for the units its own settings use (``units_for``): a GOSDT run for accuracy
never waits for the F1/AUC search, a STreeD run for accuracy never for the F1 fronts.

This module defines no kernel and never names their compiler, so that editing it leaves the kernel
cache's folder (a hash of the files that do) unchanged.
"""

from __future__ import annotations

import fcntl
import gc
import importlib
import time
from contextlib import contextmanager
from pathlib import Path

# unit -> "module:function" that compiles (or loads) its kernels; cheapest first within each algorithm.
UNITS = {
    "cart": "solver.cart.search:warmup",
    "osst": "solver.osst.search:warmup",
    "corels": "solver.compiling:warm_corels",
    "ordered": "solver.compiling:warm_ordered",
    "gosdt-dpb": "solver.gosdt.dpb.search:warmup",
    "gosdt-rank": "solver.gosdt.rank.search:warmup",
    "rashomon": "solver.rashomon.search:warmup_set",
    "osdt": "solver.compiling:warm_osdt",
    "streed": "solver.streed.search:warmup_scalar",
    "streed-f1": "solver.streed.search:warmup_f1",
}

# unit -> CPU seconds it takes to compile from an empty cache on a quiet 2-core machine (bench/compile.py's per-unit
# CPU, 2026-11-29 07:16, two processes, load 0.9-1.8): the schedule reads only their order and sums.
UNIT_SECONDS = {
    "cart": 1.3,
    "osst": 12.7,
    "corels": 14.6,
    "ordered": 35.0,
    "gosdt-dpb": 9.0,
    "gosdt-rank": 4.7,
    "osdt": 23.2,
    "streed": 39.6,
    "streed-f1": 11.2,
    "rashomon": 11.5,
}
QUICK_SECONDS = 15.0  # an algorithm whose units compile within this is warmed before the long units

# algorithm -> every unit any of its runs may need (its readiness on a page means all of them).
ALGORITHM_UNITS = {
    "cart": ("cart",),
    "osst": ("osst",),
    "corels": ("corels",),
    "gosdt": ("ordered", "gosdt-dpb", "gosdt-rank"),
    "rashomon": ("ordered", "gosdt-dpb", "gosdt-rank", "rashomon"),
    "osdt": ("osdt",),
    "streed": ("ordered", "streed", "streed-f1"),
}


def warm_corels():
    """CORELS' search kernels, and the bit count its statistics take of the whole data."""
    import numpy as np

    from solver import bitset
    from solver.corels.search import warmup

    warmup()
    bitset.count(np.zeros(1, np.uint64))


def warm_ordered():
    """The ordered search's kernels, the root bound a run reads once it lasts, and the rehash of its cache."""
    import numpy as np

    from solver.ordered import cache, kernel
    from solver.ordered.engine import Engine
    from solver.ordered.search import warmup

    warmup()
    # The engine reads the root's bound only after a while (engine.LOWER_BOUND_AFTER): the tiny warm-up may not.
    rng = np.random.default_rng(0)
    engine = Engine(rng.integers(0, 9, size=(2, 40)), rng.random((40, 2)), 3)
    engine.step(1)
    kernel.root_lower_bound(engine.params, engine.state, engine.inputs.rank.shape[0])
    old = (
        np.zeros(0, np.uint64),
        np.zeros(0, np.uint64),
        np.zeros((0, 4), np.int32),
        np.zeros(0),
        np.zeros(0, np.uint8),
    )
    cache.rehash(*old, *(a.copy() for a in old))


def warm_osdt():
    """OSDT's search kernels, and the rebuilt tables of its leaf and tree stores when a long run grows them."""
    from solver.osdt import leaves, trees
    from solver.osdt.search import warmup

    warmup()
    leaves.grow_leaves(leaves.make_leaves(4, 1, 8), 0, 8, 16)
    trees.grow_trees(trees.make_trees(4, 4, 8), 0, 0, 8, 8, 16)


# Kernels that no run calls: one-call forms of what the searches do in pieces, which the tests compare them with.
OUTSIDE_RUNS = {
    "solver.bitset.count_and",
    "solver.bitset.weighted_sum",
    "solver.streed.depth_two.solve",
    "solver.streed.depth_two.solve_fewest_first",
    "solver.streed.f1_fronts.solve_f1",
}


def schedule(algorithms):
    """Return the units of ``algorithms`` (given cheapest first) in the order a host's processes warm them.

    The units of the quick algorithms (all their units within ``QUICK_SECONDS``) come first, in the given
    order, so that those are ready within seconds. The other units follow longest first: each process
    takes the next free unit, and longest-first makes the processes end together (list scheduling)
    instead of one starting the longest unit last while the others have nothing left.
    """
    quick = [a for a in algorithms if sum(UNIT_SECONDS[u] for u in ALGORITHM_UNITS[a]) <= QUICK_SECONDS]
    units = list(dict.fromkeys(u for a in quick for u in ALGORITHM_UNITS[a]))
    rest = {u for a in algorithms for u in ALGORITHM_UNITS[a]} - set(units)
    return units + sorted(rest, key=lambda u: (-UNIT_SECONDS[u], u))


def units_for(algorithm, config=None):
    """Return the units a run of ``algorithm`` with cleaned parameters ``config`` uses (all of them if None)."""
    units = ALGORITHM_UNITS[algorithm]
    if config is None:
        return units
    if algorithm in ("gosdt", "rashomon"):
        from solver.gosdt.rank.params import NON_ADDITIVE

        units = ("gosdt-rank",) if config["objective"] in NON_ADDITIVE else ("ordered", "gosdt-dpb")
        return units + ("rashomon",) if algorithm == "rashomon" else units  # the set's graph kernels
    if algorithm == "streed":
        return units if config["objective"] == "f1" else ("ordered", "streed")
    return units


_done = set()  # units compiled or loaded in this process


def is_warm(unit):
    return unit in _done


def warm_unit(unit):
    """Compile (or load from the cache) ``unit``'s kernels in this process unless done; return the seconds."""
    if unit in _done:
        return 0.0
    t0 = time.perf_counter()
    module, name = UNITS[unit].split(":")
    getattr(importlib.import_module(module), name)()
    _done.add(unit)
    # Compiling leaves hundreds of thousands of long-lived objects (the compiler's types and caches); move them out
    # of the collector's reach so that the first solve does not pay a full collection over them (tens of ms).
    gc.collect()
    gc.freeze()
    return time.perf_counter() - t0


@contextmanager
def _lock(folder, unit, wait):
    # One lock file per unit shared by a host's processes: who holds it compiles, the others load its cache after.
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{unit}.lock", "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def warm(units, lock_dir, first=None, on_start=None, on_unit=None, on_error=None):
    """Warm ``units`` in this process, taking turns with the host's other processes; return seconds per unit.

    A unit another process is compiling is skipped for now and taken after the free ones
    (by then it is usually in the cache, and loads in a second): so two processes compile
    two different units at once instead of one waiting on the other. ``first()``, asked
    before each unit, may return units to put at the front (those of runs that wait);
    ``on_start(unit)`` and ``on_unit(unit, seconds)`` are called before and after each. A unit that
    fails raises, or with ``on_error(unit, exception)`` is reported and left out.
    """
    pending, seconds, lock_dir = list(dict.fromkeys(units)), {}, Path(lock_dir)
    while pending:
        if first:
            urgent = [u for u in first() if u in pending]
            pending = list(dict.fromkeys(urgent + pending))
        # A free unit now; when all left are being compiled elsewhere, wait for the first one's lock.
        try:
            taken = _take(pending, lock_dir, False, seconds, on_start) or _take(
                pending, lock_dir, True, seconds, on_start
            )
        except UnitError as e:
            if on_error is None:
                raise e.__cause__ from None
            on_error(e.unit, e.__cause__)
            pending.remove(e.unit)
            continue
        pending.remove(taken)
        if on_unit:
            on_unit(taken, seconds[taken])
    return seconds


class UnitError(Exception):
    def __init__(self, unit):
        super().__init__(unit)
        self.unit = unit


def _take(pending, lock_dir, wait, seconds, on_start):
    for unit in pending if not wait else pending[:1]:
        if unit in _done:
            if on_start:
                on_start(unit)
            seconds[unit] = 0.0
            return unit
        with _lock(lock_dir, unit, wait) as held:
            if held:
                if on_start:
                    on_start(unit)
                try:
                    seconds[unit] = warm_unit(unit)
                except Exception as e:
                    raise UnitError(unit) from e
                return unit
    return None
