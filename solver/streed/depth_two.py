"""The specialised depth-two solver (spec §3.6, App. B; MurTree [19]).

One pass over the rows sums every row's vector ``A[i]`` into every pair of
its present features (``count_pairs``); every tree of depth ≤ 2 is then
valued from these sums by inclusion–exclusion, without touching the data
again (``solve``). Tree codes, one row per front point:
``(f1, fl, la, lb, fr, ra, rb)`` — root test ``f1`` (−1: a lone leaf labelled
``la``); left child (x_f1 = 0) a leaf ``la`` when ``fl = −1``, else a test on
``fl`` with leaves ``la`` (x_fl = 0) and ``lb``; the right child likewise.
"""

import numba
import numpy as np

from solver.streed.fronts import merge, pareto

NONE = -1


@numba.njit(cache=True)
def add_pairs(X, rows, A, sign, S, C, tot):
    """Add (``sign`` = 1) or remove (−1) the rows ``rows`` to the pair sums ``S``, counts ``C`` and ``tot`` in place.

    ``S[a, b]`` (a ≤ b, over every feature) sums ``A[i]`` over rows with both
    features a and b; ``C`` counts them.
    """
    q, R = X.shape[1], A.shape[1]
    present = np.empty(q, dtype=np.int64)
    for i in rows:
        c = 0
        for j in range(q):
            if X[i, j]:
                present[c] = j
                c += 1
        for r in range(R):
            tot[r] += sign * A[i, r]
        for a in range(c):
            fa = present[a]
            for b in range(a, c):
                fb = present[b]
                C[fa, fb] += sign
                for r in range(R):
                    S[fa, fb, r] += sign * A[i, r]


@numba.njit(cache=True)
def count_pairs(X, ids, A):
    """Return the pair sums ``S`` (q, q, R), counts ``C`` (q, q) and total ``tot`` (R,) of the rows ``ids``."""
    q, R = X.shape[1], A.shape[1]
    S = np.zeros((q, q, R))
    C = np.zeros((q, q), dtype=np.int64)
    tot = np.zeros(R)
    add_pairs(X, ids, A, np.int64(1), S, C, tot)
    return S, C, tot


@numba.njit(cache=True)
def sorted_difference(a, b):
    """Return the elements of sorted ``a`` that are not in sorted ``b``."""
    out = np.empty(a.shape[0], dtype=np.int64)
    i = j = n = 0
    while i < a.shape[0]:
        if j >= b.shape[0] or a[i] < b[j]:
            out[n] = a[i]
            n += 1
            i += 1
        elif a[i] == b[j]:
            i += 1
            j += 1
        else:
            j += 1
    return out[:n]


@numba.njit(cache=True)
def leaf_front(L, s, caps):
    """Return the feasible, non-dominated leaf values for summed rows ``s``: values (k, p) and labels (k,)."""
    K, p = L.shape[0], L.shape[1]
    values = np.zeros((K, p))
    for k in range(K):
        for j in range(p):
            acc = 0.0
            for r in range(s.shape[0]):
                acc += L[k, j, r] * s[r]
            values[k, j] = acc
    # opt over at most K values: drop infeasible ones and those weakly dominated by another (earlier wins ties).
    keep = np.empty(K, dtype=np.int64)
    n = 0
    for k in range(K):
        ok = True
        for j in range(p):
            if values[k, j] > caps[j]:
                ok = False
        for other in range(K):
            if not ok:
                break
            if other == k:
                continue
            worse = False
            equal = True
            for j in range(p):
                if values[other, j] > values[k, j] or values[other, j] > caps[j]:
                    worse = True
                    break
                if values[other, j] != values[k, j]:
                    equal = False
            if not worse and (not equal or other < k):
                ok = False
        if ok:
            keep[n] = k
            n += 1
    return values[keep[:n]], keep[:n]


@numba.njit(cache=True, inline="always")
def _quadrants(S, C, tot, N, a, b, side):
    # Sums and counts of the child x_a = side split on b: (x_b = 0 part, x_b = 1 part).
    lo, hi = min(a, b), max(a, b)
    if side == 1:
        s1, c1 = S[lo, hi], C[lo, hi]
        s0, c0 = S[a, a] - s1, C[a, a] - c1
    else:
        s1, c1 = S[b, b] - S[lo, hi], C[b, b] - C[lo, hi]
        s0 = tot - S[a, a] - S[b, b] + S[lo, hi]
        c0 = N - C[a, a] - C[b, b] + C[lo, hi]
    return s0, c0, s1, c1


@numba.njit(cache=True, inline="always")
def subtree_front(L, S, C, tot, N, a, side, caps, child_cost, min_leaf):
    """Return the front of depth-one trees inside child ``x_a = side``: values (k, p), codes (k, 3) = (f, l0, l1)."""
    q, p, K = S.shape[0], L.shape[1], L.shape[0]
    count_side = C[a, a] if side == 1 else N - C[a, a]
    values = np.empty((q * K * K, p))
    codes = np.empty((q * K * K, 3), dtype=np.int64)
    n = 0
    for b in range(q):
        if b == a:
            continue
        s0, c0, s1, c1 = _quadrants(S, C, tot, N, a, b, side)
        if c0 < min_leaf or c1 < min_leaf:
            continue
        v0, k0 = leaf_front(L, s0, caps)
        v1, k1 = leaf_front(L, s1, caps)
        extra = np.zeros(p)
        extra[0] = count_side * child_cost[a, b]
        merged, pairs = merge(v0, v1, extra, caps)
        for m in range(merged.shape[0]):
            if k0[pairs[m, 0]] == k1[pairs[m, 1]]:
                continue  # equal labels: the leaf itself, never worse (branching costs ≥ 0)
            values[n] = merged[m]
            codes[n, 0], codes[n, 1], codes[n, 2] = b, k0[pairs[m, 0]], k1[pairs[m, 1]]
            n += 1
    keep = pareto(values[:n], np.ones(n, dtype=np.int64), caps)
    return values[:n][keep], codes[:n][keep]


@numba.njit(cache=True, inline="always")
def _append(values, codes, n, new_values, new_codes):
    # Append rows, doubling the buffers when full.
    need = n + new_values.shape[0]
    if need > values.shape[0]:
        size = max(need, 2 * values.shape[0])
        grown_v = np.empty((size, values.shape[1]))
        grown_c = np.empty((size, codes.shape[1]), dtype=np.int64)
        grown_v[:n] = values[:n]
        grown_c[:n] = codes[:n]
        values, codes = grown_v, grown_c
    values[n:need] = new_values
    codes[n:need] = new_codes
    return values, codes, need


@numba.njit(cache=True)
def _nodes(codes):
    out = np.zeros(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        if codes[i, 0] != NONE:
            out[i] = 1 + (codes[i, 1] != NONE) + (codes[i, 4] != NONE)
    return out


@numba.njit(cache=True, inline="always")
def _combine(lv, lc, rv, rc, extra, caps, f1):
    # Merge a left and a right child front under root f1 into coded candidates.
    merged, pairs = merge(lv, rv, extra, caps)
    codes = np.empty((merged.shape[0], 7), dtype=np.int64)
    for m in range(merged.shape[0]):
        codes[m, 0] = f1
        codes[m, 1:4] = lc[pairs[m, 0]]
        codes[m, 4:7] = rc[pairs[m, 1]]
    return merged, codes


@numba.njit(cache=True)
def _leaf_codes(labels):
    out = np.full((labels.shape[0], 3), NONE, dtype=np.int64)
    out[:, 1] = labels
    return out


@numba.njit(cache=True, inline="always")
def _split_parts(L, S, C, tot, N, a, caps, root_cost, child_cost, min_leaf, budget):
    """Return the root split on ``a``'s branching cost and its children's fronts, paired by tree level.

    ``parts`` holds (left values, codes, right values, codes, level): both children leaves (level 0),
    one child a depth-one tree (level 1, budget ≥ 2), both (level 2, budget ≥ 3).
    """
    extra = np.zeros(L.shape[1])
    extra[0] = N * root_cost[a]
    llv, llk = leaf_front(L, tot - S[a, a], caps)
    rlv, rlk = leaf_front(L, S[a, a].copy(), caps)
    llc, rlc = _leaf_codes(llk), _leaf_codes(rlk)
    parts = [(llv, llc, rlv, rlc, 0)]
    if budget >= 2:
        lsv, lsc = subtree_front(L, S, C, tot, N, a, np.int64(0), caps, child_cost, min_leaf)
        rsv, rsc = subtree_front(L, S, C, tot, N, a, np.int64(1), caps, child_cost, min_leaf)
        parts.append((lsv, lsc, rlv, rlc, 1))
        parts.append((llv, llc, rsv, rsc, 1))
        if budget >= 3:
            parts.append((lsv, lsc, rsv, rsc, 2))
    return extra, parts


@numba.njit(cache=True)
def solve(L, S, C, tot, N, caps, root_cost, child_cost, min_leaf, budget):
    """Return the fronts of every tree of depth ≤ 2 with at most 1, 2 and 3 branching nodes.

    ``root_cost[a]`` and ``child_cost[a, b]`` are per-row test costs of ``a``
    at this node and of ``b`` after ``a`` (cost-sensitive; zeros otherwise).
    Only budgets up to ``budget`` are computed (the others come back empty).
    Returns ``(values1, codes1, values2, codes2, values3, codes3)`` with codes
    in positions of the ``free`` feature list. In one call; ``solve_start``,
    ``solve_range`` and ``solve_finish`` do the same over ranges of root features.
    """
    state = solve_start(L, tot, caps)
    state = solve_range(L, S, C, tot, N, caps, root_cost, child_cost, min_leaf, budget, 0, S.shape[0], state)
    return solve_finish(state, caps, budget)


@numba.njit(cache=True)
def solve_start(L, tot, caps):
    """Return the running fronts of ``solve`` before any root split: ``(values, codes, sizes, leaves)``.

    ``values`` and ``codes`` hold one buffer per budget 1, 2, 3, each starting with the node's leaves.
    """
    lv, labels = leaf_front(L, tot, caps)
    base_codes = np.full((lv.shape[0], 7), NONE, dtype=np.int64)
    base_codes[:, 2] = labels
    values = (lv.copy(), lv.copy(), lv.copy())
    codes = (base_codes.copy(), base_codes.copy(), base_codes.copy())
    return values, codes, np.full(3, lv.shape[0], dtype=np.int64), lv.shape[0]


@numba.njit(cache=True)
def solve_range(L, S, C, tot, N, caps, root_cost, child_cost, min_leaf, budget, lo, hi, state):
    """Add the trees with root feature ``lo ≤ a < hi`` to the running fronts ``state``; return it updated.

    Features run in order with the same rules whatever the ranges, so a run over consecutive ranges
    gives what one range over all features gives (the anytime contract: each call does bounded work).
    """
    values, codes, sizes, leaves = state
    fronts_v = [values[0], values[1], values[2]]
    fronts_c = [codes[0], codes[1], codes[2]]
    for a in range(lo, hi):
        n1 = C[a, a]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        extra, parts = _split_parts(L, S, C, tot, N, a, caps, root_cost, child_cost, min_leaf, budget)
        for lv_, lc_, rv_, rc_, level in parts:
            mv, mc = _combine(lv_, lc_, rv_, rc_, extra, caps, a)
            if mv.shape[0] == 0:
                continue
            keep = pareto(mv, _nodes(mc), caps)
            for t in range(level, min(budget, 3)):
                fronts_v[t], fronts_c[t], sizes[t] = _append(fronts_v[t], fronts_c[t], sizes[t], mv[keep], mc[keep])
        for t in range(min(budget, 3)):
            if sizes[t] > 64 * (leaves + 1):  # keep the running fronts small
                keep = pareto(fronts_v[t][: sizes[t]], _nodes(fronts_c[t][: sizes[t]]), caps)
                fronts_v[t] = fronts_v[t][: sizes[t]][keep].copy()
                fronts_c[t] = fronts_c[t][: sizes[t]][keep].copy()
                sizes[t] = keep.shape[0]
    return (fronts_v[0], fronts_v[1], fronts_v[2]), (fronts_c[0], fronts_c[1], fronts_c[2]), sizes, leaves


@numba.njit(cache=True)
def solve_finish(state, caps, budget):
    """Return ``solve``'s six arrays from its running fronts ``state``."""
    values, codes, sizes, _ = state
    p = values[0].shape[1]
    fronts_v = [values[0], values[1], values[2]]
    fronts_c = [codes[0], codes[1], codes[2]]
    out_v = []
    out_c = []
    for t in range(3):
        if t < budget:
            keep = pareto(fronts_v[t][: sizes[t]], _nodes(fronts_c[t][: sizes[t]]), caps)
            out_v.append(fronts_v[t][: sizes[t]][keep].copy())
            out_c.append(fronts_c[t][: sizes[t]][keep].copy())
        else:
            out_v.append(np.empty((0, p)))
            out_c.append(np.empty((0, 7), dtype=np.int64))
    return out_v[0], out_c[0], out_v[1], out_c[1], out_v[2], out_c[2]


@numba.njit(cache=True, inline="always")
def _fewest_first(lv, lc, rv, rc, extra, caps, f1, best_v, best_c, best_n):
    # Keep in best_* the feasible l ⊕ r ⊕ extra with the smallest first component (ties: fewer nodes).
    p = lv.shape[1]
    value = np.empty(p)
    for i in range(lv.shape[0]):
        for j in range(rv.shape[0]):
            ok = True
            for k in range(p):
                value[k] = lv[i, k] + rv[j, k] + extra[k]
                if value[k] > caps[k]:
                    ok = False
                    break
            if not ok:
                continue
            nodes = 1 + (lc[i, 0] != NONE) + (rc[j, 0] != NONE)
            if value[0] < best_v[0] or (value[0] == best_v[0] and nodes < best_n[0]):
                best_v[:] = value
                best_n[0] = nodes
                best_c[0] = f1
                best_c[1:4] = lc[i]
                best_c[4:7] = rc[j]


@numba.njit(cache=True)
def solve_fewest_first(L, S, C, tot, N, caps, root_cost, child_cost, min_leaf, budget):
    """For a root that only needs its feasible tree with the smallest first component (root relaxation).

    Same candidates as ``solve``, but no front is built at this node: for each
    root feature and budget only the feasible tree with the fewest errors is
    kept (the children's fronts are still complete, as feasibility is decided
    only once both are combined). Returns ``(values, codes)`` per budget 1, 2, 3
    like ``solve``: the leaves and one tree per root feature (not a front: the
    caller keeps its non-dominated points), budgets above ``budget`` empty.
    ``fewest_first_start`` and ``fewest_first_range`` do the same over ranges of root features.
    """
    values, codes, sizes = fewest_first_start(L, tot, caps, S.shape[0], budget)
    fewest_first_range(
        L, S, C, tot, N, caps, root_cost, child_cost, min_leaf, budget, 0, S.shape[0], values, codes, sizes
    )
    return fewest_first_finish(values, codes, sizes)


@numba.njit(cache=True)
def fewest_first_start(L, tot, caps, q, budget):
    """Return ``solve_fewest_first``'s buffers before any root split: values (3, q + k, p), codes, sizes (3,)."""
    p = L.shape[1]
    lv, labels = leaf_front(L, tot, caps)
    values = np.empty((3, q + lv.shape[0], p))
    codes = np.full((3, q + lv.shape[0], 7), NONE, dtype=np.int64)
    sizes = np.zeros(3, dtype=np.int64)
    for t in range(min(budget, 3)):
        for i in range(lv.shape[0]):
            values[t, i] = lv[i]
            codes[t, i, 2] = labels[i]
        sizes[t] = lv.shape[0]
    return values, codes, sizes


@numba.njit(cache=True)
def fewest_first_range(L, S, C, tot, N, caps, root_cost, child_cost, min_leaf, budget, lo, hi, values, codes, sizes):
    """Add the best tree of each root feature ``lo ≤ a < hi`` and budget to the buffers, in place."""
    p = L.shape[1]
    top = min(budget, 3)
    best_v = np.empty(p)
    best_c = np.empty(7, dtype=np.int64)
    best_n = np.zeros(1, dtype=np.int64)
    for a in range(lo, hi):
        n1 = C[a, a]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        extra, parts = _split_parts(L, S, C, tot, N, a, caps, root_cost, child_cost, min_leaf, top)
        best_v[0] = np.inf
        for t in range(top):
            # Budget t + 1 adds the trees of level t to those of the smaller budgets.
            for lv_, lc_, rv_, rc_, level in parts:
                if level == t:
                    _fewest_first(lv_, lc_, rv_, rc_, extra, caps, a, best_v, best_c, best_n)
            if best_v[0] < np.inf:
                values[t, sizes[t]] = best_v
                codes[t, sizes[t]] = best_c
                sizes[t] += 1


@numba.njit(cache=True)
def fewest_first_finish(values, codes, sizes):
    """Return ``solve_fewest_first``'s six arrays from its buffers."""
    out_v = []
    out_c = []
    for t in range(3):
        out_v.append(values[t, : sizes[t]].copy())
        out_c.append(codes[t, : sizes[t]].copy())
    return out_v[0], out_c[0], out_v[1], out_c[1], out_v[2], out_c[2]


@numba.njit(cache=True)
def _best_leaf(L, s):
    # Scalar fast path: (value, label) of the cheapest leaf for summed rows s.
    best, label = np.inf, 0
    for k in range(L.shape[0]):
        acc = 0.0
        for r in range(s.shape[0]):
            acc += L[k, 0, r] * s[r]
        if acc < best:
            best, label = acc, k
    return best, label


@numba.njit(cache=True)
def _best_split(L, S, C, tot, N, a, side, child_cost, min_leaf, R, s0, s1):
    # Scalar fast path: best depth-one tree inside child x_a = side; returns (value, f2, label0, label1).
    # s0, s1: scratch vectors (R,), reused so the loop allocates nothing.
    count_side = C[a, a] if side == 1 else N - C[a, a]
    best, code_f, code_0, code_1 = np.inf, NONE, 0, 0
    for b in range(S.shape[0]):
        if b == a:
            continue
        lo, hi = min(a, b), max(a, b)
        if side == 1:
            c1 = C[lo, hi]
            c0 = C[a, a] - c1
            for r in range(R):
                s1[r] = S[lo, hi, r]
                s0[r] = S[a, a, r] - s1[r]
        else:
            c1 = C[b, b] - C[lo, hi]
            c0 = N - C[a, a] - C[b, b] + C[lo, hi]
            for r in range(R):
                s1[r] = S[b, b, r] - S[lo, hi, r]
                s0[r] = tot[r] - S[a, a, r] - S[b, b, r] + S[lo, hi, r]
        if c0 < min_leaf or c1 < min_leaf:
            continue
        v0, k0 = _best_leaf(L, s0)
        v1, k1 = _best_leaf(L, s1)
        value = v0 + v1 + count_side * child_cost[a, b]
        if value < best:
            best, code_f, code_0, code_1 = value, b, k0, k1
    return best, code_f, code_0, code_1


@numba.njit(cache=True)
def solve_scalar(L, S, C, tot, N, root_cost, child_cost, min_leaf, budget):
    """Scalar fast path of ``solve`` (one component, no constraint; App. B): the optimum per budget.

    Returns values (3,) and codes (3, 7) for budgets 1, 2, 3 (only up to ``budget``).
    A split with equal leaf labels is allowed here: it is never better than the
    leaf, which is tried first, and ties keep the tree with fewer nodes.
    ``scalar_start`` and ``scalar_range`` do the same over ranges of root features.
    """
    values, codes = scalar_start(L, tot)
    scalar_range(L, S, C, tot, N, root_cost, child_cost, min_leaf, budget, np.int64(0), S.shape[0], values, codes)
    return values, codes


@numba.njit(cache=True)
def scalar_start(L, tot):
    """Return ``solve_scalar``'s values (3,) and codes (3, 7) before any root split: the best leaf."""
    leaf, label = _best_leaf(L, tot)
    values = np.full(3, leaf)
    codes = np.full((3, 7), NONE, dtype=np.int64)
    codes[:, 2] = label
    return values, codes


@numba.njit(cache=True)
def scalar_range(L, S, C, tot, N, root_cost, child_cost, min_leaf, budget, lo, hi, values, codes):
    """Try the root features ``lo ≤ a < hi`` of ``solve_scalar``, updating ``values`` and ``codes`` in place.

    Features run in order with a strict ``<``, so consecutive ranges keep the ties of one range over all.
    """
    R = S.shape[2]
    left_sum = np.empty(R)
    s0, s1 = np.empty(R), np.empty(R)
    cands = np.empty(4)
    for a in range(lo, hi):
        n1 = C[a, a]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        extra = N * root_cost[a]
        for r in range(R):
            left_sum[r] = tot[r] - S[a, a, r]
        lv, lk = _best_leaf(L, left_sum)
        rv, rk = _best_leaf(L, S[a, a])
        cands[0], cands[1], cands[2], cands[3] = lv + rv, np.inf, np.inf, np.inf
        fl = l0 = l1 = fr = r0 = r1 = NONE
        if budget >= 2:
            sl, fl, l0, l1 = _best_split(L, S, C, tot, N, a, np.int64(0), child_cost, min_leaf, R, s0, s1)
            sr, fr, r0, r1 = _best_split(L, S, C, tot, N, a, np.int64(1), child_cost, min_leaf, R, s0, s1)
            cands[1], cands[2], cands[3] = sl + rv, lv + sr, sl + sr
        record_candidates(
            values, codes, cands, extra, np.int64(min(budget, 3)), a, fl, l0, l1, np.int64(lk), fr, r0, r1, np.int64(rk)
        )


@numba.njit(cache=True)
def record_candidates(values, codes, cands, extra, top, a, fl, l0, l1, lk, fr, r0, r1, rk):
    """Keep the split on ``a`` where it beats the best tree of each node budget below ``top``.

    ``cands`` holds the four trees of the split: both children leaves, the left one split, the right
    one split, both split (budgets 1, 2, 2, 3); ``codes`` rows are (feature, left: feature, label 0,
    label 1, right: feature, label 0, label 1), a leaf child written as (NONE, its label, NONE).
    """
    for which in range(4):
        value = cands[which] + extra
        left_split, right_split = which == 1 or which == 3, which == 2 or which == 3
        level = 2 if which == 3 else (1 if which > 0 else 0)
        for t in range(level, top):
            if value < values[t]:
                values[t] = value
                codes[t, 0] = a
                if left_split:
                    codes[t, 1], codes[t, 2], codes[t, 3] = fl, l0, l1
                else:
                    codes[t, 1], codes[t, 2], codes[t, 3] = NONE, lk, NONE
                if right_split:
                    codes[t, 4], codes[t, 5], codes[t, 6] = fr, r0, r1
                else:
                    codes[t, 4], codes[t, 5], codes[t, 6] = NONE, rk, NONE


@numba.njit(cache=True)
def _child(values, codes, leaf, leaf_label, budget):
    # Optimum and depth-two code of a child with node budget `budget` (0: its best leaf).
    if budget == 0:
        code = np.full(7, NONE, dtype=np.int64)
        code[2] = leaf_label
        return leaf, code
    return values[min(budget, 3) - 1], codes[min(budget, 3) - 1]


@numba.njit(cache=True)
def solve_depth_three(X, ids, A, L, min_leaf, budget):
    """Scalar fast path for a node of depth budget 3: every root split's two depth-two children in one kernel.

    The left child's pair sums are updated from the previous split's when few
    rows move, else the smaller child is counted; the other child is the
    parent's sums minus them (§3.6, incremental counts). Only for one component, no
    constraint and free branching (accuracy, policy); ``budget`` ≤ 7.
    Returns ``(value, f, left_code (7,), right_code (7,), leaf_label)`` with
    ``f = -1`` when the best tree is the leaf ``leaf_label``.
    """
    q = X.shape[1]
    S, C, tot = count_pairs(X, ids, A)
    best, label = _best_leaf(L, tot)
    best_f = NONE
    best_lc = np.full(7, NONE, dtype=np.int64)
    best_rc = np.full(7, NONE, dtype=np.int64)
    zero_root, zero_child = np.zeros(q), np.zeros((q, q))
    N = ids.shape[0]
    mask = np.empty(N, dtype=np.bool_)
    previous = np.zeros(N, dtype=np.bool_)
    have_previous = False
    Sl, Cl, tl = S, C, tot  # counts of the left child (x_f = 0) of the last split counted
    for f in range(q):
        n1 = C[f, f]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        changed = 0
        for i in range(N):
            mask[i] = X[ids[i], f] == 1
            changed += mask[i] != previous[i]
        if have_previous and changed < min(n1, N - n1):
            # Neighbouring features (thresholds of one column) move few rows: update the left child in place.
            add_pairs(X, ids[previous & ~mask], A, np.int64(1), Sl, Cl, tl)
            add_pairs(X, ids[~previous & mask], A, np.int64(-1), Sl, Cl, tl)
        elif n1 <= N - n1:
            Sr, Cr, tr = count_pairs(X, ids[mask], A)
            Sl, Cl, tl = S - Sr, C - Cr, tot - tr
        else:
            Sl, Cl, tl = count_pairs(X, ids[~mask], A)
        previous[:] = mask
        have_previous = True
        Sr, Cr, tr = S - Sl, C - Cl, tot - tl
        vl, cl = solve_scalar(L, Sl, Cl, tl, N - n1, zero_root, zero_child, min_leaf, np.int64(3))
        vr, cr = solve_scalar(L, Sr, Cr, tr, n1, zero_root, zero_child, min_leaf, np.int64(3))
        leaf_l, label_l = _best_leaf(L, tl)
        leaf_r, label_r = _best_leaf(L, tr)
        for n_left in range(max(0, budget - 4), min(budget - 1, 3) + 1):
            a, ca = _child(vl, cl, leaf_l, np.int64(label_l), n_left)
            b, cb = _child(vr, cr, leaf_r, np.int64(label_r), budget - 1 - n_left)
            if a + b < best:
                best, best_f = a + b, f
                best_lc[:] = ca
                best_rc[:] = cb
    return best, best_f, best_lc, best_rc, label
