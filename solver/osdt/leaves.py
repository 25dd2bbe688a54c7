"""The leaf cache (the paper's LeafCache, Appendix G.3): every leaf built once, keyed by its literals.

A leaf is a set of literals ``x_f = v``, stored as one key of two bitmasks over
features (the ``used`` words, then the ``value`` words), so that clause order
never matters (Corollary E.1 for clauses). Leaves live in parallel arrays
indexed by a leaf id; the shared hash table of ``solver.bitset_table`` maps
(key, number of literals) to ids. Children inherit their parent's dead
features at creation (Theorem 3.5's dead features below a leaf).

Capture vectors are not stored: a leaf's is rebuilt from its literals when it
is split (one AND per literal), which keeps a cached leaf to about 100 bytes
however many rows the data has.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver import bitset
from solver import bitset_table as table

EMPTY = table.EMPTY
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


class Leaves(NamedTuple):
    """Parallel arrays of the cached leaves (capacity ``L``; ids below the count are used).

    Attributes
    ----------
    keys : array of uint64, shape (L, 2k)
        The leaf's literals: words ``0..k-1`` hold the features it uses (``used``), words
        ``k..2k-1`` their values (``value``).
    dead : array of uint64, shape (L, k)
        Features dead for the leaf (Thm 3.5).
    depth : array of int64, shape (L,)
        Number of literals (the table's depth of a key).
    pos, neg : array of float64, shape (L,)
        Captured mass of each class.
    loss, correct, b0 : array of float64, shape (L,)
        Misclassified, correctly classified and equivalent-point minority mass (eq. 11),
        as shares of the total mass.
    label : array of int64, shape (L,)
        Majority label (ties predict 1, as the authors' code).
    is_dead : array of bool, shape (L,)
        True when the leaf is never split (Thm 3.3).
    zob : array of uint64, shape (L,)
        Random key of the leaf; a tree's key is the xor of its leaves' keys.
    slots : array of int64, shape (T,)
        Hash slots of leaf ids (``EMPTY`` where free), T a power of two (``solver.bitset_table``).
    """

    keys: np.ndarray
    dead: np.ndarray
    depth: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    loss: np.ndarray
    correct: np.ndarray
    b0: np.ndarray
    label: np.ndarray
    is_dead: np.ndarray
    zob: np.ndarray
    slots: np.ndarray


def make_leaves(capacity, n_feature_words, table_size):
    """Return empty ``Leaves`` arrays."""
    u64 = np.uint64
    return Leaves(
        np.zeros((capacity, 2 * n_feature_words), u64),
        np.zeros((capacity, n_feature_words), u64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity),
        np.zeros(capacity),
        np.zeros(capacity),
        np.zeros(capacity),
        np.zeros(capacity),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, bool),
        np.zeros(capacity, u64),
        np.full(table_size, EMPTY, np.int64),
    )


def enlarge(a, rows):
    """Return ``a`` with ``rows`` rows, the old ones kept: resized in place when it owns its memory
    (a large block is remapped, not copied), else copied."""
    if a.flags.owndata and a.flags.c_contiguous and a.base is None:
        a.resize((rows,) + a.shape[1:], refcheck=False)
        return a
    b = np.zeros((rows,) + a.shape[1:], a.dtype)
    b[: a.shape[0]] = a
    return b


def grow_leaves(leaves, count, capacity, table_size):
    """Return ``leaves`` with room for ``capacity`` leaves and a rebuilt table of ``table_size`` slots."""
    grown = [enlarge(a, capacity) for name, a in zip(Leaves._fields, leaves) if name != "slots"]
    out = Leaves(*grown, np.full(table_size, EMPTY, np.int64))
    rehash(out, count)
    return out


@numba.njit(cache=True)
def rehash(leaves, count):
    """Put leaves ``0..count-1`` into the empty ``slots``."""
    table.rehash(leaves.slots, leaves.keys, leaves.depth, table.NO_TAGS, count)


@numba.njit(cache=True, inline="always")
def find_slot(leaves, key, depth):
    """Return the slot holding the leaf with these literals (``key``, shape (2k,)), or the free slot where it belongs."""
    return table.find_slot(leaves.slots, leaves.keys, leaves.depth, table.NO_TAGS, key, depth, 0)


@numba.njit(cache=True, inline="always")
def mix64(x):
    """Return the splitmix64 finaliser of ``x`` (uint64)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def plane_count(cap, planes):
    """Return Σ_b 2^b |cap ∩ planes[b]|: the whole-number mass of the points in ``cap``."""
    total = 0
    for b in range(planes.shape[0]):
        count = 0
        for w in range(cap.shape[0]):
            count += bitset.popcount(cap[w] & planes[b, w])
        total += count << b
    return total


@numba.njit(cache=True)
def class_masses(data, cap):
    """Return (positive, negative, minority) mass captured by ``cap``, shape (w,)."""
    if data.pos_planes.shape[0] > 0:
        return (
            float(plane_count(cap, data.pos_planes)),
            float(plane_count(cap, data.neg_planes)),
            float(plane_count(cap, data.min_planes)),
        )
    pos_f, neg_f, low_f = 0.0, 0.0, 0.0
    for w in range(cap.shape[0]):
        word = cap[w]
        while word:
            u = w * 64 + bitset.lowest_bit(word)
            pos_f += data.pos_mass[u]
            neg_f += data.neg_mass[u]
            low_f += min(data.pos_mass[u], data.neg_mass[u])
            word &= word - np.uint64(1)
    return pos_f, neg_f, low_f


@numba.njit(cache=True)
def leaf_cap(data, leaves, i, caps, row):
    """Write the points leaf ``i`` captures into ``caps[row]``, shape (w,): the AND of its literals."""
    for w in range(caps.shape[1]):
        caps[row, w] = data.ones[0, w] | data.zeros[0, w]
    for f in range(data.ones.shape[0]):
        if uses(leaves, i, f):
            source = data.ones if literal_value(leaves, i, f) else data.zeros
            for w in range(caps.shape[1]):
                caps[row, w] &= source[f, w]


@numba.njit(cache=True, inline="always")
def child_masses(data, caps, row, f, v, scratch):
    """Return (positive, negative, minority) mass of ``parent ∧ x_f = v``, the parent's points in ``caps[row]``."""
    source = data.ones if v else data.zeros
    for w in range(scratch.shape[0]):
        scratch[w] = caps[row, w] & source[f, w]
    return class_masses(data, scratch)


@numba.njit(cache=True, inline="always")
def numbers(pos, neg, low, total):
    """Return (label, loss, correct, b0) of a leaf with these masses (ties predict 1, as the authors' code)."""
    n = pos + neg
    label = 1 if n > 0 and 2.0 * pos >= n else 0
    errors = neg if label == 1 else pos
    return label, errors / total, (n - errors) / total, low / total


@numba.njit(cache=True, inline="always")
def support_dead(loss, lam, use_support):
    """Theorem 3.3 (support), in the authors' stronger form: a leaf whose own error is at most λ is never split,
    since any subtree under it removes at most that error and costs at least one more leaf."""
    return use_support and loss <= lam


@numba.njit(cache=True)
def store_leaf(leaves, i, slot, key, parent, depth, pos, neg, low, total, lam, use_support):
    """Store leaf ``i`` with these literals (``key``, shape (2k,)), the dead features of leaf ``parent``,
    depth and masses, at ``slot``."""
    for w in range(key.shape[0]):
        leaves.keys[i, w] = key[w]
    for w in range(leaves.dead.shape[1]):
        leaves.dead[i, w] = leaves.dead[parent, w]
    leaves.depth[i] = depth
    leaves.pos[i], leaves.neg[i] = pos, neg
    leaves.label[i], leaves.loss[i], leaves.correct[i], leaves.b0[i] = numbers(pos, neg, low, total)
    leaves.is_dead[i] = support_dead(leaves.loss[i], lam, use_support)  # Theorem 3.3: never split
    leaves.zob[i] = mix64(np.uint64(i) + GOLDEN)
    leaves.slots[slot] = i


@numba.njit(cache=True)
def add_root(leaves, data, full, total, lam, use_support):
    """Make leaf 0, the root, capturing every point in ``full``; return 0."""
    pos, neg, low = class_masses(data, full)
    empty = np.zeros(leaves.keys.shape[1], np.uint64)
    zero = np.int64(0)  # int64, not literals: one compiled store_leaf
    slot = find_slot(leaves, empty, zero)
    store_leaf(leaves, zero, slot, empty, zero, zero, pos, neg, low, total, lam, use_support)
    return 0


@numba.njit(cache=True, inline="always")
def value_bit(leaves, f):
    """Return the bit of a key that holds the value of the literal on feature ``f`` (its ``used`` bit is ``f``)."""
    return f + 32 * leaves.keys.shape[1]


@numba.njit(cache=True, inline="always")
def child_key(leaves, parent, f, v, key):
    """Write the literals of ``parent ∧ x_f = v`` into the scratch ``key``, shape (2k,)."""
    for w in range(key.shape[0]):
        key[w] = leaves.keys[parent, w]
    key[f >> 6] |= np.uint64(1) << np.uint64(f & 63)
    if v:
        b = value_bit(leaves, f)
        key[b >> 6] |= np.uint64(1) << np.uint64(b & 63)


@numba.njit(cache=True)
def child_leaf(leaves, data, count, parent, caps, row, f, v, key, scratch, total, lam, use_support):
    """Return ``(id, created)`` of the leaf ``parent ∧ (x_f = v)``, building it (as leaf ``count``) when new.

    The caller guarantees room for one more leaf. ``caps[row]``, shape (w,),
    holds the parent's points; ``key`` and ``scratch`` are scratch buffers.
    """
    child_key(leaves, parent, f, v, key)
    depth = leaves.depth[parent] + 1
    slot = find_slot(leaves, key, depth)
    if leaves.slots[slot] != EMPTY:
        return leaves.slots[slot], False
    pos, neg, low = child_masses(data, caps, row, f, v, scratch)
    store_leaf(leaves, count, slot, key, parent, depth, pos, neg, low, total, lam, use_support)
    return count, True


@numba.njit(cache=True, inline="always")
def has_feature(masks, i, f):
    """True when bit ``f`` of row ``i`` of a (n, k) feature bitmask array is set."""
    return (masks[i, f >> 6] >> np.uint64(f & 63)) & np.uint64(1) != 0


@numba.njit(cache=True)
def mark_dead(leaves, i, f):
    """Record feature ``f`` as dead for leaf ``i`` and the leaves it will make (Theorem 3.5)."""
    leaves.dead[i, f >> 6] |= np.uint64(1) << np.uint64(f & 63)


@numba.njit(cache=True, inline="always")
def uses(leaves, i, f):
    """True when leaf ``i`` has a literal on feature ``f``."""
    return has_feature(leaves.keys, i, f)


@numba.njit(cache=True, inline="always")
def literal_value(leaves, i, f):
    """True when leaf ``i``'s literal on feature ``f`` (which it must have) is ``x_f = 1``."""
    return has_feature(leaves.keys, i, value_bit(leaves, f))


@numba.njit(cache=True)
def can_split(leaves, i, n_features, max_depth):
    """Return True when leaf ``i`` may still be split: not dead, under the depth cap, a feature left."""
    if leaves.is_dead[i] or leaves.depth[i] >= max_depth:
        return False
    for k in range(leaves.dead.shape[1]):  # key words 0..k-1 are the used features
        rest = n_features - 64 * k
        valid = ~np.uint64(0) if rest >= 64 else (np.uint64(1) << np.uint64(rest)) - np.uint64(1)
        if valid & ~leaves.keys[i, k] & ~leaves.dead[i, k]:
            return True
    return False
