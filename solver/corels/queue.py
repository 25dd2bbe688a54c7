"""The work queue: a binary min-heap of packed records, and the search policies as key functions.

Each entry names a trie leaf ``(node, generation)`` and is ordered by
``(key, seq)``: the policy's key, then insertion order, so equal keys pop
first-in first-out and every run is deterministic (paper §5.2, spec §3.3).

| policy | key (smaller pops first) |
|---|---|
| ``bfs`` | prefix length |
| ``curiosity`` | ``b / supp`` = ``b · N / N_cap`` (eq. 36) |
| ``lower_bound`` | ``b + b0`` (Algorithm 6 pushes the bound with Theorem 20's term) |
| ``objective`` | the prefix's own objective ``R`` |
| ``dfs`` | the longest prefix first |

An entry is one row of four int64 (32 bytes, so a sift touches one cache
line per level): the key (a non-negative float64, whose bits order like the
number), ``seq << 16 | depth``, ``node << 32 | generation`` and the prefix's
``b + b0`` (scaled), which the queue's lower bound reads.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

POLICIES = ("bfs", "curiosity", "lower_bound", "objective", "dfs")
BFS, CURIOSITY, LOWER_BOUND, OBJECTIVE, DFS = range(5)

# heap.counts
SIZE, SEQ = 0, 1
# columns of heap.entries
KEY, ORDER, NODE, BOUND = range(4)
_LOW16 = np.int64(0xFFFF)
_LOW32 = np.int64(0xFFFFFFFF)


class Heap(NamedTuple):
    """The priority queue; ``counts[SIZE]`` rows of ``entries`` are in use.

    Attributes
    ----------
    entries : array of int64, shape (cap, 4)
        ``KEY`` (float64 bits), ``ORDER`` (``seq << 16 | depth``), ``NODE``
        (``node << 32 | generation``), ``BOUND`` (``b + b0``, scaled).
    as_float : array of float64, shape (cap, 4)
        The same memory read as float64 (to write keys).
    counts : array of int64, shape (2,)
        ``SIZE`` and the next insertion number ``SEQ``.
    """

    entries: np.ndarray
    as_float: np.ndarray
    counts: np.ndarray


def make_heap(capacity):
    entries = np.zeros((capacity, 4), dtype=np.int64)
    return Heap(entries, entries.view(np.float64), np.zeros(2, dtype=np.int64))


def grow_heap(heap, capacity):
    """Return a copy of ``heap`` with room for ``capacity`` entries."""
    out = make_heap(capacity)
    size = heap.counts[SIZE]
    out.entries[:size] = heap.entries[:size]
    out.counts[:] = heap.counts
    return out


def capacity(heap):
    return heap.entries.shape[0]


@numba.njit(cache=True)
def policy_key(policy, depth, bound, minority_bound, objective, captured):
    """Return the queue key (≥ 0) of a prefix under ``policy`` (scaled integers in, float out)."""
    if policy == BFS:
        return float(depth)
    if policy == DFS:
        return 1.0 / (1.0 + depth)
    if policy == LOWER_BOUND:
        return float(bound + minority_bound)
    if policy == OBJECTIVE:
        return float(objective)
    if captured == 0:  # curiosity of the root (and of prefixes capturing nothing)
        return 0.0 if bound == 0 else np.inf
    return bound / captured


@numba.njit(cache=True, inline="always")
def _before(e, a, b):
    """Return True if row ``a`` pops before row ``b``."""
    return e[a, KEY] < e[b, KEY] or (e[a, KEY] == e[b, KEY] and e[a, ORDER] < e[b, ORDER])


@numba.njit(cache=True, inline="always")
def _copy(e, to, frm):
    for c in range(4):
        e[to, c] = e[frm, c]


@numba.njit(cache=True)
def push(heap, key, node, generation, bound, depth):
    """Add an entry (the caller checked the capacity)."""
    e = heap.entries
    i = heap.counts[SIZE]
    heap.counts[SIZE] = i + 1
    heap.as_float[i, KEY] = key
    e[i, ORDER] = (heap.counts[SEQ] << 16) | depth
    e[i, NODE] = (np.int64(node) << 32) | (np.int64(generation) & _LOW32)
    e[i, BOUND] = bound
    heap.counts[SEQ] += 1
    while i > 0:  # sift up
        parent = (i - 1) >> 1
        if not _before(e, i, parent):
            break
        for c in range(4):
            e[i, c], e[parent, c] = e[parent, c], e[i, c]
        i = parent


@numba.njit(cache=True)
def pop(heap):
    """Remove the first entry; return its ``(node, generation)``."""
    e = heap.entries
    node, generation = e[0, NODE] >> 32, e[0, NODE] & _LOW32
    size = heap.counts[SIZE] - 1
    heap.counts[SIZE] = size
    if size == 0:
        return node, generation
    # sift the last entry down from the root, moving children up into the hole
    last = size
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(e, child + 1, child):
            child += 1
        if not _before(e, child, last):
            break
        _copy(e, i, child)
        i = child
    _copy(e, i, last)
    return node, generation


@numba.njit(cache=True)
def top_depth(heap):
    """Return the prefix length of the first entry."""
    return heap.entries[0, ORDER] & _LOW16


@numba.njit(cache=True)
def lowest_bound(heap, lam, best, m, room):
    """Return ``min(best, min over entries of bound + λ)`` and fill ``room`` (one sequential pass).

    ``room[L, f]`` counts the live entries of length ``L`` that may still be
    extended by ``f = min(⌊(best − bound)/λ⌋, m − L)`` rules (Theorem 7, with
    ``b + b0`` for ``b``, which only tightens it); ``f`` is capped at the last
    column. With λ = 0, ``f = m − L``.
    """
    low = best
    room[:, :] = 0
    last = room.shape[1] - 1
    e = heap.entries
    for i in range(heap.counts[SIZE]):
        bound = e[i, BOUND]
        key = bound + lam
        if key >= best:
            continue
        low = min(low, key)
        depth = e[i, ORDER] & _LOW16
        f = m - depth
        if lam > 0:
            f = min(f, (best - bound) // lam)
        room[depth, min(f, last)] += 1
    return low


@numba.njit(cache=True)
def heapify(heap):
    """Restore the heap order of the first ``SIZE`` rows after rows were removed (Floyd's bottom-up pass)."""
    e = heap.entries
    size = heap.counts[SIZE]
    for start in range((size - 2) // 2, -1, -1):
        i = start
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and _before(e, child + 1, child):
                child += 1
            if not _before(e, child, i):
                break
            for c in range(4):
                e[i, c], e[child, c] = e[child, c], e[i, c]
            i = child
