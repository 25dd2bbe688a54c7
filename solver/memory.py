"""Memory of this process: resident size for limits and statistics, and the hard limit of a solve.

A run's memory limit is promised twice over. The driver stops a search between steps once its resident
memory has grown by the limit (``solver.driver``), keeping its best model; and ``hard_limit`` has the
operating system refuse any allocation that would take the process's private writable memory
(``RLIMIT_DATA``) more than ``HARD_SLACK`` past the limit, so that a step that asks for too much at once gets
a ``MemoryError`` (which the driver turns into the same stop) instead of growing past it (``HARD_FLOOR`` at
the least above the limit: threads must still start). ``allowance``
tells a caller, before it builds something large, how much it may still allocate.
"""

import os
import resource
from contextlib import contextmanager

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
HARD_SLACK = 0.1  # the hard limit lies this share above the run's limit: room to return the best model
# ... and at least this much: a thread's start needs a few MB, and CPython hangs (never raises) when a new thread
# cannot allocate its state, so a limit of a few bytes must still leave room for the search's helper threads.
HARD_FLOOR = 32 << 20
_active = []  # the RLIMIT_DATA soft limits that hard_limit set, innermost last


def current_rss():
    """Return the resident set size of this process in bytes."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return peak_rss()


def peak_rss():
    """Return the peak resident set size of this process in bytes (Linux units)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _status(field):
    """Return a ``/proc/self/status`` size field in bytes, or None where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def data_size():
    """Return the process's private writable memory in bytes (what ``RLIMIT_DATA`` limits), or None."""
    return _status("VmData")


def reset_peak():
    """Start counting the peak resident size (``peak_since_reset``) from now; return False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_since_reset():
    """Return the peak resident size since ``reset_peak`` (since the start where it is unsupported)."""
    peak = _status("VmHWM")
    return peak_rss() if peak is None else peak


def available():
    """Return the memory this machine can still give without swapping (``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def allowance():
    """Return how many more bytes this process may allocate: under the active hard limit and what is free."""
    limits = [a for a in (available(),) if a is not None]
    if _active and data_size() is not None:
        limits.append(max(0, _active[-1] - data_size()))
    return min(limits) if limits else None


@contextmanager
def hard_limit(nbytes):
    """Within the block, the process's private writable memory may grow by at most ``nbytes`` plus its slack.

    The slack is ``HARD_SLACK`` of the limit, at least ``HARD_FLOOR``.

    Allocations past it raise ``MemoryError``. Nothing is limited when ``nbytes`` is None or the platform
    has no ``RLIMIT_DATA``.
    """
    size = data_size()
    if nbytes is None or size is None or not hasattr(resource, "RLIMIT_DATA"):
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    target = size + int(nbytes) + max(int(nbytes * HARD_SLACK), HARD_FLOOR)
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            target = min(target, bound)
    resource.setrlimit(resource.RLIMIT_DATA, (target, hard))
    _active.append(target)
    try:
        yield
    finally:
        _active.pop()
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
