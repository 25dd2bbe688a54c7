"""Fronts of solution values (spec §3.1): Pareto filtering and merging, as small numba kernels.

A front is an array of values, shape (m, p), with a parallel array of
branching-node counts; smaller is better in every component. For p = 1 the
front is the single minimum (the scalar fast path of App. B falls out of the
same code: the first point kept dominates every later one).
"""

import numba
import numpy as np


@numba.njit(cache=True)
def feasible(v, caps):
    """Return True when every component of ``v`` is within its cap (threshold constraint, App. A.4)."""
    for j in range(v.shape[0]):
        if v[j] > caps[j]:
            return False
    return True


@numba.njit(cache=True, inline="always")
def weakly_dominates(u, v):
    """Return True when ``u ⪰ v``: no component of ``u`` is larger."""
    for j in range(u.shape[0]):
        if u[j] > v[j]:
            return False
    return True


@numba.njit(cache=True)
def strictly_dominates(u, v):
    """Return True when ``u ≻ v``: ``u ⪰ v`` and ``u != v`` (Eq. 33)."""
    better = False
    for j in range(u.shape[0]):
        if u[j] > v[j]:
            return False
        if u[j] < v[j]:
            better = True
    return better


@numba.njit(cache=True)
def _packed_key(values, nodes):
    # One float key ordering by (first, second, nodes) when all are small non-negative integers (exact below
    # 2**53), else an empty array.
    k = values.shape[0]
    top0 = top1 = topn = 0.0
    for i in range(k):
        a, b = values[i, 0], values[i, 1]
        if a < 0 or b < 0 or a != np.floor(a) or b != np.floor(b) or nodes[i] < 0:
            return np.empty(0)
        top0, top1, topn = max(top0, a), max(top1, b), max(topn, float(nodes[i]))
    if (top0 + 1) * (top1 + 1) * (topn + 1) >= 2.0**53:
        return np.empty(0)
    key = np.empty(k)
    for i in range(k):
        key[i] = (values[i, 0] * (top1 + 1) + values[i, 1]) * (topn + 1) + nodes[i]
    return key


@numba.njit(cache=True, inline="always")
def _pareto_2d(values, nodes, caps):
    # Two components: sort by (first, second, nodes) and sweep, keeping strictly falling second components.
    key = _packed_key(values, nodes)
    if key.shape[0] == values.shape[0]:
        order = np.argsort(key, kind="mergesort")  # counts (F1): one stable sort
    else:
        order = _lexicographic(values, nodes)
    keep = np.empty(values.shape[0], dtype=np.int64)
    count = 0
    lowest = np.inf
    for i in order:
        if values[i, 0] > caps[0] or values[i, 1] > caps[1]:
            continue
        if values[i, 1] < lowest:
            lowest = values[i, 1]
            keep[count] = i
            count += 1
    return keep[:count]


@numba.njit(cache=True, inline="always")
def _lexicographic(values, nodes):
    # Stable order by (first, second, nodes).
    order = np.argsort(nodes, kind="mergesort")
    order = order[np.argsort(values[order, 1], kind="mergesort")]
    return order[np.argsort(values[order, 0], kind="mergesort")]


@numba.njit(cache=True)
def pareto(values, nodes, caps):
    """Return the indices of ``opt(values)`` (Eq. 5): feasible, not weakly dominated by an earlier kept point.

    Points are taken by increasing component sum, then fewer nodes, so that a
    dominating point (whose sum is never larger) comes first and, among equal
    values, the tree with fewer branching nodes is kept (spec §3.1).
    """
    k = values.shape[0]
    if values.shape[1] == 2:
        return _pareto_2d(values, nodes, caps)
    if values.shape[1] == 3 and _on_a_line(values):
        keep = _pareto_on_a_line_packed(values, nodes, caps)
        if keep.shape[0] or k == 0:
            return keep
    by_nodes = np.argsort(nodes, kind="mergesort")
    total = values[by_nodes].sum(axis=1)
    order = by_nodes[np.argsort(total, kind="mergesort")]
    if values.shape[1] == 3 and _on_a_line(values):
        return _pareto_on_a_line(values, caps, order)
    keep = np.empty(k, dtype=np.int64)
    count = 0
    for i in order:
        v = values[i]
        if not feasible(v, caps):
            continue
        dominated = False
        for j in range(count):
            if weakly_dominates(values[keep[j]], v):
                dominated = True
                break
        if not dominated:
            keep[count] = i
            count += 1
    return keep[:count]


@numba.njit(cache=True)
def _on_a_line(values):
    # True when every point has the same v1 + v2 (fairness: G_a + G_ā is fixed by the node's rows).
    if values.shape[0] == 0:
        return False
    line = values[0, 1] + values[0, 2]
    for i in range(values.shape[0]):
        if values[i, 1] + values[i, 2] != line:
            return False
    return True


@numba.njit(cache=True, inline="always")
def _pareto_on_a_line(values, caps, order):
    """``pareto`` for three components with a constant v1 + v2: u ⪰ v only if u1 = v1 (and u0 ≤ v0).

    In ``pareto``'s order (increasing sum, i.e. increasing v0) the first feasible point of each
    v1 is kept and the others are dominated by it: the same result in O(k) lookups, not O(k · front).
    """
    seen = numba.typed.Dict.empty(key_type=numba.float64, value_type=numba.boolean)
    keep = np.empty(values.shape[0], dtype=np.int64)
    count = 0
    for i in order:
        if not feasible(values[i], caps) or values[i, 1] in seen:
            continue
        seen[values[i, 1]] = True
        keep[count] = i
        count += 1
    return keep[:count]


@numba.njit(cache=True, inline="always")
def _pareto_on_a_line_packed(values, nodes, caps):
    """``_pareto_on_a_line`` by two sorts of packed integer keys; empty when the values do not pack (or none is kept).

    Sorted by (v1, v0, nodes, index), the first feasible point of each v1 is the one the
    sweep keeps; the kept points are then put in ``pareto``'s order, (v0, nodes, index)
    (with v1 + v2 constant, the component sum orders as v0 does).
    """
    k = values.shape[0]
    key = _packed_key(values[:, 1::-1], nodes)  # (v1, v0, nodes)
    if key.shape[0] != k:
        return np.empty(0, dtype=np.int64)
    order = np.argsort(key, kind="mergesort")
    keep = np.empty(k, dtype=np.int64)
    count = 0
    last = -1.0
    for i in order:
        if values[i, 1] == last or not feasible(values[i], caps):
            continue
        last = values[i, 1]
        keep[count] = i
        count += 1
    keep = np.sort(keep[:count])
    top = 0.0
    for i in keep:
        top = max(top, float(nodes[i]))
    second = np.empty(count)
    for j in range(count):
        second[j] = values[keep[j], 0] * (top + 1) + nodes[keep[j]]
    return keep[np.argsort(second, kind="mergesort")]


@numba.njit(cache=True)
def merge(left, right, extra, caps):
    """Return every feasible ``l ⊕ r ⊕ extra`` (Eq. 7) and the (left, right) index of each: values (k, p), pairs (k, 2)."""
    p = left.shape[1]
    out = np.empty((left.shape[0] * right.shape[0], p))
    pairs = np.empty((left.shape[0] * right.shape[0], 2), dtype=np.int64)
    count = 0
    for a in range(left.shape[0]):
        for b in range(right.shape[0]):
            for j in range(p):
                out[count, j] = left[a, j] + right[b, j] + extra[j]
            if feasible(out[count], caps):
                pairs[count, 0], pairs[count, 1] = a, b
                count += 1
    return out[:count], pairs[:count]


@numba.njit(cache=True)
def fewest_first_pair(left, right, left_nodes, right_nodes, extra, caps):
    """Return the (left, right) index of the feasible ``l ⊕ r ⊕ extra`` with the smallest first component.

    Ties go to fewer nodes, then to the first pair found; shape (1, 2), or (0, 2) when none is feasible.
    """
    if (
        left.shape[1] == 3
        and left.shape[0] * right.shape[0] > 256
        and _on_a_line(left)
        and _on_a_line(right)
        and _whole(left)
        and _whole(right)
    ):
        return _fewest_first_on_lines(left, right, left_nodes, right_nodes, extra, caps)
    p = left.shape[1]
    value = np.empty(p)
    best, best_nodes = np.inf, 0
    out = np.empty((1, 2), dtype=np.int64)
    found = 0
    for a in range(left.shape[0]):
        for b in range(right.shape[0]):
            for j in range(p):
                value[j] = left[a, j] + right[b, j] + extra[j]
            if not feasible(value, caps):
                continue
            nodes = left_nodes[a] + right_nodes[b]
            if value[0] < best or (value[0] == best and nodes < best_nodes):
                best, best_nodes = value[0], nodes
                out[0, 0], out[0, 1] = a, b
                found = 1
    return out[:found]


@numba.njit(cache=True)
def _whole(values):
    # True when every value is an integer of magnitude below 2**52 (sums and differences are exact).
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            if v != np.floor(v) or abs(v) >= 2.0**52:
                return False
    return True


@numba.njit(cache=True)
def _ahead(values, nodes, i, j):
    # True when right point i comes before j: fewer errors, then fewer nodes, then the smaller index.
    if values[i, 0] != values[j, 0]:
        return values[i, 0] < values[j, 0]
    if nodes[i] != nodes[j]:
        return nodes[i] < nodes[j]
    return i < j


@numba.njit(cache=True, inline="always")
def _fewest_first_on_lines(left, right, left_nodes, right_nodes, extra, caps):
    """``fewest_first_pair`` when each side has a constant v1 + v2 (fairness): O((|L| + |R|) log |R|), not |L|·|R|.

    With ``v2 = C − v1`` on each side, a pair is feasible in components 1 and 2 iff
    ``l1 + r1`` lies in one window ``[lo, hi]``. Right points sorted by ``r1`` make every
    left point's partners one contiguous run, whose best point (fewest errors, then
    nodes, then index: the pair the full scan would keep) comes from a sparse table of
    range minima. Left points are taken in order, so ties go to the first, as in the scan.
    """
    out = np.empty((1, 2), dtype=np.int64)
    k = right.shape[0]
    if left.shape[0] == 0 or k == 0:
        return out[:0]
    line = left[0, 1] + left[0, 2] + right[0, 1] + right[0, 2]
    lo = line + extra[2] - caps[2]  # (line − s) + extra2 ≤ caps2
    hi = caps[1] - extra[1]  # s + extra1 ≤ caps1
    order = np.argsort(right[:, 1], kind="mergesort")
    key = right[order, 1]
    levels = 1
    while (1 << levels) <= k:
        levels += 1
    table = np.empty((levels, k), dtype=np.int64)
    table[0] = order
    for t in range(1, levels):
        half = 1 << (t - 1)
        for i in range(k - (1 << t) + 1):
            a, b = table[t - 1, i], table[t - 1, i + half]
            table[t, i] = a if _ahead(right, right_nodes, a, b) else b
    best, best_nodes = np.inf, 0
    found = 0
    for a in range(left.shape[0]):
        i0 = np.searchsorted(key, lo - left[a, 1], side="left")
        i1 = np.searchsorted(key, hi - left[a, 1], side="right")
        if i0 >= i1:
            continue
        t = 0
        while (1 << (t + 1)) <= i1 - i0:
            t += 1
        b, c = table[t, i0], table[t, i1 - (1 << t)]
        if not _ahead(right, right_nodes, b, c):
            b = c
        value = left[a, 0] + right[b, 0] + extra[0]
        if value > caps[0]:
            continue
        nodes = left_nodes[a] + right_nodes[b]
        if value < best or (value == best and nodes < best_nodes):
            best, best_nodes = value, nodes
            out[0, 0], out[0, 1] = a, b
            found = 1
    return out[:found]


@numba.njit(cache=True)
def covered(lower, front):
    """Return True when every point of ``lower`` is strictly dominated by a point of ``front`` (prune test, §3.3)."""
    if front.shape[0] == 0:
        return False
    for a in range(lower.shape[0]):
        hit = False
        for b in range(front.shape[0]):
            if strictly_dominates(front[b], lower[a]):
                hit = True
                break
        if not hit:
            return False
    return True
