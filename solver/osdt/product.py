"""The Cartesian product of an entry's split leaves × features, with whole groups of children pruned.

When trees are pruned as they are queued (``prune_when_queued``), a child
tree whose objective cannot beat the incumbent and whose every split set the
bounds would drop at once is useless: it is not even built. Both quantities
add up over the split leaves. For leaf l split on feature f into (c0, c1):

- ``kept[l, f]`` = loss(c0) + loss(c1): R(child) = base + Σ kept, with
  base = loss of the unchanged leaves + λ × leaves of the child;
- ``bound[l, f]`` = the least (c0, c1) can add to a split set's bound: each
  child either stays (its loss) or is split (its equivalent-point minority,
  Thm B.2, plus λ for the extra leaf, Lemma 3.2), and a weak split (Thm 3.4)
  must have one child split.

A tuple is skipped when base + Σ kept ≥ R_c and base + Σ bound ≥ R_c; the
sums over the leaves not yet chosen are bounded by each leaf's least value,
so whole prefixes of the product are skipped at once. Candidates are sorted
by min(kept, bound), so the first failing candidate ends its leaf's row.
"""

from __future__ import annotations

import numba
import numpy as np

from solver.osdt import bounds
from solver.osdt import leaves as lc
from solver.osdt.state import (
    C_EQUIVALENT, C_FEATURES, C_HIERARCHICAL, C_INCREMENTAL, C_LEAF_ACCURACY, C_LOOKAHEAD, C_MAX_DEPTH, C_SIMILAR,
    C_SUPPORT, I_BUDGET, I_FIXED, I_LEAF_HITS, I_LEAVES, I_SEEK, I_SPLITS, P_FAMILY, P_LEAF_ACCURACY, P_SIMILAR,
    R_INCUMBENT, R_LAMBDA, R_TOTAL,
)

PENDING = -2  # a probed child not yet in the leaf cache: cached when a built tree uses it
FOUND, EXHAUSTED, PAUSED = 0, 1, 2
CHECKS_PER_UNIT = 64

# Sums here are added in another order than the bounds of single entries, so a
# group is skipped only when its bound clears R_c by this margin; the entries
# it spares are tested exactly when made.
MARGIN = 1e-9


@numba.njit(cache=True)
def fetch_child(data, leaves, exp, ints, reals, i, f, v, cfg):
    """Return the id of ``split[i] ∧ x_f = v`` from the leaf cache, building it when new."""
    c, created = lc.child_leaf(leaves, data, ints[I_LEAVES], exp.split[i], exp.caps[i], f, v, exp.key_used,
                               exp.key_value, exp.scratch, reals[R_TOTAL], reals[R_LAMBDA], cfg[C_SUPPORT] != 0)
    if created:
        ints[I_LEAVES] += 1
    else:
        ints[I_LEAF_HITS] += 1
    return c


@numba.njit(cache=True)
def probe_child(data, leaves, exp, cfg, ints, reals, i, f, v):
    """Return (id or PENDING, loss, correct, b0, may split) of ``split[i] ∧ x_f = v`` without caching it."""
    parent = exp.split[i]
    lc.child_key(leaves, parent, f, v, exp.key_used, exp.key_value)
    c = leaves.table[lc.find_slot(leaves, exp.key_used, exp.key_value)]
    if c != lc.EMPTY:
        ints[I_LEAF_HITS] += 1
        ok = lc.can_split(leaves, c, cfg[C_FEATURES], cfg[C_MAX_DEPTH])
        return c, leaves.loss[c], leaves.correct[c], leaves.b0[c], ok
    pos, neg, low = lc.child_masses(data, exp.caps[i], f, v, exp.scratch)
    _, loss, correct, b0 = lc.numbers(pos, neg, low, reals[R_TOTAL])
    dead = lc.support_dead(loss, reals[R_LAMBDA], cfg[C_SUPPORT] != 0)
    ok = lc.splittable(exp.key_used, leaves.dead[parent], leaves.depth[parent] + 1, dead, cfg[C_FEATURES],
                       cfg[C_MAX_DEPTH])
    return PENDING, loss, correct, b0, ok


@numba.njit(cache=True)
def split_cost(b0, may_split, lam, cfg):
    """Least a new leaf adds to an entry's bound when it is split (inf when it may not be)."""
    if not may_split:
        return np.inf
    return (b0 if cfg[C_EQUIVALENT] else 0.0) + (lam if cfg[C_LOOKAHEAD] else 0.0)


@numba.njit(cache=True)
def pair_bound(parent_loss, k0, k1, s0, s1, lam, cfg):
    """Least children with losses (k0, k1) and split costs (s0, s1) add to the bound of any split set."""
    if cfg[C_INCREMENTAL] and bounds.must_split_further(parent_loss, k0, k1, lam):
        return min(s0 + min(k1, s1), s1 + min(k0, s0))  # Theorem 3.4: one of them is split
    return min(k0, s0) + min(k1, s1)


@numba.njit(cache=True)
def prepare(data, leaves, exp, cfg, ints, reals, eager):
    """Probe every candidate's children, drop rejected features, and (``eager``) sort and sum the rows.

    Returns False when some split leaf has no candidate left (the entry has no children).
    """
    lam, incumbent = reals[R_LAMBDA], reals[R_INCUMBENT]
    n_split, n_fixed = ints[I_SPLITS], ints[I_FIXED]
    base = lam * (n_fixed + 2 * n_split)
    for i in range(n_fixed):
        base += leaves.loss[exp.fixed[i]]
    for i in range(n_split):
        kept_n = keep_row(data, leaves, exp, cfg, ints, reals, i, base, lam, incumbent)
        exp.n_cand[i] = kept_n
        if kept_n == 0:
            return False
        if eager:
            sort_row(exp, i)
    if eager:
        sum_rows(exp, n_split)
    return True


@numba.njit(cache=True)
def keep_row(data, leaves, exp, cfg, ints, reals, i, base, lam, incumbent):
    """Filter leaf ``i``'s candidates (Thm 3.5; with similar support, family bounds and Thm F.1).

    Returns how many candidates stay.
    """
    leaf, kept_n, n_ruled = exp.split[i], 0, 0
    rest = 0.0
    if cfg[C_EQUIVALENT]:
        for j in range(ints[I_SPLITS]):
            if j != i:
                rest += leaves.b0[exp.split[j]]
    for c in range(exp.n_cand[i]):
        f = exp.cand[i, c]
        if cfg[C_SIMILAR] and similar_to_ruled(data, exp, n_ruled, f, incumbent):
            ints[P_SIMILAR] += 1
            continue
        ints[I_BUDGET] -= 1
        c0, k0, right0, e0, ok0 = probe_child(data, leaves, exp, cfg, ints, reals, i, f, 0)
        c1, k1, right1, e1, ok1 = probe_child(data, leaves, exp, cfg, ints, reals, i, f, 1)
        if cfg[C_LEAF_ACCURACY] and (bounds.rejects_child(right0, lam) or bounds.rejects_child(right1, lam)):
            lc.mark_dead(leaves, leaf, f)  # Theorem 3.5: f stays dead below this leaf
            ints[P_LEAF_ACCURACY] += 1
            continue
        if cfg[C_SIMILAR]:
            # Every tree splitting this leaf on f, and every descendant, has at least
            # this objective (Thm 3.1, B.2, Lemma 3.2; no Thm 3.4, so that it bounds values).
            family = base + rest + bounds.leaf_floor(k0, e0, lam, cfg) + bounds.leaf_floor(k1, e1, lam, cfg)
            if family >= incumbent:
                exp.ruled[n_ruled], exp.ruled_bound[n_ruled] = f, family
                n_ruled += 1
                ints[P_FAMILY] += 1
                continue
        exp.cand[i, kept_n], exp.child0[i, kept_n], exp.child1[i, kept_n] = f, c0, c1
        exp.kept[i, kept_n] = k0 + k1
        exp.bound[i, kept_n] = pair_bound(leaves.loss[leaf], k0, k1, split_cost(e0, ok0, lam, cfg),
                                          split_cost(e1, ok1, lam, cfg), lam, cfg)
        kept_n += 1
    return kept_n


@numba.njit(cache=True)
def similar_to_ruled(data, exp, n_ruled, f, incumbent):
    """Theorem F.1 (similar support): trees that differ only in one split's feature differ in objective
    by at most ω, the share of rows the two features send to different sides; so a feature within ω
    of a family ruled out by a margin ω is ruled out too."""
    for q in range(n_ruled):
        if exp.ruled_bound[q] - data.omega[exp.ruled[q], f] >= incumbent:
            return True
    return False


@numba.njit(cache=True)
def sort_row(exp, i):
    """Sort leaf ``i``'s candidates by min(kept, bound), ascending (insertion sort; rows are short)."""
    for a in range(1, exp.n_cand[i]):
        f, c0, c1 = exp.cand[i, a], exp.child0[i, a], exp.child1[i, a]
        k, b = exp.kept[i, a], exp.bound[i, a]
        key = min(k, b)
        z = a - 1
        while z >= 0 and min(exp.kept[i, z], exp.bound[i, z]) > key:
            exp.cand[i, z + 1] = exp.cand[i, z]
            exp.child0[i, z + 1], exp.child1[i, z + 1] = exp.child0[i, z], exp.child1[i, z]
            exp.kept[i, z + 1], exp.bound[i, z + 1] = exp.kept[i, z], exp.bound[i, z]
            z -= 1
        exp.cand[i, z + 1], exp.child0[i, z + 1], exp.child1[i, z + 1] = f, c0, c1
        exp.kept[i, z + 1], exp.bound[i, z + 1] = k, b


@numba.njit(cache=True)
def sum_rows(exp, n_split):
    """Fill ``suffix[:, i]`` with the sums of each row's least kept, bound and min over leaves i.."""
    exp.suffix[:, n_split] = 0.0
    exp.prefix[:, 0] = 0.0
    for i in range(n_split - 1, -1, -1):
        lk, lb, lh = np.inf, np.inf, np.inf
        for c in range(exp.n_cand[i]):
            lk = min(lk, exp.kept[i, c])
            lb = min(lb, exp.bound[i, c])
            lh = min(lh, min(exp.kept[i, c], exp.bound[i, c]))
        exp.suffix[0, i] = exp.suffix[0, i + 1] + lk
        exp.suffix[1, i] = exp.suffix[1, i + 1] + lb
        exp.suffix[2, i] = exp.suffix[2, i + 1] + lh


@numba.njit(cache=True)
def seek(exp, cfg, reals, ints, base):
    """Move ``digit`` to the first tuple not skipped, from leaf ``ints[I_SEEK]``'s current digit on.

    Leaves before that one keep their digits (their prefix sums are valid).
    Returns FOUND (``I_SEEK`` = -1), EXHAUSTED, or PAUSED when the budget runs
    out (every ``CHECKS_PER_UNIT`` candidates tested cost one unit); a paused
    seek resumes where it stopped.
    """
    n_split = ints[I_SPLITS]
    bounded = cfg[C_HIERARCHICAL] or cfg[C_LOOKAHEAD] or cfg[C_EQUIVALENT]
    i = ints[I_SEEK]
    checks = 0
    while True:
        if i < 0:
            return EXHAUSTED
        if i == n_split:
            ints[I_SEEK] = -1
            return FOUND
        checks += 1
        if checks == CHECKS_PER_UNIT:
            checks = 0
            ints[I_BUDGET] -= 1
            if ints[I_BUDGET] <= 0:
                ints[I_SEEK] = i
                return PAUSED
        d = exp.digit[i]
        if d >= exp.n_cand[i]:
            exp.digit[i] = 0
            i -= 1
            if i >= 0:
                exp.digit[i] += 1
            continue
        room = reals[R_INCUMBENT] - base - MARGIN
        k = exp.prefix[0, i] + exp.kept[i, d]
        b = exp.prefix[1, i] + exp.bound[i, d]
        h = exp.prefix[2, i] + min(exp.kept[i, d], exp.bound[i, d])
        if bounded and h + exp.suffix[2, i + 1] >= room:
            exp.digit[i] = exp.n_cand[i]  # sorted rows: every later candidate fails too
            continue
        if bounded and k + exp.suffix[0, i + 1] >= room and b + exp.suffix[1, i + 1] >= room:
            exp.digit[i] += 1
            continue
        exp.prefix[0, i + 1], exp.prefix[1, i + 1], exp.prefix[2, i + 1] = k, b, h
        i += 1
        if i < n_split:
            exp.digit[i] = 0
