"""Resident memory of this process, cheaply, for limits and statistics."""

import os
import resource

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


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
