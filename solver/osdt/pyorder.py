"""The order in which the authors' code tries the features of a leaf, so that the paper's counts reproduce.

The reference implementation lists a leaf's features as the Python set
``set(range(1, M + 1)) - set(used) - set(dead)`` (1-based) and iterates it.
CPython iterates a set by hash-table slot, and a small int hashes to itself,
so the order is ascending except when a small set's table wraps (``{3, 9}``
in an 8-slot table iterates 9, 3). Which tree is expanded first among equal
priorities depends on that order, so Table 2's tree counts (232,402 with the
warm start) come out exactly only with it. This module replays CPython's
set table (``Objects/setobject.c``: linear probes, perturbation, resizes,
``set_difference``'s two paths) on small int64 arrays. It decides the order of
work only; the optimum never depends on it.
"""

from __future__ import annotations

import numba
import numpy as np

# An emulated set is a table of keys (> 0, FREE or DUMMY) and meta = (mask, fill, used).
FREE, DUMMY = 0, -1
MIN_SIZE, LINEAR_PROBES, PERTURB_SHIFT = 8, 9, 5


@numba.njit(cache=True)
def _clear(table, meta, size):
    table[:size] = FREE
    meta[0], meta[1], meta[2] = size - 1, 0, 0


@numba.njit(cache=True)
def _insert_clean(table, mask, key):
    """``set_insert_clean``: place ``key`` in a table without dummies or equal keys."""
    i = key & mask
    perturb = key
    while True:
        if table[i] == FREE:
            table[i] = key
            return
        if i + LINEAR_PROBES <= mask:
            for j in range(i + 1, i + LINEAR_PROBES + 1):
                if table[j] == FREE:
                    table[j] = key
                    return
        perturb >>= PERTURB_SHIFT
        i = (i * 5 + 1 + perturb) & mask


@numba.njit(cache=True)
def _resize(table, meta, minused, scratch):
    """``set_table_resize``: rebuild into the smallest power-of-two table above ``minused``."""
    size = MIN_SIZE
    while size <= minused:
        size <<= 1
    old = meta[0] + 1
    scratch[:old] = table[:old]
    table[:size] = FREE
    for s in range(old):
        if scratch[s] > 0:
            _insert_clean(table, size - 1, scratch[s])
    meta[0], meta[1] = size - 1, meta[2]


@numba.njit(cache=True)
def _add(table, meta, key, scratch):
    """``set_add_entry`` for a key not yet present, in a table without dummies."""
    mask = meta[0]
    _insert_clean(table, mask, key)
    meta[1] += 1
    meta[2] += 1
    if meta[1] * 5 >= mask * 3:
        _resize(table, meta, meta[2] * 4, scratch)


@numba.njit(cache=True)
def _contains(table, meta, key):
    for s in range(meta[0] + 1):
        if table[s] == key:
            return True
    return False


@numba.njit(cache=True)
def _difference(so, so_meta, other, other_meta, out, out_meta, scratch):
    """``set_difference(so, other)`` into ``out``: copy-and-discard when ``so`` is much larger, else re-add."""
    _clear(out, out_meta, np.int64(MIN_SIZE))  # int64: one compiled _clear
    if (so_meta[2] >> 2) > other_meta[2]:
        # set_copy: set_merge into an empty table, then discard other's keys
        used = so_meta[2]
        if used * 5 >= 7 * 3:
            size = MIN_SIZE
            while size <= used * 2:
                size <<= 1
            _clear(out, out_meta, size)
        if out_meta[0] == so_meta[0] and so_meta[1] == so_meta[2]:
            out[: so_meta[0] + 1] = so[: so_meta[0] + 1]
        else:
            for s in range(so_meta[0] + 1):
                if so[s] > 0:
                    _insert_clean(out, out_meta[0], so[s])
        out_meta[1], out_meta[2] = used, used
        for s in range(other_meta[0] + 1):
            key = other[s]
            if key > 0:
                for t in range(out_meta[0] + 1):
                    if out[t] == key:
                        out[t] = DUMMY
                        out_meta[2] -= 1
                        break
        if (out_meta[1] - out_meta[2]) > out_meta[0] // 4:
            _resize(out, out_meta, out_meta[2] * 4, scratch)
        return
    for s in range(so_meta[0] + 1):
        key = so[s]
        if key > 0 and not _contains(other, other_meta, key):
            _add(out, out_meta, key, scratch)


@numba.njit(cache=True)
def _from_keys(keys, n, table, meta, scratch):
    _clear(table, meta, np.int64(MIN_SIZE))
    for i in range(n):
        _add(table, meta, keys[i], scratch)


@numba.njit(cache=True)
def candidate_order(n_features, used, n_used, dead, n_dead, tables, metas, out):
    """Write the 0-based features of ``range(M) - used - dead`` in the authors' iteration order; return how many.

    Parameters
    ----------
    n_features : int
    used, dead : array of int64
        0-based features of the leaf's literals (``n_used``) and dead for it (``n_dead``).
    tables : array of int64, shape (6, T)
        Scratch set tables, T a power of two above 8 × (n_features + 1).
    metas : array of int64, shape (6, 3)
    out : array of int64, shape (n_features,)
    """
    keys = out  # reuse as scratch for 1-based keys before the result is written
    for f in range(n_features):
        keys[f] = f + 1
    _from_keys(keys, n_features, tables[0], metas[0], tables[5])
    for i in range(n_used):
        keys[i] = used[i] + 1
    _from_keys(keys, n_used, tables[1], metas[1], tables[5])
    _difference(tables[0], metas[0], tables[1], metas[1], tables[2], metas[2], tables[5])
    for i in range(n_dead):
        keys[i] = dead[i] + 1
    _from_keys(keys, n_dead, tables[3], metas[3], tables[5])
    _difference(tables[2], metas[2], tables[3], metas[3], tables[4], metas[4], tables[5])
    k = 0
    for s in range(metas[4][0] + 1):
        if tables[4][s] > 0:
            out[k] = tables[4][s] - 1
            k += 1
    return k


def scratch(n_features):
    """Return ``(tables, metas)`` scratch arrays for ``candidate_order``."""
    size = MIN_SIZE
    while size <= 8 * (n_features + 1):
        size <<= 1
    return np.zeros((6, size), np.int64), np.zeros((6, 3), np.int64)
