"""The symmetry-aware map (paper §5.3, Algorithm 6) as a compact hash table in arrays.

A key is a fixed number of uint64 words:

* the **permutation map** (Corollary 16) keys a prefix by the *set* of its
  antecedents: their indices sorted, as uint16s (four per word, padded with
  0xFFFF), hashed by XOR of per-antecedent random words (so a child's hash is
  its parent's with one word XORed in);
* the **captured-vector map** (Theorem 15, the equivalent support bound) keys
  a prefix by the rows it leaves uncaptured: it stores the same sorted set
  (which determines those rows) under the hash of the rows, and compares
  entries by recomputing the rows from the set (``kernels.find_captured``), so
  an entry stays a few words long on any number of rows.

The value is the best known prefix with that key, ``(node, generation)``,
with its lower bound ``b`` and its uncaptured minority count.

Layout (as CPython's dict): entries are dense rows appended in insertion
order; an open-addressing ``index`` (linear probing, a power of two, at most
half full) maps a hash to an entry number and keeps the hash beside it, so a
probe touches the entries only on a hash match. Growing the index rehashes
int32s; dropping entries that can no longer prune anything is a sequential
compaction.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

EMPTY = -1


class PMap(NamedTuple):
    """The map's arrays; ``counts[0]`` entries are used.

    Attributes
    ----------
    index : array of int32, shape (slots,)
        Entry number stored in each slot, ``EMPTY`` if none.
    index_hash : array of uint64, shape (slots,)
        Hash of the key in each slot.
    keys : array of uint64, shape (cap, key_words)
    hashes : array of uint64, shape (cap,)
    node : array of int32, shape (cap,)
    generation : array of int32, shape (cap,)
    bound : array of int64, shape (cap,)
        Scaled lower bound ``b`` of the stored prefix.
    minority : array of int32, shape (cap,)
        Minority rows the stored prefix leaves uncaptured (the same for every
        prefix with this key).
    counts : array of int64, shape (1,)
    """

    index: np.ndarray
    index_hash: np.ndarray
    keys: np.ndarray
    hashes: np.ndarray
    node: np.ndarray
    generation: np.ndarray
    bound: np.ndarray
    minority: np.ndarray
    counts: np.ndarray


_ENTRY_FIELDS = (
    ("hashes", np.uint64),
    ("node", np.int32),
    ("generation", np.int32),
    ("bound", np.int64),
    ("minority", np.int32),
)


def make_pmap(capacity, key_words, slots=None):
    """Return an empty map for ``capacity`` entries (``slots`` a power of two ≥ 2 × capacity)."""
    slots = slots or _pow2(2 * capacity)
    return PMap(
        index=np.full(slots, EMPTY, dtype=np.int32),
        index_hash=np.zeros(slots, dtype=np.uint64),
        keys=np.zeros((capacity, key_words), dtype=np.uint64),
        counts=np.zeros(1, dtype=np.int64),
        **{name: np.zeros(capacity, dtype=dtype) for name, dtype in _ENTRY_FIELDS},
    )


def resized(pmap, capacity):
    """Return a copy of ``pmap`` with room for ``capacity`` entries and an index to match."""
    out = unindexed_copy(pmap, capacity)
    reindex(out)
    return out


def unindexed_copy(pmap, capacity):
    """Return a copy of ``pmap``'s entries with room for ``capacity``, its index empty: ``index_range`` over
    every entry, in one call (``reindex``) or in pieces, completes it."""
    out = make_pmap(capacity, pmap.keys.shape[1])
    n = pmap.counts[0]
    out.keys[:n] = pmap.keys[:n]
    for name, _ in _ENTRY_FIELDS:
        getattr(out, name)[:n] = getattr(pmap, name)[:n]
    out.counts[0] = n
    return out


def widened(pmap, key_words):
    """Return a copy of ``pmap`` whose sorted-antecedent keys have ``key_words`` words (padding 0xFFFF)."""
    keys = np.full((pmap.keys.shape[0], key_words), np.iinfo(np.uint64).max, dtype=np.uint64)
    keys[:, : pmap.keys.shape[1]] = pmap.keys
    return pmap._replace(keys=keys)


def _pow2(x):
    p = 1
    while p < x:
        p *= 2
    return p


def pmap_bytes(pmap):
    return sum(a.nbytes for a in pmap)


@numba.njit(cache=True)
def find(pmap, h, key):
    """Return ``(slot, entry)``: the slot holding ``key`` and its entry, or the empty slot and ``EMPTY``."""
    mask = pmap.index.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    words = key.shape[0]
    while pmap.index[i] != EMPTY:
        if pmap.index_hash[i] == h:
            e = pmap.index[i]
            same = True
            for w in range(words):
                if pmap.keys[e, w] != key[w]:
                    same = False
                    break
            if same:
                return i, e
        i = (i + 1) & mask
    return i, EMPTY


@numba.njit(cache=True)
def room(pmap):
    """Return how many entries fit before the entries or the index must grow."""
    n = pmap.counts[0]
    return min(pmap.keys.shape[0] - n, pmap.index.shape[0] // 2 - n)


@numba.njit(cache=True)
def insert(pmap, slot, h, key, node, generation, bound, minority):
    """Append an entry for ``key`` into the empty ``slot`` found by ``find`` (the caller checked ``room``)."""
    e = pmap.counts[0]
    pmap.counts[0] = e + 1
    pmap.keys[e, :] = key
    pmap.hashes[e] = h
    pmap.index[slot] = e
    pmap.index_hash[slot] = h
    # int64 arguments at both call sites: numba compiles update once, not once per integer width or literal.
    update(pmap, np.int64(e), np.int64(node), np.int64(generation), bound, np.int64(minority))


@numba.njit(cache=True)
def update(pmap, e, node, generation, bound, minority):
    """Make entry ``e`` point at a better prefix."""
    pmap.node[e] = node
    pmap.generation[e] = generation
    pmap.bound[e] = bound
    pmap.minority[e] = minority


@numba.njit(cache=True)
def reindex(pmap):
    """Rebuild the index from the entries."""
    pmap.index[:] = EMPTY
    index_range(pmap, 0, pmap.counts[0])


@numba.njit(cache=True)
def index_range(pmap, start, stop):
    """Enter entries ``start`` to ``stop - 1`` into the index (entered in order, they give ``reindex``'s index)."""
    mask = pmap.index.shape[0] - 1
    for e in range(start, stop):
        h = pmap.hashes[e]
        i = np.int64(h & np.uint64(mask))
        while pmap.index[i] != EMPTY:
            i = (i + 1) & mask
        pmap.index[i] = e
        pmap.index_hash[i] = h


@numba.njit(cache=True)
def move(pmap, to, frm):
    """Copy entry ``frm`` over entry ``to`` (compacting the dense entries; the index is rebuilt after)."""
    pmap.keys[to, :] = pmap.keys[frm, :]
    pmap.hashes[to] = pmap.hashes[frm]
    update(
        pmap,
        to,
        np.int64(pmap.node[frm]),
        np.int64(pmap.generation[frm]),
        pmap.bound[frm],
        np.int64(pmap.minority[frm]),
    )


@numba.njit(cache=True)
def compact(pmap, scale, extra, use_minority, best):
    """Drop the entries that can no longer prune anything; return how many remain.

    An entry whose prefix fails the insertion test (``b + [b0] + extra ≥ R^c``)
    is useless: every other ordering with a smaller ``b`` is inserted whether
    the entry exists or not, and every one with a larger ``b`` fails the same
    test (same ``b0``). Dropping it changes no decision of the search.
    """
    kept = 0
    for e in range(pmap.counts[0]):
        key = pmap.bound[e] + extra + (pmap.minority[e] * scale if use_minority else 0)
        if key >= best:
            continue
        if kept != e:
            move(pmap, np.int64(kept), np.int64(e))
        kept += 1
    pmap.counts[0] = kept
    reindex(pmap)
    return kept


@numba.njit(cache=True)
def forget(pmap, keep):
    """Keep only the ``keep`` most recent entries (the map's memory is full); return how many remain.

    Dropping an entry is always safe: it only prunes worse orderings of the prefix it holds, which are then
    searched again.
    """
    n = pmap.counts[0]
    start = max(0, n - keep)
    for e in range(start, n):
        move(pmap, np.int64(e - start), np.int64(e))
    pmap.counts[0] = n - start
    reindex(pmap)
    return n - start
