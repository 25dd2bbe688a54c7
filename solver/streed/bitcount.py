"""Pair counts by bitsets and popcount (spec §3.6; MurTree [19] counts with bitsets too).

For a task whose row vectors ``A[i]`` are one-hot 0/1 (unweighted accuracy,
F1's class indicators), the pair sums of ``solver.streed.depth_two`` are counts:
``S[a, b, r] = |rows with a, b and class r|``. Packing the node's rows once
(one bitset per feature, one per class) makes every child's whole pair table
cost ``q²/2 · R`` word-ANDs and popcounts per 64 rows, instead of ``c²/2 · (1 + R)``
updates per row (``c`` = features present in the row); on dense data (hypothyroid:
c ≈ 43 of 88) this is many times fewer operations. The counts are exact integers,
so every result equals the row-loop version's.
"""

import numba
import numpy as np

from solver.bitset import lowest_bit, popcount
from solver.streed.depth_two import NONE, _best_leaf, _child, record_candidates, solve_scalar, sorted_difference


@numba.njit(cache=True)
def pack_rows(X, ids, labels, R):
    """Return the bitsets of the rows ``ids`` (bit i = ``ids[i]``): features (q, W) and classes (R, W)."""
    q, N = X.shape[1], ids.shape[0]
    W = (N + 63) // 64
    bits = np.zeros((q, W), dtype=np.uint64)
    cls = np.zeros((R, W), dtype=np.uint64)
    for i in range(N):
        w, bit = i >> 6, np.uint64(1) << np.uint64(i & 63)
        row = ids[i]
        cls[labels[row], w] |= bit
        for j in range(q):
            if X[row, j]:
                bits[j, w] |= bit
    return bits, cls


@numba.njit(cache=True)
def distinct_splits(X, ids):
    """Return the node's column bitsets, the features that split its rows distinctly, and each one's twin.

    ``bits`` (m, W): bit i of row f is ``X[ids[i], f]``, for every feature. A feature is kept (``keep``,
    increasing) when it varies on the rows and no earlier kept feature has the same column there, or its
    complement: such a twin splits the rows into the same two children (swapped), so every tree through
    it has a same-valued tree through the earlier feature. ``twin[f]`` is that earlier kept feature, −1
    for kept and constant features.
    """
    N, m = ids.shape[0], X.shape[1]
    W = (N + 63) // 64
    bits = np.zeros((m, W), dtype=np.uint64)
    full = np.zeros(W, dtype=np.uint64)
    ones = np.zeros(m, dtype=np.int64)
    for i in range(N):
        w, bit = i >> 6, np.uint64(1) << np.uint64(i & 63)
        full[w] |= bit
        row = ids[i]
        for j in range(m):
            if X[row, j]:
                bits[j, w] |= bit
                ones[j] += 1
    keep = np.empty(m, dtype=np.int64)
    twin = np.full(m, -1, dtype=np.int64)
    k = 0
    for j in range(m):
        if ones[j] == 0 or ones[j] == N:
            continue
        for t in range(k):
            g = keep[t]
            same = complement = True
            for w in range(W):
                same = same and bits[j, w] == bits[g, w]
                complement = complement and bits[j, w] == full[w] & ~bits[g, w]
                if not (same or complement):
                    break
            if same or complement:
                twin[j] = g
                break
        if twin[j] < 0:
            keep[k] = j
            k += 1
    return bits, keep[:k], twin


@numba.njit(cache=True)
def count_masked(bits, cls, mask):
    """Return ``S`` (q, q, R), ``C`` (q, q) and ``tot`` (R,) of the rows in bitset ``mask`` (upper triangle a ≤ b).

    In one call; ``masked_start`` and ``masked_rows`` do the same over ranges of rows ``a`` of the triangle.
    """
    M, S, C, tot = masked_start(bits, cls, mask)
    masked_rows(bits, M, S, C, 0, bits.shape[0])
    return S, C, tot


@numba.njit(cache=True)
def masked_start(bits, cls, mask):
    """Return the class-masked bitsets ``M`` (R, q, W), empty ``S`` and ``C``, and ``tot`` of ``count_masked``."""
    q, W = bits.shape
    R = cls.shape[0]
    S = np.zeros((q, q, R))
    C = np.zeros((q, q), dtype=np.int64)
    tot = np.zeros(R)
    M = np.empty((R, q, W), dtype=np.uint64)
    for r in range(R):
        for w in range(W):
            cm = cls[r, w] & mask[w]
            tot[r] += popcount(cm)
            for a in range(q):
                M[r, a, w] = bits[a, w] & cm
    return M, S, C, tot


@numba.njit(cache=True)
def masked_rows(bits, M, S, C, lo, hi):
    """Fill rows ``lo ≤ a < hi`` of ``S`` and ``C`` (pairs a ≤ b) from ``masked_start``'s ``M``, in place."""
    q, W = bits.shape
    R = M.shape[0]
    for a in range(lo, hi):
        for b in range(a, q):
            total = 0
            for r in range(R):
                acc = 0
                for w in range(W):
                    acc += popcount(M[r, a, w] & bits[b, w])
                S[a, b, r] = acc
                total += acc
            C[a, b] = total


@numba.njit(cache=True)
def row_mask(N):
    """Return the bitset with bits 0 … N − 1 set: array (⌈N/64⌉,) of uint64."""
    mask = np.zeros((N + 63) // 64, dtype=np.uint64)
    for i in range(N):
        mask[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    return mask


@numba.njit(cache=True)
def _weight(kept, bits_f, worst_row, uniform):
    """Return the summed ``worst_row`` of the rows in both bitsets ``kept`` and ``bits_f``.

    With ``uniform`` (every row's worst value is ``worst_row[0]``) one AND and popcount per word.
    """
    total = 0.0
    if uniform:
        count = 0
        for w in range(kept.shape[0]):
            count += popcount(kept[w] & bits_f[w])
        return count * worst_row[0]
    for w in range(kept.shape[0]):
        word = kept[w] & bits_f[w]
        while word:
            total += worst_row[(w << 6) + lowest_bit(word)]
            word &= word - np.uint64(1)
    return total


@numba.njit(cache=True, inline="always")
def solve_depth_three_bits(bits, ids, labels, L, min_leaf, budget, ub, worst, use_sim, cross):
    """``depth_two.solve_depth_three`` for one-hot rows (class ``labels[i]``): same splits, order and ties.

    ``bits`` (q, W) are the node's feature columns over the rows ``ids`` (bit i = row ``ids[i]``, as
    ``distinct_splits`` packs them). Each split's left child (x_f = 0) is counted by popcount over them
    (one AND and popcount per word and pair, which vectorise: on hypothyroid a whole child's table costs
    less than updating it row by row for 20 moved rows); the right child is the parent minus it (§3.6).

    Only a tree strictly below ``ub`` is returned (value ``inf`` otherwise: a
    proof that the optimum is ≥ ub, §3.3 source 2). With ``use_sim`` a split is
    skipped when the similarity lower bound of its two children (Eq. 45 with
    erratum 9; MurTree [19]) already reaches the best value (§3.3 prune): each
    child's bound is the best over every child solved so far in this node, its
    optimum minus ``worst`` of the rows it has and the new child lacks (one AND
    and popcount per word gives its rows with x_f = 1, lost by the left child;
    the right child loses the rest, so comparing against all of them costs
    little next to one count). A skipped split can never be strictly better, so
    the result is unchanged.
    ``cross[f]`` is a lower bound on split ``f``'s value from a similar node
    (the caller's similarity bound per split); the split is skipped when it
    reaches the best value. Also returns ``bounds`` (q,): a lower bound on
    every split's value here (0 where unknown), for the next similar node.
    """
    q, W = bits.shape
    R, N = L.shape[2], ids.shape[0]
    full = np.zeros(W, dtype=np.uint64)
    cls = np.zeros((R, W), dtype=np.uint64)
    for i in range(N):
        full[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        cls[labels[ids[i]], i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    S, C, tot = count_masked(bits, cls, full)
    best, label = _best_leaf(L, tot)
    binary = (
        L.shape[0] == 2
        and R == 2
        and L[0, 0, 0] == 0.0
        and L[0, 0, 1] == 1.0
        and L[1, 0, 0] == 1.0
        and L[1, 0, 1] == 0.0
    )
    best_f = NONE
    best_lc = np.full(7, NONE, dtype=np.int64)
    best_rc = np.full(7, NONE, dtype=np.int64)
    zero_root, zero_child = np.zeros(q), np.zeros((q, q))
    left_bits = np.empty(W, dtype=np.uint64)
    limit = min(best, ub)
    kept = np.empty((2 * q if use_sim else 0, W), dtype=np.uint64)  # every child solved here, as a bitset
    opt_kept = np.empty(2 * q if use_sim else 0)  # its optimum over every budget (depth two, 3 nodes)
    weight_kept = np.empty(2 * q if use_sim else 0)  # its summed worst row values
    n_kept = 0
    worst_row = np.empty(N)
    for i in range(N):
        worst_row[i] = worst[ids[i]]
    uniform = N > 0 and (worst_row == worst_row[0]).all()  # then a lost row costs worst_row[0]: one popcount
    bounds = np.zeros(q)
    for f in range(q):
        n1 = C[f, f]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        if cross[f] >= limit:
            bounds[f] = cross[f]
            continue  # the similar node's bound for this split reaches the best value
        lb_l = lb_r = 0.0
        if use_sim:
            # Similarity bound (Eq. 45, erratum 9) from every child solved so far here: a child of f is
            # at least that child's optimum minus the worst of the rows it has and f's child lacks.
            for k in range(n_kept):
                lost_l = _weight(kept[k], bits[f], worst_row, uniform)  # rows of the kept child with x_f = 1
                lb_l = max(lb_l, opt_kept[k] - lost_l)
                lb_r = max(lb_r, opt_kept[k] - (weight_kept[k] - lost_l))
            if lb_l + lb_r >= limit:
                bounds[f] = max(lb_l + lb_r, cross[f])
                continue  # similarity lower bound reaches the best value: no strict improvement here
        for w in range(W):
            left_bits[w] = full[w] & ~bits[f, w]
        Sl, Cl, tl = count_masked(bits, cls, left_bits)
        Sr, Cr, tr = S - Sl, C - Cl, tot - tl
        if binary:
            vl, cl = solve_scalar_binary(L, Sl, Cl, tl, N - n1, min_leaf)
        else:
            vl, cl = solve_scalar(L, Sl, Cl, tl, N - n1, zero_root, zero_child, min_leaf, 3)
        leaf_l, label_l = _best_leaf(L, tl)
        opt_l = min(vl[2], leaf_l)
        if use_sim:
            for w in range(W):
                kept[n_kept, w] = full[w] & ~bits[f, w]
            opt_kept[n_kept] = opt_l
            weight_kept[n_kept] = _weight(kept[n_kept], full, worst_row, uniform)
            n_kept += 1
        if use_sim and opt_l + lb_r >= limit:
            bounds[f] = max(min(vl[2], leaf_l) + lb_r, cross[f])
            continue  # the left child's optimum and the right's similarity bound reach the best value (§3.3)
        if binary:
            vr, cr = solve_scalar_binary(L, Sr, Cr, tr, n1, min_leaf)
        else:
            vr, cr = solve_scalar(L, Sr, Cr, tr, n1, zero_root, zero_child, min_leaf, 3)
        leaf_r, label_r = _best_leaf(L, tr)
        opt_r = min(vr[2], leaf_r)
        if use_sim:
            kept[n_kept] = bits[f]
            opt_kept[n_kept] = opt_r
            weight_kept[n_kept] = _weight(kept[n_kept], full, worst_row, uniform)
            n_kept += 1
        bounds[f] = opt_l + opt_r
        lo, hi = max(0, budget - 4), min(budget - 1, 3)
        for i in range(hi - lo + 1):
            # Two branching nodes make a depth-two tree: break ties as depth_two.solve_scalar does (left split
            # first), as the recursion solves such a node; otherwise as the recursion's allocations (left small first).
            n_left = hi - i if budget == 2 else lo + i
            a, ca = _child(vl, cl, leaf_l, np.int64(label_l), n_left)
            b, cb = _child(vr, cr, leaf_r, np.int64(label_r), budget - 1 - n_left)
            if a + b < limit:
                best, best_f, limit = a + b, f, a + b
                best_lc[:] = ca
                best_rc[:] = cb
    if best >= ub:
        return np.inf, NONE, best_lc, best_rc, label, bounds
    return best, best_f, best_lc, best_rc, label, bounds


@numba.njit(cache=True)
def _best_split_binary(S, C, tot, N, a, side, min_leaf):
    # depth_two._best_split for two classes and misclassification (L = 1 − I, no test costs), unrolled:
    # a leaf labelled 0 costs the class-1 rows, labelled 1 the class-0 rows (label 0 wins ties).
    count_a = C[a, a]
    best, code_f, code_0, code_1 = np.inf, NONE, 0, 0
    for b in range(S.shape[0]):
        if b == a:
            continue
        lo, hi = min(a, b), max(a, b)
        if side == 1:
            c1 = C[lo, hi]
            c0 = count_a - c1
            p0, p1 = S[lo, hi, 0], S[lo, hi, 1]
            z0, z1 = S[a, a, 0] - p0, S[a, a, 1] - p1
        else:
            c1 = C[b, b] - C[lo, hi]
            c0 = N - count_a - C[b, b] + C[lo, hi]
            p0, p1 = S[b, b, 0] - S[lo, hi, 0], S[b, b, 1] - S[lo, hi, 1]
            z0 = tot[0] - S[a, a, 0] - S[b, b, 0] + S[lo, hi, 0]
            z1 = tot[1] - S[a, a, 1] - S[b, b, 1] + S[lo, hi, 1]
        if c0 < min_leaf or c1 < min_leaf:
            continue
        k0, v0 = (1, z0) if z0 < z1 else (0, z1)
        k1, v1 = (1, p0) if p0 < p1 else (0, p1)
        value = v0 + v1
        if value < best:
            best, code_f, code_0, code_1 = value, b, k0, k1
    return best, code_f, code_0, code_1


@numba.njit(cache=True)
def solve_scalar_binary(L, S, C, tot, N, min_leaf):
    """``depth_two.solve_scalar`` (budget 3, no test costs) for two classes and misclassification: same values, codes."""
    q, R = S.shape[0], S.shape[2]
    leaf, label = _best_leaf(L, tot)
    values = np.full(3, leaf)
    codes = np.full((3, 7), NONE, dtype=np.int64)
    codes[:, 2] = label
    left_sum = np.empty(R)
    cands = np.empty(4)
    for a in range(q):
        n1 = C[a, a]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        for r in range(R):
            left_sum[r] = tot[r] - S[a, a, r]
        lv, lk = _best_leaf(L, left_sum)
        rv, rk = _best_leaf(L, S[a, a])
        sl, fl, l0, l1 = _best_split_binary(S, C, tot, N, a, np.int64(0), min_leaf)
        sr, fr, r0, r1 = _best_split_binary(S, C, tot, N, a, np.int64(1), min_leaf)
        cands[0], cands[1], cands[2], cands[3] = lv + rv, sl + rv, lv + sr, sl + sr
        record_candidates(values, codes, cands, 0.0, np.int64(3), a, fl, l0, l1, np.int64(lk), fr, r0, r1, np.int64(rk))
    return values, codes


@numba.njit(cache=True)
def solve_depth_three_node(X, ids, labels, L, min_leaf, budget, ub, worst, use_sim, previous_ids, previous_bounds):
    """``solve_depth_three_bits`` on a node's rows, with its reductions and the carried split bounds, in one call.

    Packs the node (``distinct_splits``), bounds each split from the previous depth-three node of
    this budget (``previous_ids``, ``previous_bounds`` (m,): a split's value here ≥ its value there −
    the worst of the rows it lost, Eq. 45 with erratum 9; skipped when more than half the rows are
    new, or when ``previous_ids`` is empty), solves, and returns the value, the split (an original
    feature, or NONE), the children's codes over the original features, the leaf label and the
    split bounds over every feature (a twin's split has its twin's value) for the next node.
    """
    m = X.shape[1]
    bits, free, twin = distinct_splits(X, ids)
    cross = np.zeros(free.shape[0])
    if use_sim and previous_ids.shape[0] > 0:
        removed = sorted_difference(previous_ids, ids)
        if 2 * removed.shape[0] <= ids.shape[0]:
            lost = 0.0
            for i in removed:
                lost += worst[i]
            for k in range(free.shape[0]):
                cross[k] = max(previous_bounds[free[k]] - lost, 0.0)
    value, f, left, right, label, bounds = solve_depth_three_bits(
        np.ascontiguousarray(bits[free]), ids, labels, L, min_leaf, budget, ub, worst, use_sim, cross
    )
    full = np.zeros(m)
    for k in range(free.shape[0]):
        full[free[k]] = bounds[k]
    for j in range(m):
        if twin[j] >= 0:
            full[j] = full[twin[j]]
    if f != NONE:
        f = free[f]
    for code in (left, right):
        for at in (0, 1, 4):
            if code[at] != NONE:
                code[at] = free[code[at]]
    return value, f, left, right, label, full


@numba.njit(cache=True)
def _archived_bound(arch_ids, arch_len, arch_val, arch_count, b, ids, worst):
    # Similarity bound (Eq. 45, erratum 9) of rows ``ids`` at child budget ``b`` from the last two archived
    # children of that budget: their value minus the worst of their rows ``ids`` lacks (skipped when more
    # than half of ``ids`` would be removed: the ref-impl's cut-off). 0 when none applies.
    best = 0.0
    for e in range(min(arch_count[b], 2)):
        removed = sorted_difference(arch_ids[b, e, : arch_len[b, e]], ids)
        if 2 * removed.shape[0] > ids.shape[0]:
            continue
        lost = 0.0
        for i in removed:
            lost += worst[i]
        best = max(best, arch_val[b, e] - lost)
    return best


@numba.njit(cache=True)
def _archive(arch_ids, arch_len, arch_val, arch_count, b, ids, value):
    # Keep the last two (rows, value) of budget b (the older is dropped).
    if arch_count[b] >= 2:
        arch_ids[b, 0, : arch_len[b, 1]] = arch_ids[b, 1, : arch_len[b, 1]]
        arch_len[b, 0], arch_val[b, 0] = arch_len[b, 1], arch_val[b, 1]
        e = 1
    else:
        e = arch_count[b]
        arch_count[b] += 1
    arch_ids[b, e, : ids.shape[0]] = ids
    arch_len[b, e], arch_val[b, e] = ids.shape[0], value


@numba.njit(cache=True, inline="always")
def _solve_child(
    X,
    ids,
    labels,
    L,
    min_leaf,
    b,
    ub,
    lb,
    worst,
    use_sim,
    prev_ids,
    prev_len,
    prev_bounds,
    arch_ids,
    arch_len,
    arch_val,
    arch_count,
    code,
):
    # One child of the depth-four root at budget b, below ub (its bound: lb): ``solve_depth_three_node`` with the
    # split bounds carried from the previous node of that budget; then carry its own, archive its value (or the
    # proved bound when nothing is below ub) and write (f, code, code, label) into ``code``. Returns the value.
    v, f, c0, c1, k, bounds = solve_depth_three_node(
        X, ids, labels, L, min_leaf, b, ub, worst, use_sim, prev_ids[b, : prev_len[b]], prev_bounds[b]
    )
    if use_sim:
        prev_ids[b, : ids.shape[0]] = ids
        prev_len[b] = ids.shape[0]
        prev_bounds[b] = bounds
        _archive(arch_ids, arch_len, arch_val, arch_count, b, ids, v if v < np.inf else max(ub, lb))
    code[0], code[1:8], code[8:15], code[15] = f, c0, c1, k
    return v


@numba.njit(cache=True)
def solve_depth_four_root(X, ids, labels, L, min_leaf, budget, ub, worst, use_sim, use_ub):
    """The root of a depth-four search for one-hot scalar tasks, in one call: what ``recursion.Solver._branch`` does.

    Every split on the root's distinct features (``distinct_splits``) and node allocation: each child is
    bounded by the similarity bound from the last two children of its budget (Eq. 45, erratum 9; a
    proved "nothing below" bound counts too), the split is skipped when both bounds reach the best value,
    the left child is solved below ``best − bound(right)`` and the right one below ``best − left``
    (``solve_depth_three_node``, which carries its split bounds to the next node of the same budget).
    Returns (value, root feature or NONE, leaf label, left (f, code, code, label), right (same), nodes
    solved); value ``inf`` when nothing is below ``ub``.
    """
    N, m = ids.shape[0], X.shape[1]
    R = L.shape[2]
    tot = np.zeros(R)
    for i in ids:
        tot[labels[i]] += 1.0
    best, label = _best_leaf(L, tot)
    limit = min(best, ub)
    best_f = NONE
    left_code = np.full(16, NONE, dtype=np.int64)
    right_code = np.full(16, NONE, dtype=np.int64)
    _, free, _ = distinct_splits(X, ids)
    prev_ids = np.empty((8, N), dtype=np.int64)
    prev_len = np.zeros(8, dtype=np.int64)
    prev_bounds = np.zeros((8, m))
    arch_ids = np.empty((8, 2, N), dtype=np.int64)
    arch_len = np.zeros((8, 2), dtype=np.int64)
    arch_val = np.zeros((8, 2))
    arch_count = np.zeros(8, dtype=np.int64)
    solved = 0
    half = 7
    left_ids = np.empty(N, dtype=np.int64)
    right_ids = np.empty(N, dtype=np.int64)
    cand_l = np.empty(16, dtype=np.int64)
    cand_r = np.empty(16, dtype=np.int64)
    for f in free:
        nl = nr = 0
        for i in ids:
            if X[i, f]:
                right_ids[nr] = i
                nr += 1
            else:
                left_ids[nl] = i
                nl += 1
        if nl < min_leaf or nr < min_leaf:
            continue
        lids, rids = left_ids[:nl].copy(), right_ids[:nr].copy()
        for n_left in range(max(0, budget - 1 - half), min(budget - 1, half) + 1):
            n_right = budget - 1 - n_left
            lb_l = _archived_bound(arch_ids, arch_len, arch_val, arch_count, n_left, lids, worst) if use_sim else 0.0
            lb_r = _archived_bound(arch_ids, arch_len, arch_val, arch_count, n_right, rids, worst) if use_sim else 0.0
            if use_sim and lb_l + lb_r >= limit:
                continue
            ub_l = limit - lb_r if use_ub else np.inf
            vl = _solve_child(
                X,
                lids,
                labels,
                L,
                min_leaf,
                n_left,
                ub_l,
                lb_l,
                worst,
                use_sim,
                prev_ids,
                prev_len,
                prev_bounds,
                arch_ids,
                arch_len,
                arch_val,
                arch_count,
                cand_l,
            )
            solved += 1
            if vl == np.inf:
                continue
            ub_r = limit - vl if use_ub else np.inf
            if use_sim and lb_r >= ub_r:
                continue  # the right child's bound proves nothing of it is below ub_r
            vr = _solve_child(
                X,
                rids,
                labels,
                L,
                min_leaf,
                n_right,
                ub_r,
                lb_r,
                worst,
                use_sim,
                prev_ids,
                prev_len,
                prev_bounds,
                arch_ids,
                arch_len,
                arch_val,
                arch_count,
                cand_r,
            )
            solved += 1
            if vr == np.inf or vl + vr >= limit:
                continue
            limit, best_f = vl + vr, f
            left_code[:] = cand_l
            right_code[:] = cand_r
    value = limit if best_f != NONE else best
    if value >= ub:
        return np.inf, NONE, label, left_code, right_code, solved
    return value, best_f, label, left_code, right_code, solved
