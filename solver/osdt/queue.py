"""The search queue: a binary min-heap of partial trees, and the scheduling policies (Section 3.4).

An entry is a stored tree, the bitmask of its new leaves that will be split
(the rest of the tree stays unchanged in every descendant), its hierarchical
lower bound b(d_un) (eq. 5) and its pruning bound (eq. 5 plus the
equivalent-point and lookahead terms, B.2 and 3.2). The heap follows the
sift-up/sift-down rules of Python's ``heapq`` comparing priorities only, so
that equal priorities leave the queue in the same order as in the authors'
code.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver.osdt.leaves import enlarge

CURIOSITY, LOWER_BOUND, OBJECTIVE, BFS, DFS = 0, 1, 2, 3, 4
POLICY_CODES = {"curiosity": CURIOSITY, "lower_bound": LOWER_BOUND, "objective": OBJECTIVE, "bfs": BFS, "dfs": DFS}


class Queue(NamedTuple):
    """Heap arrays (capacity ``Q``); the first ``size`` entries form the heap.

    Attributes
    ----------
    priority : array of float64, shape (Q,)
    tree : array of int64, shape (Q,)
    split : array of uint64, shape (Q,)
        Bit ``j`` set when the tree's ``j``-th new leaf will be split.
    lower : array of float64, shape (Q,)
        b(d_un): unchanged leaves' loss + λ × leaves.
    bound : array of float64, shape (Q,)
        The bound every descendant's objective is at least.
    """

    priority: np.ndarray
    tree: np.ndarray
    split: np.ndarray
    lower: np.ndarray
    bound: np.ndarray


def make_queue(capacity):
    """Return empty ``Queue`` arrays."""
    return Queue(
        np.zeros(capacity),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.uint64),
        np.zeros(capacity),
        np.zeros(capacity),
    )


def grow_queue(queue, capacity):
    """Return ``queue`` with room for ``capacity`` entries."""
    return Queue(*(enlarge(a, capacity) for a in queue))


@numba.njit(cache=True, inline="always")
def _move(q, to, frm):
    q.priority[to] = q.priority[frm]
    q.tree[to] = q.tree[frm]
    q.split[to] = q.split[frm]
    q.lower[to] = q.lower[frm]
    q.bound[to] = q.bound[frm]


@numba.njit(cache=True, inline="always")
def _put(q, i, priority, tree, split, lower, bound):
    q.priority[i] = priority
    q.tree[i] = tree
    q.split[i] = split
    q.lower[i] = lower
    q.bound[i] = bound


@numba.njit(cache=True)
def _sift_down(q, start, pos):
    """Move the entry at ``pos`` towards the root until its parent is not larger (heapq._siftdown)."""
    priority, tree, split, lower, bound = q.priority[pos], q.tree[pos], q.split[pos], q.lower[pos], q.bound[pos]
    while pos > start:
        parent = (pos - 1) >> 1
        if priority < q.priority[parent]:
            _move(q, pos, parent)
            pos = parent
            continue
        break
    _put(q, pos, priority, tree, split, lower, bound)


@numba.njit(cache=True)
def _sift_up(q, size, pos):
    """Move the smaller child up until a leaf, then sift the entry down (heapq._siftup)."""
    start = pos
    priority, tree, split, lower, bound = q.priority[pos], q.tree[pos], q.split[pos], q.lower[pos], q.bound[pos]
    child = 2 * pos + 1
    while child < size:
        right = child + 1
        if right < size and not q.priority[child] < q.priority[right]:
            child = right
        _move(q, pos, child)
        pos = child
        child = 2 * pos + 1
    _put(q, pos, priority, tree, split, lower, bound)
    _sift_down(q, start, pos)


@numba.njit(cache=True)
def push(q, size, priority, tree, split, lower, bound):
    """Add an entry to a heap of ``size`` entries (room guaranteed); return the new size."""
    _put(q, size, priority, tree, split, lower, bound)
    _sift_down(q, 0, size)
    return size + 1


@numba.njit(cache=True)
def pop(q, size):
    """Remove the smallest entry into slot ``size - 1`` (read it there); return the new size."""
    last = size - 1
    if last == 0:
        return 0
    priority, tree, split, lower, bound = q.priority[0], q.tree[0], q.split[0], q.lower[0], q.bound[0]
    _move(q, 0, last)
    _put(q, last, priority, tree, split, lower, bound)
    _sift_up(q, last, 0)
    return last


@numba.njit(cache=True)
def min_bound(q, size):
    """Return the smallest pruning bound in the heap (inf when empty)."""
    best = np.inf
    for i in range(size):
        if q.bound[i] < best:
            best = q.bound[i]
    return best


@numba.njit(cache=True)
def priority_of(policy, lower, objective, split_mass, total, first_full, sequence):
    """Return the priority of an entry (smaller is expanded first).

    curiosity (CORELS eq. 33–36, as OSDT's code): b(d_un) over the share of
    mass in the unchanged leaves; an entry splitting every leaf goes last.
    As in the authors' code, a tree whose first leaf holds all the data (the
    root) gets 0 under every policy.
    """
    if first_full:
        return 0.0
    if policy == CURIOSITY:
        if split_mass < total:
            return lower / ((total - split_mass) / total)
        return lower / (0.01 / total)
    if policy == LOWER_BOUND:
        return lower
    if policy == OBJECTIVE:
        return objective
    if policy == BFS:
        return float(sequence)
    return -float(sequence)
