"""The prefix tree (trie) of CORELS in parallel arrays (paper §5.1).

Node ``i`` stands for the prefix spelled by the antecedents on the path from
the root (node 0, the empty prefix) to ``i``. A node stores what a child's
incremental evaluation needs (spec §3.2–3.3): its last antecedent, depth,
the prefix's misclassified rows ``errors`` (so ``b = errors·D + depth·lam``,
eq. 30) and ``minority``, the minority rows it leaves uncaptured (so
``b0 = minority·D``, eq. 28).

Slots are recycled through a free stack; ``generation`` counts how often a
slot was freed, so a queue entry or map value ``(node, generation)`` that
outlived its node is recognised as stale (spec §4.4).

Deletion is lazy (paper §5.5): a node whose permutation was beaten is marked
``REPLACED`` and its subtree counts as dead from then on; the queue frees
dead leaves when it pops them, and the garbage collector frees whole dead
subtrees at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

NONE = -1
ROOT = 0

# flags
IN_USE = np.uint8(1)
EXPANDED = np.uint8(2)
REPLACED = np.uint8(4)
DEAD = np.uint8(8)  # scratch marks of the garbage collector
CHECKED = np.uint8(16)

# trie.counts
N_NODES, NEXT_UNUSED, FREE_TOP = 0, 1, 2


class Trie(NamedTuple):
    """Arrays of the prefix tree, one entry per slot.

    Attributes
    ----------
    parent : array of int32, shape (cap,)
    antecedent : array of int32, shape (cap,)
        Last antecedent of the prefix (``NONE`` at the root).
    depth : array of int16, shape (cap,)
        Prefix length ``K``.
    errors : array of int32, shape (cap,)
        Rows misclassified by the prefix's rules.
    minority : array of int32, shape (cap,)
        Minority rows (Theorem 20) the prefix leaves uncaptured.
    label : array of uint8, shape (cap,)
        Prediction of the last rule.
    flags : array of uint8, shape (cap,)
        ``IN_USE | EXPANDED | REPLACED``.
    n_children : array of int32, shape (cap,)
        Children physically present.
    generation : array of int32, shape (cap,)
    free : array of int32, shape (cap,)
        Stack of recycled slots.
    counts : array of int64, shape (3,)
        ``N_NODES`` in use, ``NEXT_UNUSED`` slot, ``FREE_TOP`` of the stack.
    """

    parent: np.ndarray
    antecedent: np.ndarray
    depth: np.ndarray
    errors: np.ndarray
    minority: np.ndarray
    label: np.ndarray
    flags: np.ndarray
    n_children: np.ndarray
    generation: np.ndarray
    free: np.ndarray
    counts: np.ndarray


_FIELDS = (
    ("parent", np.int32),
    ("antecedent", np.int32),
    ("depth", np.int16),
    ("errors", np.int32),
    ("minority", np.int32),
    ("label", np.uint8),
    ("flags", np.uint8),
    ("n_children", np.int32),
    ("generation", np.int32),
    ("free", np.int32),
)


def make_trie(capacity):
    """Return an empty trie with room for ``capacity`` nodes."""
    arrays = {name: np.zeros(capacity, dtype=dtype) for name, dtype in _FIELDS}
    return Trie(counts=np.zeros(3, dtype=np.int64), **arrays)


def grow_trie(trie, capacity):
    """Return a copy of ``trie`` with room for ``capacity`` nodes."""
    arrays = {}
    for name, dtype in _FIELDS:
        new = np.zeros(capacity, dtype=dtype)
        old = getattr(trie, name)
        new[: len(old)] = old
        arrays[name] = new
    return Trie(counts=trie.counts.copy(), **arrays)


def trie_bytes(trie):
    return sum(a.nbytes for a in trie)


@numba.njit(cache=True)
def room(trie):
    """Return how many nodes can still be added without growing."""
    return len(trie.parent) - trie.counts[NEXT_UNUSED] + trie.counts[FREE_TOP]


@numba.njit(cache=True)
def add_node(trie, parent, antecedent, depth, errors, minority, label):
    """Store a node (the caller checked ``room``); return its slot."""
    if trie.counts[FREE_TOP] > 0:
        trie.counts[FREE_TOP] -= 1
        i = trie.free[trie.counts[FREE_TOP]]
    else:
        i = trie.counts[NEXT_UNUSED]
        trie.counts[NEXT_UNUSED] += 1
    trie.parent[i] = parent
    trie.antecedent[i] = antecedent
    trie.depth[i] = depth
    trie.errors[i] = errors
    trie.minority[i] = minority
    trie.label[i] = label
    trie.flags[i] = IN_USE
    trie.n_children[i] = 0
    if parent != NONE:
        trie.n_children[parent] += 1
    trie.counts[N_NODES] += 1
    return i


@numba.njit(cache=True)
def release(trie, i):
    """Free slot ``i`` (its parent's child count is the caller's business)."""
    trie.flags[i] = 0
    trie.generation[i] += 1
    trie.free[trie.counts[FREE_TOP]] = i
    trie.counts[FREE_TOP] += 1
    trie.counts[N_NODES] -= 1


@numba.njit(cache=True)
def remove_and_prune_up(trie, i):
    """Free node ``i`` and every ancestor left expanded and childless (never the root)."""
    while i != ROOT:
        p = trie.parent[i]
        release(trie, i)
        trie.n_children[p] -= 1
        if trie.n_children[p] > 0 or not (trie.flags[p] & EXPANDED):
            return
        i = p


@numba.njit(cache=True)
def is_live(trie, i, generation):
    """Return True if ``(i, generation)`` names a node that is still stored."""
    return trie.generation[i] == generation and (trie.flags[i] & IN_USE) != 0


@numba.njit(cache=True)
def walk_prefix(trie, i, prefix):
    """Write the prefix of node ``i`` into ``prefix[:depth]`` (in rule order).

    Returns
    -------
    depth : int
    dead : bool
        True if ``i`` or an ancestor was replaced by a better permutation.
    """
    depth = trie.depth[i]
    dead = False
    k = depth
    while i != ROOT:
        k -= 1
        prefix[k] = trie.antecedent[i]
        dead |= (trie.flags[i] & REPLACED) != 0
        i = trie.parent[i]
    return depth, dead


@numba.njit(cache=True)
def labels_of(trie, i, labels):
    """Write the rule labels on the path to node ``i`` into ``labels[:depth]``."""
    k = trie.depth[i]
    while i != ROOT:
        k -= 1
        labels[k] = trie.label[i]
        i = trie.parent[i]
