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

A tuple is skipped when base + Σ kept ≥ R_c and base + Σ bound ≥ R_c. The
product is walked twice, once for each sum being small (rows sorted by that
sum), and the sums over the leaves not yet chosen are bounded by each leaf's
least value, so whole prefixes and the rest of a row are skipped at once.
"""

from __future__ import annotations

import numba
import numpy as np

from solver.osdt import bounds
from solver.osdt import leaves as lc
from solver.osdt.state import (
    C_EQUIVALENT,
    C_FEATURES,
    C_HIERARCHICAL,
    C_INCREMENTAL,
    C_LEAF_ACCURACY,
    C_LOOKAHEAD,
    C_MAX_DEPTH,
    C_SIMILAR,
    C_SUPPORT,
    I_BUDGET,
    I_FIXED,
    I_LEAF_HITS,
    I_LEAVES,
    I_PASS,
    I_SEEK,
    I_SPLITS,
    P_FAMILY,
    P_LEAF_ACCURACY,
    P_SIMILAR,
    R_INCUMBENT,
    R_LAMBDA,
    R_TOTAL,
)

PENDING = -2  # a probed child, looked up or cached when a built tree uses it
FOUND, EXHAUSTED, PAUSED = 0, 1, 2
CHECKS_PER_UNIT = 64

# Sums here are added in another order than the bounds of single entries, so a
# group is skipped only when its bound clears R_c by this margin; the entries
# it spares are tested exactly when made.
MARGIN = 1e-9


LAYOUT_STAMP = "16cf25e65cec"  # state.LAYOUT these kernels were compiled against (see state.py)


@numba.njit(cache=True, inline="always")
def fetch_child(data, leaves, exp, ints, reals, i, f, v, cfg):
    """Return the id of ``split[i] ∧ x_f = v`` from the leaf cache, building it when new."""
    c, created = lc.child_leaf(
        leaves,
        data,
        ints[I_LEAVES],
        exp.split[i],
        exp.caps,
        i,
        f,
        v,
        exp.key,
        exp.scratch,
        reals[R_TOTAL],
        reals[R_LAMBDA],
        cfg[C_SUPPORT] != 0,
    )
    if created:
        ints[I_LEAVES] += 1
    else:
        ints[I_LEAF_HITS] += 1
    return c


@numba.njit(cache=True)
def child_may_split(leaves, parent, f, loss, cfg, reals):
    """Whether ``parent ∧ x_f = v`` with this loss may be split, judged by the parent's dead features.

    A child cached earlier may know more dead features; judging by fewer only
    lowers the bounds computed from it, so they stay valid.
    """
    if lc.support_dead(loss, reals[R_LAMBDA], cfg[C_SUPPORT] != 0) or leaves.depth[parent] + 1 >= cfg[C_MAX_DEPTH]:
        return False
    n_features = cfg[C_FEATURES]
    for k in range(leaves.dead.shape[1]):
        rest = n_features - 64 * k
        valid = ~np.uint64(0) if rest >= 64 else (np.uint64(1) << np.uint64(rest)) - np.uint64(1)
        used = leaves.keys[parent, k]  # key words 0..k-1 are the used features
        if k == f >> 6:
            used |= np.uint64(1) << np.uint64(f & 63)
        if valid & ~used & ~leaves.dead[parent, k]:
            return True
    return False


@numba.njit(cache=True, inline="always")
def probe_pair(data, leaves, exp, cfg, reals, i, f):
    """Return (loss, correct, b0, may split) of both children of ``split[i]`` on ``f``, without caching them.

    With whole-number masses, the ``x_f = 0`` child is the parent minus the ``x_f = 1`` child.
    """
    parent, total = exp.split[i], reals[R_TOTAL]
    pos1, neg1, low1 = lc.child_masses(data, exp.caps, i, f, 1, exp.scratch)
    if data.pos_planes.shape[0] > 0:
        pos0, neg0, low0 = exp.masses[i, 0] - pos1, exp.masses[i, 1] - neg1, exp.masses[i, 2] - low1
    else:
        pos0, neg0, low0 = lc.child_masses(data, exp.caps, i, f, 0, exp.scratch)
    _, k0, right0, e0 = lc.numbers(pos0, neg0, low0, total)
    _, k1, right1, e1 = lc.numbers(pos1, neg1, low1, total)
    ok0 = child_may_split(leaves, parent, f, k0, cfg, reals)
    ok1 = child_may_split(leaves, parent, f, k1, cfg, reals)
    return k0, right0, e0, ok0, k1, right1, e1, ok1


@numba.njit(cache=True, inline="always")
def split_cost(b0, may_split, lam, cfg):
    """Least a new leaf adds to an entry's bound when it is split (inf when it may not be)."""
    if not may_split:
        return np.inf
    return (b0 if cfg[C_EQUIVALENT] else 0.0) + (lam if cfg[C_LOOKAHEAD] else 0.0)


@numba.njit(cache=True, inline="always")
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
        sum_rows(exp, n_split)
        start_pass(exp, cfg, ints, np.int64(0))  # int64: one compiled start_pass for both passes
    return True


@numba.njit(cache=True)
def keep_row(data, leaves, exp, cfg, ints, reals, i, base, lam, incumbent):
    """Filter leaf ``i``'s candidates (Thm 3.5; with similar support, family bounds and Thm F.1).

    Returns how many candidates stay.
    """
    leaf, kept_n, n_ruled = exp.split[i], np.int64(0), np.int64(0)  # int64: one compiled similar_to_ruled
    rest = 0.0
    if cfg[C_EQUIVALENT]:
        for j in range(ints[I_SPLITS]):
            if j != i:
                rest += leaves.b0[exp.split[j]]
    for c in range(exp.n_cand[i]):
        f = exp.cand[i, c]
        if cfg[C_SIMILAR] and similar_to_ruled(data, exp, n_ruled, f, incumbent):
            ints[P_SIMILAR] += 1  # Theorem F.1: within ω of a family already ruled out
            continue
        ints[I_BUDGET] -= 1
        k0, right0, e0, ok0, k1, right1, e1, ok1 = probe_pair(data, leaves, exp, cfg, reals, i, f)
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
        exp.cand[i, kept_n], exp.child0[i, kept_n], exp.child1[i, kept_n] = f, PENDING, PENDING
        exp.kept[i, kept_n] = k0 + k1
        exp.bound[i, kept_n] = pair_bound(
            leaves.loss[leaf], k0, k1, split_cost(e0, ok0, lam, cfg), split_cost(e1, ok1, lam, cfg), lam, cfg
        )
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
def sort_rows(exp, n_split, by_bound):
    """Sort every split leaf's candidates by bound (``by_bound``) or by kept, ascending."""
    keys = exp.bound if by_bound else exp.kept
    for i in range(n_split):
        for a in range(1, exp.n_cand[i]):
            f, c0, c1 = exp.cand[i, a], exp.child0[i, a], exp.child1[i, a]
            k, b, key = exp.kept[i, a], exp.bound[i, a], keys[i, a]
            z = a - 1
            while z >= 0 and keys[i, z] > key:
                exp.cand[i, z + 1] = exp.cand[i, z]
                exp.child0[i, z + 1], exp.child1[i, z + 1] = exp.child0[i, z], exp.child1[i, z]
                exp.kept[i, z + 1], exp.bound[i, z + 1] = exp.kept[i, z], exp.bound[i, z]
                z -= 1
            exp.cand[i, z + 1], exp.child0[i, z + 1], exp.child1[i, z + 1] = f, c0, c1
            exp.kept[i, z + 1], exp.bound[i, z + 1] = k, b


@numba.njit(cache=True)
def sum_rows(exp, n_split):
    """Fill ``suffix[:, i]`` with the sums of each row's least kept and least bound over leaves i.."""
    exp.suffix[:, n_split] = 0.0
    exp.prefix[:, 0] = 0.0
    for i in range(n_split - 1, -1, -1):
        least_kept, least_bound = np.inf, np.inf
        for c in range(exp.n_cand[i]):
            least_kept = min(least_kept, exp.kept[i, c])
            least_bound = min(least_bound, exp.bound[i, c])
        exp.suffix[0, i] = exp.suffix[0, i + 1] + least_kept
        exp.suffix[1, i] = exp.suffix[1, i + 1] + least_bound


@numba.njit(cache=True)
def start_pass(exp, cfg, ints, pass_no):
    """Begin enumerating the product: pass 0 finds tuples with a surviving split set (rows by bound), pass 1
    the remaining ones that beat the incumbent (rows by kept). Without objective bounds, pass 0 takes all."""
    sort_rows(exp, ints[I_SPLITS], pass_no == 0)
    exp.digit[: ints[I_SPLITS]] = 0
    ints[I_PASS], ints[I_SEEK] = pass_no, 0


@numba.njit(cache=True)
def seek(exp, cfg, reals, ints, base):
    """Move ``digit`` to the next tuple of the current pass, from leaf ``ints[I_SEEK]``'s current digit on.

    Leaves before that one keep their digits (their prefix sums are valid).
    Rows are sorted by the pass's key, so the first candidate whose sum
    cannot stay below R_c ends its row. Returns FOUND (``I_SEEK`` = -1),
    EXHAUSTED after both passes, or PAUSED when the budget runs out (every
    ``CHECKS_PER_UNIT`` candidates tested cost one unit); a paused seek
    resumes where it stopped. A tuple may come out of both passes; the tree
    cache or a second evaluation absorbs that.
    """
    n_split = ints[I_SPLITS]
    bounded = cfg[C_HIERARCHICAL] or cfg[C_LOOKAHEAD] or cfg[C_EQUIVALENT]
    i = ints[I_SEEK]
    checks = 0
    while True:
        if i < 0:
            if ints[I_PASS] == 1 or not bounded:
                return EXHAUSTED
            start_pass(exp, cfg, ints, np.int64(1))
            i = 0
            continue
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
        k = exp.prefix[0, i] + exp.kept[i, d]
        b = exp.prefix[1, i] + exp.bound[i, d]
        room = reals[R_INCUMBENT] - base + MARGIN
        key, rest = (b, exp.suffix[1, i + 1]) if ints[I_PASS] == 0 else (k, exp.suffix[0, i + 1])
        if bounded and key + rest >= room:
            exp.digit[i] = exp.n_cand[i]  # sorted row: every later candidate fails too
            continue
        exp.prefix[0, i + 1], exp.prefix[1, i + 1] = k, b
        i += 1
        if i < n_split:
            exp.digit[i] = 0
