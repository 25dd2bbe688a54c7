"""The best tree of depth ≤ 2 of a node from per-value histograms: every root threshold, no bounds needed.

The depth-two routine (``solver.ordered.sweep``) walks every row of every feature once per root split, and the
interval search picks which root splits to walk. On a large node whose features take few distinct values (a
table of 300,000 flights has about a thousand departure times), it is cheaper to keep, for each feature, the cost
sums of the node's rows per distinct value, on each side of the root threshold: moving the root threshold past
a value moves its rows' costs between the two sides' histograms (one add per row and feature), and each side's
best stump is a scan over the histogram's values instead of its rows. The node's depth-≤2 optimum over every
root threshold then costs about ``n F² + 2 M²`` operations (``n`` rows, ``F`` features, ``M`` distinct values in
all) instead of ``n F`` per root split.

Nothing is pruned, so the answer is exact whatever the bounds; ties go to the first root feature and threshold,
then the first child feature and threshold. A frame solves one root feature per call (``root_feature``), so that
the search returns to the driver between them.
"""

import numba
import numpy as np

INF = np.inf


@numba.njit(cache=True)
def node_bins(ordl, srk, n, bins, vals, off, m):
    """Number the node's distinct values of each feature; return ``M``, their count over all features.

    Parameters
    ----------
    ordl, srk : array of int32, shape (F, N)
        The node's rows sorted by each feature and their ranks (first ``n`` entries used).
    bins : array of int32, shape (F, N)
        Out: ``bins[g, r]``, the index of row ``r``'s value among the node's values of feature ``g``.
    vals : array of int32, shape (cap,)
        Out: ``vals[off[g] + b]``, the rank of value ``b`` of feature ``g``.
    off, m : array of int64, shape (F,)
        Out: where feature ``g``'s values start in ``vals``, and how many there are.

    Returns -1, having stopped, when the values do not fit in ``vals``.
    """
    F = ordl.shape[0]
    pos = 0
    for g in range(F):
        off[g] = pos
        last = -1
        for p in range(n):
            rk = srk[g, p]
            if p == 0 or rk != last:
                if pos == vals.shape[0]:
                    return -1
                vals[pos] = rk
                pos += 1
                last = rk
            bins[g, ordl[g, p]] = pos - 1 - off[g]
        m[g] = pos - off[g]
    return pos


@numba.njit(cache=True)
def _leaf(tot, L):
    best, lab = tot[0], 0
    for l in range(1, L):
        if tot[l] < best:
            best, lab = tot[l], l
    return best, lab


@numba.njit(cache=True)
def best_stump(H, C, LH, LC, right, tot, size, vals, off, m, cc, min_leaf, pre, out):
    """Write the best stump of one side of the root split into ``out``; return its cost (inf when none fits).

    The left side's cost sums and rows at value ``b`` of feature ``g`` are ``LH[off[g] + b, :]`` and
    ``LC[off[g] + b]``; the right side's (``right``) are the node's (``H``, ``C``) minus those. ``tot`` (L,)
    holds the side's cost sums and ``size`` its rows. ``out``: feature, split rank (left iff rank < it), left
    label, right label. ``pre`` (L,) is scratch.
    """
    F, L = off.shape[0], tot.shape[0]
    best = INF
    for g in range(F):
        pre[:] = 0.0
        cnt = 0
        o = off[g]
        for b in range(m[g]):
            i = o + b
            c = C[i] - LC[i] if right else LC[i]
            if c == 0:
                continue
            if cnt >= min_leaf and size - cnt >= min_leaf:
                left, labl = _leaf(pre, L)
                rest, labr = INF, 0
                for l in range(L):
                    x = tot[l] - pre[l]
                    if x < rest:
                        rest, labr = x, l
                value = left + rest + cc
                if value < best:
                    best = value
                    out[0], out[1], out[2], out[3] = g, vals[i], labl, labr
            for l in range(L):
                pre[l] += H[i, l] - LH[i, l] if right else LH[i, l]
            cnt += c
    return best


@numba.njit(cache=True)
def totals(cost, ordl, bins, n, off, m, H, C, tot):
    """Fill the node's histograms: cost sums ``H`` (M, L) and rows ``C`` (M,) per feature and value; ``tot`` (L,)."""
    F, L = ordl.shape[0], cost.shape[1]
    M = off[F - 1] + m[F - 1]
    H[:M, :] = 0.0
    C[:M] = 0
    tot[:] = 0.0
    rows = ordl[0]
    for p in range(n):
        r = rows[p]
        for l in range(L):
            tot[l] += cost[r, l]
        for g in range(F):
            i = off[g] + bins[g, r]
            C[i] += 1
            for l in range(L):
                H[i, l] += cost[r, l]


@numba.njit(cache=True)
def root_feature(cost, ordl, srk, n, j, budget, cc, min_leaf, bins, vals, off, m, H, C, LH, LC, sw, tree, best):
    """Return the cost of the best tree of depth ≤ 2 split at the root on feature ``j``, if below ``best``.

    Every threshold of ``j`` is tried, moving its rows' costs into the left side's histograms ``LH``, ``LC``.
    Returns ``best`` unchanged when no split on ``j`` is better; else writes the tree into ``tree``.

    Parameters
    ----------
    cost : array of float64, shape (N, L)
    ordl, srk : array of int32, shape (F, N)
    n, j : int
    budget : int
        Branching nodes allowed (1: the root's children are leaves; 2: one of them may split; 3 or more: both).
    cc : float
        Cost of a branching node.
    min_leaf : int
    bins, vals, off, m
        Filled by ``node_bins`` for this node.
    H, LH : array of float64, shape (≥ M, L); C, LC : array of int64, shape (≥ M,)
        The node's histograms (``totals``) and scratch for the left side's.
    sw : array of float64, shape (4, L)
        ``sw[0]``: the node's cost sums (``totals``); the other rows are scratch.
    tree : array of int64, shape (12,)
        Out: root feature, root split rank, then per side (left, right): stump feature (-1: a leaf), split rank,
        left label, right label, leaf label.
    """
    F, L = ordl.shape[0], cost.shape[1]
    M = off[F - 1] + m[F - 1]
    tot, ltot, rtot, pre = sw[0], sw[1], sw[2], sw[3]
    LH[:M, :] = 0.0
    LC[:M] = 0
    ltot[:] = 0.0
    sl = np.zeros(4, dtype=np.int64)
    sr = np.zeros(4, dtype=np.int64)
    rows, ranks = ordl[j], srk[j]
    for p in range(n):
        if p > 0 and ranks[p] != ranks[p - 1] and p >= min_leaf and n - p >= min_leaf:
            for l in range(L):
                rtot[l] = tot[l] - ltot[l]
            leaf_l, lab_l = _leaf(ltot, L)
            leaf_r, lab_r = _leaf(rtot, L)
            stump_l = stump_r = INF
            if budget >= 2:
                stump_l = best_stump(H, C, LH, LC, np.bool_(False), ltot, p, vals, off, m, cc, min_leaf, pre, sl)
                stump_r = best_stump(H, C, LH, LC, np.bool_(True), rtot, n - p, vals, off, m, cc, min_leaf, pre, sr)
            if budget >= 3:
                use_l, use_r = stump_l < leaf_l, stump_r < leaf_r
            elif stump_l + leaf_r <= leaf_l + stump_r:
                use_l, use_r = stump_l < leaf_l, False
            else:
                use_l, use_r = False, stump_r < leaf_r
            value = cc + (stump_l if use_l else leaf_l) + (stump_r if use_r else leaf_r)
            if value < best:
                best = value
                tree[0], tree[1] = j, ranks[p]
                _side(tree, np.int64(2), use_l, sl, lab_l)
                _side(tree, np.int64(7), use_r, sr, lab_r)
        r = rows[p]
        for g in range(F):
            i = off[g] + bins[g, r]
            LC[i] += 1
            for l in range(L):
                LH[i, l] += cost[r, l]
        for l in range(L):
            ltot[l] += cost[r, l]
    return best


@numba.njit(cache=True)
def _side(tree, at, stump, s, leaf_label):
    if stump:
        tree[at], tree[at + 1], tree[at + 2], tree[at + 3] = s[0], s[1], s[2], s[3]
    else:
        tree[at], tree[at + 1], tree[at + 2], tree[at + 3] = -1, 0, leaf_label, leaf_label
    tree[at + 4] = leaf_label
