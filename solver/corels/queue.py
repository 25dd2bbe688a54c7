"""The work queue: a binary min-heap in arrays, and the search policies as key functions.

Each entry names a trie leaf ``(node, generation)`` and is ordered by
``(key, seq)``: the policy's key, then insertion order, so equal keys pop
first-in first-out and every run is deterministic (paper §5.2, spec §3.3).

| policy | key (smaller pops first) |
|---|---|
| ``bfs`` | prefix length |
| ``curiosity`` | ``b / supp`` = ``b · N / N_cap`` (eq. 36) |
| ``lower_bound`` | ``b + b0`` (Algorithm 6 pushes the bound with Theorem 20's term) |
| ``objective`` | the prefix's own objective ``R`` |
| ``dfs`` | minus the prefix length |
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

POLICIES = ("bfs", "curiosity", "lower_bound", "objective", "dfs")
BFS, CURIOSITY, LOWER_BOUND, OBJECTIVE, DFS = range(5)

# heap.counts
SIZE, SEQ = 0, 1


class Heap(NamedTuple):
    """Entries of the priority queue; ``counts[SIZE]`` of them are in use.

    Attributes
    ----------
    key : array of float64, shape (cap,)
    seq : array of int64, shape (cap,)
    node : array of int32, shape (cap,)
    generation : array of int32, shape (cap,)
    bound : array of int64, shape (cap,)
        ``b + b0`` of the entry's prefix (scaled), for the queue's lower bound.
    depth : array of int16, shape (cap,)
        Prefix length of the entry.
    counts : array of int64, shape (2,)
        ``SIZE`` and the next insertion number ``SEQ``.
    """

    key: np.ndarray
    seq: np.ndarray
    node: np.ndarray
    generation: np.ndarray
    bound: np.ndarray
    depth: np.ndarray
    counts: np.ndarray


_FIELDS = (("key", np.float64), ("seq", np.int64), ("node", np.int32), ("generation", np.int32),
           ("bound", np.int64), ("depth", np.int16))


def make_heap(capacity):
    return Heap(counts=np.zeros(2, dtype=np.int64), **{n: np.zeros(capacity, dtype=t) for n, t in _FIELDS})


def grow_heap(heap, capacity):
    """Return a copy of ``heap`` with room for ``capacity`` entries."""
    out = make_heap(capacity)
    size = heap.counts[SIZE]
    for name, _ in _FIELDS:
        getattr(out, name)[:size] = getattr(heap, name)[:size]
    out.counts[:] = heap.counts
    return out


@numba.njit(cache=True)
def policy_key(policy, depth, bound, minority_bound, objective, captured):
    """Return the queue key of a prefix under ``policy`` (scaled integers in, float out)."""
    if policy == BFS:
        return float(depth)
    if policy == DFS:
        return -float(depth)
    if policy == LOWER_BOUND:
        return float(bound + minority_bound)
    if policy == OBJECTIVE:
        return float(objective)
    if captured == 0:  # curiosity of the root (and of prefixes capturing nothing)
        return 0.0 if bound == 0 else np.inf
    return bound / captured


@numba.njit(cache=True, inline="always")
def _less(heap, a, b):
    ka, kb = heap.key[a], heap.key[b]
    return ka < kb or (ka == kb and heap.seq[a] < heap.seq[b])


@numba.njit(cache=True, inline="always")
def _swap(heap, a, b):
    heap.key[a], heap.key[b] = heap.key[b], heap.key[a]
    heap.seq[a], heap.seq[b] = heap.seq[b], heap.seq[a]
    heap.node[a], heap.node[b] = heap.node[b], heap.node[a]
    heap.generation[a], heap.generation[b] = heap.generation[b], heap.generation[a]
    heap.bound[a], heap.bound[b] = heap.bound[b], heap.bound[a]
    heap.depth[a], heap.depth[b] = heap.depth[b], heap.depth[a]


@numba.njit(cache=True)
def push(heap, key, node, generation, bound, depth):
    """Add an entry (the caller checked the capacity)."""
    i = heap.counts[SIZE]
    heap.key[i] = key
    heap.seq[i] = heap.counts[SEQ]
    heap.node[i] = node
    heap.generation[i] = generation
    heap.bound[i] = bound
    heap.depth[i] = depth
    heap.counts[SIZE] += 1
    heap.counts[SEQ] += 1
    while i > 0:
        parent = (i - 1) >> 1
        if not _less(heap, i, parent):
            break
        _swap(heap, i, parent)
        i = parent


@numba.njit(cache=True)
def _sift_down(heap, i, size):
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        child = left
        if left + 1 < size and _less(heap, left + 1, left):
            child = left + 1
        if not _less(heap, child, i):
            return
        _swap(heap, i, child)
        i = child


@numba.njit(cache=True)
def pop(heap):
    """Remove the smallest entry; return its ``(node, generation)``."""
    node, generation = heap.node[0], heap.generation[0]
    last = heap.counts[SIZE] - 1
    heap.counts[SIZE] = last
    if last > 0:
        _swap(heap, 0, last)
        _sift_down(heap, 0, last)
    return node, generation


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
    for e in range(heap.counts[SIZE]):
        key = heap.bound[e] + lam
        if key >= best:
            continue
        low = min(low, key)
        depth = heap.depth[e]
        f = m - depth
        if lam > 0:
            f = min(f, (best - heap.bound[e]) // lam)
        room[depth, min(f, last)] += 1
    return low
