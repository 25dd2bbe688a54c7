"""The symmetry-aware map (paper §5.3, Algorithm 6) as an open-addressing hash table in arrays.

A key is a fixed number of uint64 words:

* the **permutation map** (Corollary 16) keys a prefix by the *set* of its
  antecedents, a bitset over antecedent indices, hashed by XOR of per-antecedent
  random words (so a child's hash is its parent's with one word XORed in);
* the **captured-vector map** (Theorem 15, the equivalent support bound) keys
  a prefix by the rows it captures.

The value is the best known prefix with that key, ``(node, generation)``,
with its lower bound ``b`` and its uncaptured minority count. Linear probing,
capacity a power of two, load kept at most 1/2 by the caller.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

_MIX = np.uint64(0xFF51AFD7ED558CCD)
_SEED = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(32)


class PMap(NamedTuple):
    """Slots of the hash table; ``counts[0]`` are used.

    Attributes
    ----------
    keys : array of uint64, shape (cap, key_words)
    hashes : array of uint64, shape (cap,)
    node : array of int32, shape (cap,)
    generation : array of int32, shape (cap,)
    bound : array of int64, shape (cap,)
        Scaled lower bound ``b`` of the stored prefix.
    minority : array of int32, shape (cap,)
        Minority rows the stored prefix leaves uncaptured (the same for every
        prefix with this key).
    used : array of uint8, shape (cap,)
    counts : array of int64, shape (1,)
    """

    keys: np.ndarray
    hashes: np.ndarray
    node: np.ndarray
    generation: np.ndarray
    bound: np.ndarray
    minority: np.ndarray
    used: np.ndarray
    counts: np.ndarray


def make_pmap(capacity, key_words):
    """Return an empty map; ``capacity`` must be a power of two."""
    assert capacity & (capacity - 1) == 0
    return PMap(np.zeros((capacity, key_words), dtype=np.uint64), np.zeros(capacity, dtype=np.uint64),
                np.zeros(capacity, dtype=np.int32), np.zeros(capacity, dtype=np.int32),
                np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.int32),
                np.zeros(capacity, dtype=np.uint8), np.zeros(1, dtype=np.int64))


@numba.njit(cache=True)
def hash_words(key):
    """Return a 64-bit hash of a key of words (used for captured vectors)."""
    h = _SEED
    for w in range(key.shape[0]):
        h = (h ^ key[w]) * _MIX
        h ^= h >> _SHIFT
    return h


@numba.njit(cache=True)
def find(pmap, h, key):
    """Return ``(slot, found)``: where ``key`` is stored, or the empty slot where it would go."""
    mask = pmap.used.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    words = key.shape[0]
    while pmap.used[i]:
        if pmap.hashes[i] == h:
            same = True
            for w in range(words):
                if pmap.keys[i, w] != key[w]:
                    same = False
                    break
            if same:
                return i, True
        i = (i + 1) & mask
    return i, False


@numba.njit(cache=True)
def store(pmap, slot, h, key, node, generation, bound, minority, new):
    """Write a value into ``slot`` (and the key, when ``new``)."""
    if new:
        pmap.used[slot] = 1
        pmap.hashes[slot] = h
        pmap.keys[slot, :] = key
        pmap.counts[0] += 1
    pmap.node[slot] = node
    pmap.generation[slot] = generation
    pmap.bound[slot] = bound
    pmap.minority[slot] = minority


@numba.njit(cache=True)
def rebuild(old, new, scale, extra, use_minority, best):
    """Copy into ``new`` the entries of ``old`` that can still prune something.

    An entry whose prefix fails the insertion test (``b + [b0] + extra ≥ R^c``)
    is useless: every permutation of it fails the same test, since they all
    have ``b`` at least as large and the same ``b0``. Dropping it changes no
    decision of the search (spec §3.3).
    """
    for i in range(old.used.shape[0]):
        if not old.used[i]:
            continue
        key = old.bound[i] + extra + (old.minority[i] * scale if use_minority else 0)
        if key >= best:
            continue
        slot, _ = find(new, old.hashes[i], old.keys[i])
        store(new, slot, old.hashes[i], old.keys[i], old.node[i], old.generation[i], old.bound[i],
              old.minority[i], True)
