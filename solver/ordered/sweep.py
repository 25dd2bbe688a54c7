"""The depth-two routine (spec ``contree.md`` §3): the best depth-≤1 tree of both children of a split in one pass.

For one root split, every feature's sorted rows are walked once; each row goes to its child's running
prefix sums, and a boundary between two distinct values of that child is a candidate stump. The
skips of §3.3, generalised to per-row costs (§8.1): moving a row ``r`` across a boundary changes a
stump's cost by at most ``w[r] = max_l cost[r, l]``, so after a boundary that is some amount worse than
the child's best, no boundary is evaluated until more than that amount of weight has moved; a child
whose suffix costs nothing, or whose remaining weight cannot make up the difference, is done for that
feature.

Rows are summed in one of two ways. *Class rows* (``diag``): a row of class ``t`` costs ``w[r]`` under
every label but ``t`` (accuracy, balanced and weighted accuracy), so a set's cost under label ``l``
is its weight minus its class-``l`` weight: one add per row, a max over classes per evaluation.
Otherwise each row adds its cost vector (misclassification-cost tables, policy scores).
"""

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def _best(pre, total, weight, seen, diag, L):
    """Return (cost, label) of the prefix (``suffix=False``) from class weights or label costs."""
    if diag:
        top, arg = pre[0], 0
        for l in range(1, L):
            if pre[l] > top:
                top, arg = pre[l], l
        return seen - top, arg
    best, arg = pre[0], 0
    for l in range(1, L):
        if pre[l] < best:
            best, arg = pre[l], l
    return best, arg


@numba.njit(cache=True, inline="always")
def _best_suffix(pre, total, weight, seen, diag, L):
    """Return (cost, label) of the suffix: the child's totals minus the prefix."""
    if diag:
        top, arg = total[0] - pre[0], 0
        for l in range(1, L):
            x = total[l] - pre[l]
            if x > top:
                top, arg = x, l
        return (weight - seen) - top, arg
    best, arg = total[0] - pre[0], 0
    for l in range(1, L):
        x = total[l] - pre[l]
        if x < best:
            best, arg = x, l
    return best, arg


@numba.njit(cache=True)
def children(rank, cost, w, ty, diag, ordl, n, j, s, cc, eps, min_leaf, sw, dv, di):
    """Solve both children of split position ``s`` of feature ``j`` to depth one; ``j < 0``: the node itself.

    Parameters
    ----------
    rank : array of int32, shape (F, N)
    cost : array of float64, shape (N, L)
    w : array of float64, shape (N,)
    ty : array of int32, shape (N,)
        Class of each row (``diag`` only).
    diag : bool
        Rows are class rows (see the module docstring).
    ordl : array of int32, shape (F, N)
        The node's rows sorted by each feature (first ``n`` entries used).
    n, j, s : int
        Rows of the node; the split: the first ``s`` rows of ``ordl[j]`` go left (child 0).
    cc, eps : float
        Cost of a branching node; a stump must beat its child's best by more than ``eps``.
    min_leaf : int
    sw : array of float64, shape (4, L)
        Scratch: child totals (rows 0, 1: class weights or label costs), running prefix sums (rows 2, 3).
    dv : array of float64, shape (2, 4)
        Out: per child best value (depth ≤ 1), leaf value, row count, weight.
    di : array of int64, shape (2, 5)
        Out: per child the best tree: feature (-1: a leaf), split rank (left iff rank < it), left
        label, right label; and the leaf label.

    Returns
    -------
    work : int
        Rows visited.
    """
    F, L = rank.shape[0], cost.shape[1]
    two = j >= 0
    u = rank[j, ordl[j, s]] if two else 0
    sw[:, :] = 0.0
    t0, t1, p0, p1 = sw[0], sw[1], sw[2], sw[3]
    size0 = size1 = 0
    weight0 = weight1 = 0.0
    src = ordl[j] if two else ordl[0]
    for p in range(n):
        r = src[p]
        tot = t1 if two and p >= s else t0
        if diag:
            tot[ty[r]] += w[r]
        else:
            for l in range(L):
                tot[l] += cost[r, l]
        if two and p >= s:
            size1 += 1
            weight1 += w[r]
        else:
            size0 += 1
            weight0 += w[r]
    best0, lab0 = _best(t0, t0, weight0, weight0, diag, L)
    best1, lab1 = _best(t1, t1, weight1, weight1, diag, L)
    dv[0, 0], dv[0, 1], dv[0, 2], dv[0, 3] = best0, best0, size0, weight0
    dv[1, 0], dv[1, 1], dv[1, 2], dv[1, 3] = best1, best1, size1, weight1
    di[0, 0], di[0, 1], di[0, 2], di[0, 3], di[0, 4] = -1, 0, lab0, lab0, lab0
    di[1, 0], di[1, 1], di[1, 2], di[1, 3], di[1, 4] = -1, 0, lab1, lab1, lab1
    work = n
    rj = rank[j] if two else rank[0]
    for g in range(F):
        # Nothing beats a best of at most cc (a stump costs cc more than its leaves); two leaves of at least
        # min_leaf rows and, when a node costs cc, more than cc weight each (spec §4.6) must fit.
        done0 = best0 <= cc + eps or size0 < 2 * min_leaf or (cc > 0 and weight0 <= 2 * cc)
        done1 = (not two) or best1 <= cc + eps or size1 < 2 * min_leaf or (cc > 0 and weight1 <= 2 * cc)
        if done0 and done1:
            break
        p0[:] = 0.0
        p1[:] = 0.0
        # Per child: rows in the prefix, their weight, the weight to pass before the next evaluation, last rank.
        cnt0 = cnt1 = 0
        seen0 = seen1 = 0.0
        next0 = next1 = -1.0
        last0 = last1 = -1
        order = ordl[g]
        rg_row = rank[g]
        for p in range(n):
            r = order[p]
            rg = rg_row[r]
            if two and rj[r] >= u:
                if done1:
                    continue
                if rg != last1 and seen1 > next1 and cnt1 >= min_leaf and size1 - cnt1 >= min_leaf:
                    left, labl = _best(p1, t1, weight1, seen1, diag, L)
                    right, labr = _best_suffix(p1, t1, weight1, seen1, diag, L)
                    value = left + right + cc
                    if value < best1 - eps:
                        best1 = value
                        di[1, 0], di[1, 1], di[1, 2], di[1, 3] = g, rg, labl, labr
                        next1 = seen1
                    else:
                        next1 = seen1 + (value - best1)
                    # A suffix that costs nothing stays free while the prefix only grows (§3.3); the rows
                    # left cannot lower the cost by more than their weight.
                    if right <= eps or next1 >= weight1:
                        done1 = True
                        if done0:
                            break
                        continue
                if diag:
                    p1[ty[r]] += w[r]
                else:
                    for l in range(L):
                        p1[l] += cost[r, l]
                cnt1 += 1
                seen1 += w[r]
                last1 = rg
            else:
                if done0:
                    continue
                if rg != last0 and seen0 > next0 and cnt0 >= min_leaf and size0 - cnt0 >= min_leaf:
                    left, labl = _best(p0, t0, weight0, seen0, diag, L)
                    right, labr = _best_suffix(p0, t0, weight0, seen0, diag, L)
                    value = left + right + cc
                    if value < best0 - eps:
                        best0 = value
                        di[0, 0], di[0, 1], di[0, 2], di[0, 3] = g, rg, labl, labr
                        next0 = seen0
                    else:
                        next0 = seen0 + (value - best0)
                    if right <= eps or next0 >= weight0:
                        done0 = True
                        if done1:
                            break
                        continue
                if diag:
                    p0[ty[r]] += w[r]
                else:
                    for l in range(L):
                        p0[l] += cost[r, l]
                cnt0 += 1
                seen0 += w[r]
                last0 = rg
        work += n
    dv[0, 0], dv[1, 0] = best0, best1
    return work


@numba.njit(cache=True)
def feature_scores(rank, cost, w, ty, diag, ordl, n, min_leaf, sw, out):
    """Write into ``out[g]`` the cost of the best stump on feature ``g`` alone (the leaf's if none is better).

    Used to search a node's features best first (spec §4.5 orders by Gini; the stump's own cost is what
    the incumbent needs). Returns the rows visited.
    """
    F, L = rank.shape[0], cost.shape[1]
    total = sw[0]
    pre = sw[2]
    total[:] = 0.0
    weight = 0.0
    rows = ordl[0]
    for p in range(n):
        r = rows[p]
        if diag:
            total[ty[r]] += w[r]
        else:
            for l in range(L):
                total[l] += cost[r, l]
        weight += w[r]
    leaf, _ = _best(total, total, weight, weight, diag, L)
    for g in range(F):
        best = leaf
        pre[:] = 0.0
        cnt, seen, nxt, last = 0, 0.0, -1.0, -1
        order = ordl[g]
        rg_row = rank[g]
        for p in range(n):
            r = order[p]
            rg = rg_row[r]
            if rg != last and seen > nxt and cnt >= min_leaf and n - cnt >= min_leaf:
                left, _ = _best(pre, total, weight, seen, diag, L)
                right, _ = _best_suffix(pre, total, weight, seen, diag, L)
                value = left + right
                if value < best:
                    best, nxt = value, seen
                else:
                    nxt = seen + (value - best)
                if right <= 0.0 or nxt >= weight:
                    break
            if diag:
                pre[ty[r]] += w[r]
            else:
                for l in range(L):
                    pre[l] += cost[r, l]
            cnt += 1
            seen += w[r]
            last = rg
        out[g] = best
    return F * n
