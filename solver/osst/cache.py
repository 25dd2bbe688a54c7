"""The memo of subproblems: an open-addressing hash table keyed by (support bitset, remaining depth).

Every subproblem is stored once (spec §3.1: the search space is a dependency
graph, not a tree), with its leaf objective and its lower and upper bounds.
Node ids are stable: growing the table copies rows in place, so ids held by
the search stack stay valid.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver import best_tree
from solver import bitset_table as table

EMPTY = -1
NO_SPLIT = best_tree.NO_SPLIT


class Memo(NamedTuple):
    """Subproblems and their bounds.

    Attributes
    ----------
    keys : array of uint64, shape (cap, W)
        Support bitset of each subproblem (sorted-sample ids).
    depth : array of int64, shape (cap,)
        Remaining depth (split levels still allowed).
    size : array of int64, shape (cap,)
        Number of samples in the support.
    leaf : array of float64, shape (cap,)
        Objective of the subproblem as one leaf: IBS of its KM curve + λ.
    lb, ub : array of float64, shape (cap,)
        Bounds on the subproblem's optimal objective; solved when equal.
    split : array of int64, shape (cap,)
        Feature of the split behind ``ub`` (``NO_SPLIT``: ``ub`` is the leaf).
    left, right : array of int64, shape (cap,)
        Ids of that split's children (feature 0 on the left); read only where ``split`` is set.
    slots : array of int64, shape (2 * cap,)
        Hash slots holding node ids, ``EMPTY`` where free.
    count : array of int64, shape (1,)
        Number of stored subproblems.
    """

    keys: np.ndarray
    depth: np.ndarray
    size: np.ndarray
    leaf: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    split: np.ndarray
    left: np.ndarray
    right: np.ndarray
    slots: np.ndarray
    count: np.ndarray

    @property
    def capacity(self):
        return self.keys.shape[0]

    def nbytes(self):
        return sum(a.nbytes for a in self)


def make_memo(n_words, capacity=1024):
    """Return an empty ``Memo`` for bitsets of ``n_words`` words (capacity a power of two)."""
    cap = 1 << max(4, int(capacity - 1).bit_length())
    return Memo(
        keys=np.zeros((cap, n_words), dtype=np.uint64),
        depth=np.zeros(cap, dtype=np.int64),
        size=np.zeros(cap, dtype=np.int64),
        leaf=np.zeros(cap),
        lb=np.zeros(cap),
        ub=np.zeros(cap),
        split=np.full(cap, NO_SPLIT, dtype=np.int64),
        left=np.full(cap, EMPTY, dtype=np.int64),
        right=np.full(cap, EMPTY, dtype=np.int64),
        slots=np.full(2 * cap, EMPTY, dtype=np.int64),
        count=np.zeros(1, dtype=np.int64),
    )


def grown(memo):
    """Return a copy of ``memo`` with twice the capacity; node ids are unchanged."""
    cap, n = memo.capacity, int(memo.count[0])
    bigger = make_memo(memo.keys.shape[1], 2 * cap)
    for name in ("keys", "depth", "size", "leaf", "lb", "ub", "split", "left", "right"):
        getattr(bigger, name)[:n] = getattr(memo, name)[:n]
    bigger.count[0] = n
    _rehash(bigger)
    return bigger


@numba.njit(cache=True)
def find_slot(memo, bits, depth):
    """Return the slot of (bits, depth): the slot holding it, or the empty slot where it belongs."""
    return table.find_slot(memo.slots, memo.keys, memo.depth, table.NO_TAGS, bits, depth, np.uint64(0))


@numba.njit(cache=True, inline="always")
def set_best(memo, node, total, feature, left, right):
    """Record the split on ``feature`` into subproblems ``left`` and ``right`` as ``node``'s best, of objective ``total``."""
    memo.ub[node] = total
    memo.split[node] = feature
    memo.left[node] = left
    memo.right[node] = right


@numba.njit(cache=True)
def insert_at(memo, slot, bits, depth, size):
    """Store a new subproblem in the empty ``slot``; return its id (bounds are set by the caller)."""
    node = memo.count[0]
    memo.keys[node, :] = bits
    memo.depth[node] = depth
    memo.size[node] = size
    memo.split[node] = NO_SPLIT
    memo.slots[slot] = node
    memo.count[0] = node + 1
    return node


@numba.njit(cache=True)
def _rehash(memo):
    table.rehash(memo.slots, memo.keys, memo.depth, table.NO_TAGS, memo.count[0])
