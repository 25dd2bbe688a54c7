"""The pruning rules of OSDT, each behind its switch, with the paper's theorem at the pruning line.

Notation (the paper's): a queue entry is a tree d with H leaves whose leaves
d_split (s of them) will be split and whose other leaves d_un never change.
b(d_un) = loss(d_un) + λH (eq. 5). R_c is the incumbent's objective.

The leaf count bounds are the corrected forms of the spec (errata 1–3): the
printed Theorem C.3 takes a floor and a strict cap at 2^M, and Corollary C.2
is off by one; both make the authors' code miss optima.
"""

from __future__ import annotations

import math

import numba

from solver.osdt.state import (
    C_EQUIVALENT,
    C_HIERARCHICAL,
    C_LEAF_COUNT,
    C_LOOKAHEAD,
    C_POINTS,
    C_PREFIX_LEAF_COUNT,
    C_SPLIT_CAP,
    P_EQUIVALENT,
    P_HIERARCHICAL,
    P_LEAF_COUNT,
    P_LOOKAHEAD,
    P_PREFIX_LEAF_COUNT,
)


LAYOUT_STAMP = "16cf25e65cec"  # state.LAYOUT these kernels were compiled against (see state.py)


@numba.njit(cache=True)
def entry_bound(lower, b0_split, n_split, lam, cfg):
    """Return the bound on every descendant of an entry: b(d_un) + b0(d_split) + s·λ, by the switches on.

    Same expression order as the authors' code, so that ties compare alike.
    """
    b0 = b0_split if cfg[C_EQUIVALENT] else 0.0
    step = lam if cfg[C_LOOKAHEAD] else 0.0
    return lower + b0 + n_split * step


@numba.njit(cache=True)
def pruning_rule(lower, bound, n_leaves, n_split, incumbent, lam, cfg):
    """Return the prune counter of the first rule that rules an entry out, or -1.

    Every descendant of the entry has at least ``n_leaves + n_split`` leaves
    and keeps the unchanged leaves' errors.
    """
    grown = n_leaves + n_split
    if cfg[C_PREFIX_LEAF_COUNT]:
        # Theorem C.3 (corrected): b(d'_un) ≥ b(d_un) + λ(H' − H), so a better
        # descendant has H' ≤ H + ⌈(R_c − b(d_un))/λ⌉ − 1, and H' ≤ 2^M.
        room = math.ceil((incumbent - lower) / lam) - 1
        if grown > n_leaves + room or grown > cfg[C_SPLIT_CAP]:
            return P_PREFIX_LEAF_COUNT
    if cfg[C_LEAF_COUNT]:
        # Theorem C.1 with Corollary C.2 corrected: λH' < R_c, so H' ≤ ⌈R_c/λ⌉ − 1;
        # and a leaf of an optimal tree holds at least one distinct point.
        most = min(math.ceil(incumbent / lam) - 1, cfg[C_POINTS])
        if grown > most:
            return P_LEAF_COUNT
    if cfg[C_HIERARCHICAL] and lower >= incumbent:
        return P_HIERARCHICAL  # Theorem 3.1: b(d_un) ≤ R(d') for every d' ∈ σ(d)
    if cfg[C_LOOKAHEAD] and bound >= incumbent:
        return P_LOOKAHEAD  # Lemma 3.2 (with B.2 when on): every descendant has s more leaves
    if cfg[C_EQUIVALENT] and bound >= incumbent:
        return P_EQUIVALENT  # Theorem B.2: the minority of each equivalence class in d_split stays wrong
    return -1


@numba.njit(cache=True, inline="always")
def rejects_child(correct, lam):
    """Theorem 3.5 (leaf accuracy): a leaf of an optimal tree classifies more than λ of the data correctly.

    The test is ``≤ λ``, as in the authors' code: the optimal tree with the
    fewest leaves satisfies the strict inequality, so it is never rejected.
    """
    return correct <= lam


@numba.njit(cache=True, inline="always")
def must_split_further(parent_loss, loss0, loss1, lam):
    """Theorem 3.4 (incremental accuracy): a sibling leaf pair must gain more than λ over its parent.

    True when the split gains at most λ, so one of the two children must be split again.
    """
    return parent_loss - loss0 - loss1 <= lam


@numba.njit(cache=True, inline="always")
def leaf_floor(loss, b0, lam, cfg):
    """Return the least a new leaf adds to any tree that keeps it or splits it further.

    Kept, it adds its loss; split, at least its equivalent-point minority (B.2)
    and one more leaf (Lemma 3.2).
    """
    return min(loss, (b0 if cfg[C_EQUIVALENT] else 0.0) + (lam if cfg[C_LOOKAHEAD] else 0.0))
