"""One open-addressing hash table keyed by (bitset, depth, tag): GOSDT's and OSST's subproblems, OSDT's leaves.

The table is arrays the caller owns: ``slots`` (a power of two, ``EMPTY`` where free) holds vertex ids;
vertex ``v`` has its bitset in row ``v`` of ``keys``, its remaining depth in ``depths[v]`` and, where the
caller keys by a path tag too, ``tags[v]`` (an empty ``tags`` array: no tags, every tag is 0). Linear
probing; the caller grows ``slots`` (and calls ``rehash``) before it is half full.
"""

from __future__ import annotations

import numba
import numpy as np

from solver.bitset import hash_words, row_equals

EMPTY = -1
NO_TAGS = np.zeros(0, dtype=np.uint64)


@numba.njit(cache=True)
def key_hash(bits, depth, tag):
    """Return a 64-bit hash of (bitset, depth, tag)."""
    return hash_words(bits, np.uint64(depth + 1) ^ np.uint64(tag))


@numba.njit(cache=True)
def find_slot(slots, keys, depths, tags, bits, depth, tag):
    """Return the slot holding (bits, depth, tag), or the empty slot where it belongs."""
    mask = np.uint64(slots.shape[0] - 1)
    slot = np.int64(key_hash(bits, depth, tag) & mask)
    tagged = tags.shape[0] > 0
    while True:
        v = slots[slot]
        if v == EMPTY or (depths[v] == depth and (not tagged or tags[v] == tag) and row_equals(keys, v, bits)):
            return slot
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)


@numba.njit(cache=True)
def rehash(slots, keys, depths, tags, count):
    """Put vertices ``0..count-1`` into the empty ``slots``."""
    mask = np.uint64(slots.shape[0] - 1)
    tagged = tags.shape[0] > 0
    for v in range(count):
        tag = tags[v] if tagged else np.uint64(0)
        slot = np.int64(key_hash(keys[v], depths[v], tag) & mask)
        while slots[slot] != EMPTY:
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
        slots[slot] = v
