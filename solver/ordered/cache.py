"""The dataset cache of the ordered search: row set and budget → optimum (with its tree) or lower bound.

Spec ``contree.md`` §2.3 (dataset caching, as STreeD's §3.5) with the port's additions of §7.2 and
§10.3: a row set is keyed by two independent 64-bit sums of random per-row keys (order does not
matter, so equal partitions reached through different thresholds or features meet), plus its size
and depth/node budget; an entry holds the optimum and its tree, or a proved lower bound (the bound a
search failed under), never an incumbent's value. Entries are only ever raised (a bound) or made
exact, never invalidated.
"""

import numba
import numpy as np

from solver.ordered.state import EMPTY

_MIX_N = np.uint64(0x9E3779B97F4A7C15)
_MIX_D = np.uint64(0xC2B2AE3D27D4EB4F)
_MIX_B = np.uint64(0x165667B19E3779F9)


@numba.njit(cache=True, inline="always")
def _slot(k1, n, d, b, mask):
    h = k1 + np.uint64(n) * _MIX_N + np.uint64(d) * _MIX_D + np.uint64(b) * _MIX_B
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(mask))


@numba.njit(cache=True)
def find(ck1, ck2, ci, k1, k2, n, d, b):
    """Return the slot holding key ``(k1, k2, n, d, b)``, or ``-1 - slot`` of the empty slot where it would go.

    Parameters
    ----------
    ck1, ck2 : array of uint64, shape (C,)
        Row-set keys of the entries (C a power of two).
    ci : array of int32, shape (C, 4)
        Row count (``EMPTY`` marks a free slot), depth, node budget and tree of each entry.
    """
    mask = ck1.shape[0] - 1
    s = _slot(k1, n, d, b, mask)
    while True:
        if ci[s, 0] == EMPTY:
            return -1 - s
        if ck1[s] == k1 and ck2[s] == k2 and ci[s, 0] == n and ci[s, 1] == d and ci[s, 2] == b:
            return s
        s = (s + 1) & mask


@numba.njit(cache=True)
def store(ck1, ck2, ci, cv, cx, k1, k2, n, d, b, value, exact, tree):
    """Record an optimum (``exact``) or a lower bound; return 1 when a new slot was taken, else 0.

    An exact entry is final; a lower bound only ever rises.
    """
    s = find(ck1, ck2, ci, k1, k2, n, d, b)
    if s >= 0:
        if cx[s] == 1:
            return 0
        if exact:
            cv[s], cx[s], ci[s, 3] = value, 1, tree
        elif value > cv[s]:
            cv[s] = value
        return 0
    s = -1 - s
    ck1[s], ck2[s] = k1, k2
    ci[s, 0], ci[s, 1], ci[s, 2], ci[s, 3] = n, d, b, tree
    cv[s] = value
    cx[s] = 1 if exact else 0
    return 1


@numba.njit(cache=True)
def rehash(ck1, ck2, ci, cv, cx, nk1, nk2, nci, ncv, ncx):
    """Move every entry of the old table into the new (larger, empty) one."""
    for s in range(ck1.shape[0]):
        if ci[s, 0] != EMPTY:
            i = ci[s]
            store(
                nk1,
                nk2,
                nci,
                ncv,
                ncx,
                ck1[s],
                ck2[s],
                np.int64(i[0]),
                np.int64(i[1]),
                np.int64(i[2]),
                cv[s],
                cx[s] == 1,
                np.int64(i[3]),
            )
