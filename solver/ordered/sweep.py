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
def children(cost, w, cw, diag, ordl, srk, scl, side, n, j, s, cc, eps, min_leaf, sw, dv, di):
    """Solve both children of split position ``s`` of feature ``j`` to depth one; ``j < 0``: the node itself.

    Parameters
    ----------
    cost : array of float64, shape (N, L)
    w : array of float64, shape (N,)
    cw : array of float64, shape (L,)
        Class rows whose weight is their class's (no row weights): ``w[r] == cw[class]``; else empty.
    diag : bool
        Class rows (see the module docstring).
    ordl, srk, scl : array of int32, shape (F, N)
        The node's rows sorted by each feature, their ranks and their classes in that order (first ``n``
        entries used).
    side : array of uint8, shape (N,)
        Scratch: 1 for the rows of the right child.
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
    F, L = ordl.shape[0], cost.shape[1]
    two = j >= 0
    by_class = diag and cw.shape[0] > 0
    sw[:, :] = 0.0
    t0, t1, p0, p1 = sw[0], sw[1], sw[2], sw[3]
    size0 = size1 = 0
    weight0 = weight1 = 0.0
    jj = j if two else 0
    src = ordl[jj]
    for p in range(n):
        r = src[p]
        right = two and p >= s
        side[r] = 1 if right else 0
        tot = t1 if right else t0
        if diag:
            tot[scl[jj, p]] += w[r]
        else:
            for l in range(L):
                tot[l] += cost[r, l]
        if right:
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
        ranks = srk[g]
        classes = scl[g]
        for p in range(n):
            r = order[p]
            rg = ranks[p]
            if side[r] == 1:
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
                if by_class:
                    t = classes[p]
                    x = cw[t]
                    p1[t] += x
                elif diag:
                    x = w[r]
                    p1[classes[p]] += x
                else:
                    x = w[r]
                    for l in range(L):
                        p1[l] += cost[r, l]
                cnt1 += 1
                seen1 += x
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
                if by_class:
                    t = classes[p]
                    x = cw[t]
                    p0[t] += x
                elif diag:
                    x = w[r]
                    p0[classes[p]] += x
                else:
                    x = w[r]
                    for l in range(L):
                        p0[l] += cost[r, l]
                cnt0 += 1
                seen0 += x
                last0 = rg
        work += n
    dv[0, 0], dv[1, 0] = best0, best1
    return work


@numba.njit(cache=True)
def feature_scores(cost, w, diag, ordl, srk, scl, n, min_leaf, gini, sw, out):
    """Write into ``out[g]`` a score of feature ``g`` at the node (lower is better), to search it best first.

    ``gini`` (class rows only): the best weighted Gini impurity of a split on ``g`` (spec §4.5, as the
    reference orders); else the cost of the best stump on ``g``. Returns the rows visited.
    """
    gini = gini and diag
    F, L = ordl.shape[0], cost.shape[1]
    total = sw[0]
    pre = sw[2]
    total[:] = 0.0
    weight = 0.0
    rows = ordl[0]
    for p in range(n):
        r = rows[p]
        if diag:
            total[scl[0, p]] += w[r]
        else:
            for l in range(L):
                total[l] += cost[r, l]
        weight += w[r]
    leaf, _ = _best(total, total, weight, weight, diag, L)
    for g in range(F):
        best = weight if gini else leaf
        pre[:] = 0.0
        cnt, seen, last = 0, 0.0, -1
        order = ordl[g]
        for p in range(n):
            r = order[p]
            rg = srk[g, p]
            rest = weight - seen
            if rg != last and cnt >= min_leaf and n - cnt >= min_leaf and seen > 0.0 and rest > 0.0:
                if gini:
                    a = b = 0.0
                    for l in range(L):
                        a += pre[l] * pre[l]
                        x = total[l] - pre[l]
                        b += x * x
                    value = (seen - a / seen) + (rest - b / rest)
                else:
                    left, _ = _best(pre, total, weight, seen, diag, L)
                    right, _ = _best_suffix(pre, total, weight, seen, diag, L)
                    value = left + right
                if value < best:
                    best = value
            if diag:
                pre[scl[g, p]] += w[r]
            else:
                for l in range(L):
                    pre[l] += cost[r, l]
            cnt += 1
            seen += w[r]
            last = rg
        out[g] = best
    return F * n


@numba.njit(cache=True)
def _evaluate_binary(size, ones_total, cnt, ones, best, cc, eps):
    """Return (cost, left label, right label) of the stump after ``cnt`` prefix rows, ``ones`` of class 1."""
    left = min(ones, cnt - ones)
    rest, rest_ones = size - cnt, ones_total - ones
    right = min(rest_ones, rest - rest_ones)
    return left + right + cc, 1 if ones > cnt - ones else 0, 1 if rest_ones > rest - rest_ones else 0


@numba.njit(cache=True)
def children_binary(ordl, srk, scl, side, n, j, s, cc, eps, min_leaf, dv, di):
    """``children`` for two classes and unit row weights: integer counts kept in registers, no branch per child.

    Same parameters and results as ``children`` (the class of each row in ``scl``). A row's child selects
    which counters it updates arithmetically, so that the child of consecutive rows (random) costs no
    mispredicted branch; a done child's counters run on unread. A child's next evaluation point also says
    whether it is done (never) and holds back its first ``min_leaf`` rows.
    """
    F = ordl.shape[0]
    two = j >= 0
    jj = j if two else 0
    src = ordl[jj]
    size0 = size1 = ones0 = ones1 = 0
    for p in range(n):
        right = 1 if two and p >= s else 0
        side[src[p]] = right
        t = scl[jj, p]
        size1 += right
        ones1 += t * right
        ones0 += t * (1 - right)
    size0 = n - size1
    best0 = min(ones0, size0 - ones0) * 1.0
    best1 = min(ones1, size1 - ones1) * 1.0
    lab0 = 1 if ones0 > size0 - ones0 else 0
    lab1 = 1 if ones1 > size1 - ones1 else 0
    dv[0, 0], dv[0, 1], dv[0, 2], dv[0, 3] = best0, best0, size0, size0
    dv[1, 0], dv[1, 1], dv[1, 2], dv[1, 3] = best1, best1, size1, size1
    di[0, 0], di[0, 1], di[0, 2], di[0, 3], di[0, 4] = -1, 0, lab0, lab0, lab0
    di[1, 0], di[1, 1], di[1, 2], di[1, 3], di[1, 4] = -1, 0, lab1, lab1, lab1
    work = n
    never = 1e300
    for g in range(F):
        done0 = best0 <= cc + eps or size0 < 2 * min_leaf or (cc > 0 and size0 <= 2 * cc)
        done1 = (not two) or best1 <= cc + eps or size1 < 2 * min_leaf or (cc > 0 and size1 <= 2 * cc)
        if done0 and done1:
            break
        # A child's prefix is evaluated at a new value once its count passes next (min_leaf first); done: never.
        next0 = never if done0 else min_leaf - 0.5
        next1 = never if done1 else min_leaf - 0.5
        cnt0 = cnt1 = pre0 = pre1 = 0
        last0 = last1 = -1
        order = ordl[g]
        ranks = srk[g]
        classes = scl[g]
        for p in range(n):
            c = np.int64(side[order[p]])
            rg = ranks[p]
            t = np.int64(classes[p])
            cnt = cnt1 if c else cnt0
            if cnt > (next1 if c else next0) and rg != (last1 if c else last0):
                if c:
                    if cnt1 > size1 - min_leaf:
                        next1 = never
                    else:
                        value, labl, labr = _evaluate_binary(size1, ones1, cnt1, pre1, best1, cc, eps)
                        if value < best1 - eps:
                            best1 = value
                            di[1, 0], di[1, 1], di[1, 2], di[1, 3] = g, rg, labl, labr
                            next1 = cnt1
                        else:
                            next1 = cnt1 + (value - best1)
                        rest_ones = ones1 - pre1
                        if min(rest_ones, size1 - cnt1 - rest_ones) <= eps or next1 >= size1:
                            next1 = never
                else:
                    if cnt0 > size0 - min_leaf:
                        next0 = never
                    else:
                        value, labl, labr = _evaluate_binary(size0, ones0, cnt0, pre0, best0, cc, eps)
                        if value < best0 - eps:
                            best0 = value
                            di[0, 0], di[0, 1], di[0, 2], di[0, 3] = g, rg, labl, labr
                            next0 = cnt0
                        else:
                            next0 = cnt0 + (value - best0)
                        rest_ones = ones0 - pre0
                        if min(rest_ones, size0 - cnt0 - rest_ones) <= eps or next0 >= size0:
                            next0 = never
                if next0 == never and next1 == never:
                    break
            cnt1 += c
            cnt0 += 1 - c
            pre1 += t * c
            pre0 += t * (1 - c)
            last1 = rg if c else last1
            last0 = last0 if c else rg
        work += n
    dv[0, 0], dv[1, 0] = best0, best1
    return work


@numba.njit(cache=True)
def children_counts(ordl, srk, scl, side, n, j, s, K, cc, eps, min_leaf, counts, dv, di):
    """``children`` for class rows of unit weight and any number ``K`` of classes: integer class counts.

    A row's child and class index the counters (no branch per child); ``counts`` is scratch of shape
    (4, K): child totals (rows 0, 1) and prefixes (rows 2, 3). Same results as ``children``.
    """
    F = ordl.shape[0]
    two = j >= 0
    jj = j if two else 0
    src = ordl[jj]
    counts[:, :] = 0
    size = np.zeros(2, dtype=np.int64)
    for p in range(n):
        c = 1 if two and p >= s else 0
        side[src[p]] = c
        counts[c, scl[jj, p]] += 1
        size[c] += 1
    best = np.zeros(2)
    for c in range(2):
        top, lab = counts[c, 0], 0
        for t in range(1, K):
            if counts[c, t] > top:
                top, lab = counts[c, t], t
        best[c] = size[c] - top
        dv[c, 0], dv[c, 1], dv[c, 2], dv[c, 3] = best[c], best[c], size[c], size[c]
        di[c, 0], di[c, 1], di[c, 2], di[c, 3], di[c, 4] = -1, 0, lab, lab, lab
    cnt = np.zeros(2, dtype=np.int64)
    nxt = np.zeros(2)
    last = np.zeros(2, dtype=np.int64)
    done = np.zeros(2, dtype=np.bool_)
    work = n
    for g in range(F):
        active = 0
        for c in range(2):
            done[c] = (
                (c == 1 and not two) or best[c] <= cc + eps or size[c] < 2 * min_leaf or (cc > 0 and size[c] <= 2 * cc)
            )
            active += 0 if done[c] else 1
            cnt[c], nxt[c], last[c] = 0, -1.0, -1
            counts[2 + c, :] = 0
        if active == 0:
            break
        order = ordl[g]
        ranks = srk[g]
        classes = scl[g]
        for p in range(n):
            c = np.int64(side[order[p]])
            rg = ranks[p]
            k = cnt[c]
            if rg != last[c] and k > nxt[c] and not done[c] and k >= min_leaf and size[c] - k >= min_leaf:
                top_l, lab_l, top_r, lab_r = -1, 0, -1, 0
                for t in range(K):
                    a = counts[2 + c, t]
                    b = counts[c, t] - a
                    if a > top_l:
                        top_l, lab_l = a, t
                    if b > top_r:
                        top_r, lab_r = b, t
                right = (size[c] - k) - top_r
                value = (k - top_l) + right + cc
                if value < best[c] - eps:
                    best[c] = value
                    di[c, 0], di[c, 1], di[c, 2], di[c, 3] = g, rg, lab_l, lab_r
                    nxt[c] = k
                else:
                    nxt[c] = k + (value - best[c])
                # A suffix that costs nothing stays free while the prefix only grows (§3.3); the rows left
                # cannot lower the cost by more than their count.
                if right <= eps or nxt[c] >= size[c]:
                    done[c] = True
                    active -= 1
                    if active == 0:
                        break
            cnt[c] = k + 1
            counts[2 + c, classes[p]] += 1
            last[c] = rg
        work += n
    dv[0, 0], dv[1, 0] = best[0], best[1]
    return work
