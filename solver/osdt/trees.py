"""The tree cache (the paper's TreeCache, Corollary E.1) and leaf sets turned into models.

Every generated tree is stored once as its leaf ids (unchanged leaves first,
then the ``n_new`` leaves made by its last expansion) in one flat pool. A
tree's key is the xor of its leaves' random keys, so a child's key follows
from its parent's in O(splits); keys collide only by chance and equal keys
are confirmed by comparing leaf sets.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver.models import LEAF, Tree
from solver.osdt.leaves import enlarge

EMPTY = -1


class Trees(NamedTuple):
    """Parallel arrays of the stored trees (capacity ``R``) and their leaf pool (capacity ``P``).

    Attributes
    ----------
    start, length, n_new : array of int64, shape (R,)
        Where a tree's leaf ids begin in ``pool``, how many, and how many of
        the last ones were made by the expansion that produced it.
    key : array of uint64, shape (R,)
    objective : array of float64, shape (R,)
        Misclassification share + λ × leaves.
    pool : array of int32, shape (P,)
    table : array of int64, shape (T,)
        Hash table of tree ids (``EMPTY`` where free), T a power of two.
    """

    start: np.ndarray
    length: np.ndarray
    n_new: np.ndarray
    key: np.ndarray
    objective: np.ndarray
    pool: np.ndarray
    table: np.ndarray


def make_trees(capacity, pool_capacity, table_size):
    """Return empty ``Trees`` arrays."""
    return Trees(
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.uint64),
        np.zeros(capacity),
        np.zeros(pool_capacity, np.int32),
        np.full(table_size, EMPTY, np.int64),
    )


def grow_trees(trees, count, pool_used, capacity, pool_capacity, table_size):
    """Return ``trees`` with more room and a table of ``table_size`` slots, rebuilt."""
    grown = [
        enlarge(a, pool_capacity if name == "pool" else capacity)
        for name, a in zip(Trees._fields, trees)
        if name != "table"
    ]
    out = Trees(*grown, np.full(table_size, EMPTY, np.int64))
    rebuild_table(out, count)
    return out


@numba.njit(cache=True)
def _contains(ids, n, x):
    for i in range(n):
        if ids[i] == x:
            return True
    return False


@numba.njit(cache=True)
def same_leaves(trees, t, fixed, n_fixed, new, n_new):
    """Return True when tree ``t`` has exactly the leaves ``fixed[:n_fixed]`` ∪ ``new[:n_new]``."""
    if trees.length[t] != n_fixed + n_new:
        return False
    s = trees.start[t]
    for p in range(s, s + trees.length[t]):
        x = trees.pool[p]
        if not _contains(fixed, n_fixed, x) and not _contains(new, n_new, x):
            return False
    return True


@numba.njit(cache=True)
def find_slot(trees, key, fixed, n_fixed, new, n_new):
    """Return the table slot of the tree with these leaves, or the free slot where it belongs."""
    size = trees.table.shape[0]
    slot = np.int64(key & np.uint64(size - 1))
    while True:
        t = trees.table[slot]
        if t == EMPTY or (trees.key[t] == key and same_leaves(trees, t, fixed, n_fixed, new, n_new)):
            return slot
        slot = (slot + 1) & (size - 1)


@numba.njit(cache=True)
def rebuild_table(trees, count):
    """Insert trees ``0..count-1`` into an empty table."""
    size = trees.table.shape[0]
    for t in range(count):
        slot = np.int64(trees.key[t] & np.uint64(size - 1))
        while trees.table[slot] != EMPTY:
            slot = (slot + 1) & (size - 1)
        trees.table[slot] = t


@numba.njit(cache=True)
def remove_last(trees, t):
    """Take tree ``t``, the last one stored, out of the table (it ends its probe chain, so no chain breaks)."""
    size = trees.table.shape[0]
    slot = np.int64(trees.key[t] & np.uint64(size - 1))
    while trees.table[slot] != t:
        slot = (slot + 1) & (size - 1)
    trees.table[slot] = EMPTY


@numba.njit(cache=True)
def add_tree(trees, t, pool_used, fixed, n_fixed, new, n_new, key, objective):
    """Store tree ``t`` (fixed leaves, then new ones) at ``pool_used``; return the new pool size."""
    trees.start[t] = pool_used
    trees.length[t] = n_fixed + n_new
    trees.n_new[t] = n_new
    trees.key[t] = key
    trees.objective[t] = objective
    trees.pool[pool_used : pool_used + n_fixed] = fixed[:n_fixed]
    trees.pool[pool_used + n_fixed : pool_used + n_fixed + n_new] = new[:n_new]
    return pool_used + n_fixed + n_new


def leaf_ids(trees, t):
    """Return the leaf ids of tree ``t``."""
    s = trees.start[t]
    return trees.pool[s : s + trees.length[t]].copy()


def literals(leaves, i, n_features):
    """Return ``{feature: value}`` of leaf ``i`` (search feature order)."""
    out, k = {}, leaves.keys.shape[1] // 2  # key words 0..k-1: used features; k..2k-1: their values
    for f in range(n_features):
        word, bit = f >> 6, np.uint64(1) << np.uint64(f & 63)
        if leaves.keys[i, word] & bit:
            out[f] = int(bool(leaves.keys[i, k + word] & bit))
    return out


def leaf_set_model(leaves, ids, order, features, classes):
    """Return the ``solver.models.Tree`` whose leaves are the cached leaves ``ids``.

    The leaves of a tree partition the space, so a feature that every leaf
    tests splits them into the two sides of a tree of the same leaves; the
    lowest such feature becomes the node, recursively.

    Parameters
    ----------
    leaves : Leaves
    ids : array of int64, shape (h,)
    order : array of int64, shape (m,)
        Original column of each search feature.
    """
    n_features = len(order)
    rows = [(literals(leaves, int(i), n_features), int(i)) for i in ids]
    feature, left, right, prediction, counts = [], [], [], [], []

    def build(group):
        node = len(feature)
        feature.append(LEAF), left.append(LEAF), right.append(LEAF), prediction.append(0)
        counts.append([sum(leaves.neg[i] for _, i in group), sum(leaves.pos[i] for _, i in group)])
        if len(group) == 1:
            prediction[node] = int(leaves.label[group[0][1]])
            return node
        shared = set.intersection(*(set(lits) for lits, _ in group))
        f = min(shared)
        sides = [
            [({k: v for k, v in lits.items() if k != f}, i) for lits, i in group if lits[f] == side] for side in (0, 1)
        ]
        feature[node] = int(order[f])
        left[node] = build(sides[0])
        right[node] = build(sides[1])
        prediction[node] = int(counts[node][1] >= counts[node][0])
        return node

    build(rows)
    return Tree(
        feature=feature,
        left=left,
        right=right,
        prediction=prediction,
        counts=counts,
        features=features,
        classes=classes,
    )
