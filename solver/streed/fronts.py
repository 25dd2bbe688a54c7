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


@numba.njit(cache=True)
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
    if (top0 + 1) * (top1 + 1) * (topn + 1) >= 2.0 ** 53:
        return np.empty(0)
    key = np.empty(k)
    for i in range(k):
        key[i] = (values[i, 0] * (top1 + 1) + values[i, 1]) * (topn + 1) + nodes[i]
    return key


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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
