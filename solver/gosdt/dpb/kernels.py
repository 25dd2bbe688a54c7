"""Numba kernels of GOSDT's dynamic programming with bounds (spec §3.2, the paper's Algorithm 1 corrected).

One ``run`` call pops at most ``budget`` exploration entries from the graph's
queues. Bound updates (high priority) are always handled first, so every
improvement reaches all ancestors before new subproblems are explored (§4.3).

Bounds of a subproblem ``s`` (spec §2.12), each behind its switch:
``leaf(s) = λ + loss of the best single label``; ``ep(s)`` the loss no tree
removes (Thm B.9); ``lb = λ + ep`` (Eq. 9) or ``min(leaf, 2λ + ep)`` with the
one-step lookahead (Thm B.2); a vertex is a leaf when its avoidable loss is at
most λ (Thm B.6) or its leaf objective is at most 2λ (Thm B.4).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver import bitset
from solver.gosdt.dpb import graph as gr

DONE, OUT_OF_BUDGET, NEEDS_MEMORY = 0, 1, 2
UNLIMITED = 1 << 30
_ONE = np.uint64(1)
# Typed constants for call sites: a literal 0 or 1 there compiles the callee once more (its own type).
_ZERO, _ONE_I, _ALL_ROWS = np.int64(0), np.int64(1), np.int64(-1)


class Data(NamedTuple):
    """The equivalent points as bitsets and prefix sums (§4.4).

    Attributes
    ----------
    cols : array of uint64, shape (M, W)
        ``cols[j]`` is the set of points where binary feature ``j`` is 1.
    prefix : array of float64, shape (K + 2, U + 1)
        Cumulative sums over the points of each class's weighted mass (rows ``0..K-1``),
        of each point's unavoidable loss (row ``K``: Eq. 8) and of the spread of its loss over
        labels (row ``K + 1``: what moving it to another leaf can cost, Thm 4.1).
    """

    cols: np.ndarray
    prefix: np.ndarray


class Config(NamedTuple):
    """λ, the float tolerance and one flag per bound (``solver/gosdt/params.py``)."""

    lam: float
    eps: float
    limited: bool
    hierarchical: bool
    lookahead: bool
    incremental: bool
    progress: bool
    equivalent: bool
    permutation: bool
    leaf_count: bool
    similar: bool


@numba.njit(cache=True)
def run_sums(bits, prefix, out, n_rows=-1):
    """Write into ``out`` the sum of each of the first ``n_rows`` rows (all: -1) of ``prefix``'s increments
    over the points in ``bits``.

    The prefix-sum trick (§4.4): each run of consecutive set bits costs one subtraction per row.
    """
    rows = prefix.shape[0] if n_rows < 0 else n_rows
    out[:rows] = 0.0
    for w in range(bits.shape[0]):
        word = bits[w]
        while word:
            start = bitset.lowest_bit(word)
            rest = ~(word >> np.uint64(start))
            length = 64 - start if rest == 0 else bitset.lowest_bit(rest)
            a = w * 64 + start
            for r in range(rows):
                out[r] += prefix[r, a + length] - prefix[r, a]
            if start + length >= 64:
                break
            word &= ~((_ONE << np.uint64(start + length)) - _ONE)


@numba.njit(cache=True)
def _initial_bounds(graph, cfg, v, sums, n_points, n_classes):
    # Spec §2.12: leaf objective, Eq. 9 lower bound and the leaf tests of Algorithm 4.
    total, top = 0.0, 0.0
    for c in range(n_classes):
        total += sums[c]
        top = max(top, sums[c])
    lam = cfg.lam
    leaf = lam + total - top
    base = sums[n_classes] if cfg.equivalent else 0.0  # Thm B.9: unavoidable loss of equivalent points
    graph.leaf[v], graph.ep[v], graph.ub[v] = leaf, base, leaf
    splittable = graph.depth[v] > 0 and n_points > 1
    graph.lbs[v] = 2 * lam + base if splittable else np.inf
    stop = not splittable
    if cfg.incremental and (total - top) - base <= lam:  # Thm B.6: a split gains at most the avoidable loss
        stop = True
    if cfg.leaf_count and leaf <= 2 * lam:  # Thm B.4: H* ≤ ub/λ < 2 (ties keep the leaf)
        stop = True
    if stop:
        graph.lb[v] = leaf
    elif cfg.lookahead:  # Thm B.2: a split has at least two leaves
        graph.lb[v] = min(leaf, 2 * lam + base)
    else:
        graph.lb[v] = min(leaf, lam + base)


@numba.njit(cache=True)
def find_or_create(data, cfg, graph, bits, n_points, depth, tag, parent, sums):
    """Return the vertex of (bits, depth, tag), creating and bounding it on first sight; link ``parent``."""
    slot = gr.find_slot(graph, bits, depth, tag)
    v = graph.slots[slot]
    if v == gr.EMPTY:
        v = gr.insert_at(graph, slot, bits, depth, tag)
        graph.state[v], graph.in_high[v], graph.best[v] = gr.NEW, False, gr.NO_SPLIT
        graph.split_count[v], graph.first_edge[v] = 0, gr.EMPTY
        run_sums(bits, data.prefix, sums, _ALL_ROWS)
        _initial_bounds(graph, cfg, v, sums, n_points, data.prefix.shape[0] - 2)
    if parent >= 0:
        gr.add_parent(graph, v, parent)
    return v


@numba.njit(cache=True)
def solved(graph, v):
    return graph.lb[v] >= graph.ub[v]


@numba.njit(cache=True)
def _child_tag(cfg, tag, feature, side):
    # Leaf permutation bound off (Thm B.8): one subproblem per ordered path, not per support.
    if cfg.permutation:
        return np.uint64(0)
    h = (tag ^ np.uint64(2 * feature + side + 1)) * np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(29)) | _ONE


@numba.njit(cache=True)
def run_sum_row(bits, prefix, r):
    """Return the sum of row ``r`` of ``prefix``'s increments over the points in ``bits`` (see ``run_sums``)."""
    total = 0.0
    for w in range(bits.shape[0]):
        word = bits[w]
        while word:
            start = bitset.lowest_bit(word)
            rest = ~(word >> np.uint64(start))
            length = 64 - start if rest == 0 else bitset.lowest_bit(rest)
            a = w * 64 + start
            total += prefix[r, a + length] - prefix[r, a]
            if start + length >= 64:
                break
            word &= ~((_ONE << np.uint64(start + length)) - _ONE)
    return total


@numba.njit(cache=True)
def _distance(bits, a, b, prefix, scratch, whole):
    # Thm 4.1: loss spread of the points that change side between splits a and b (or, attached swapped, that
    # stay); ``whole`` is the spread of all of ``bits``.
    for w in range(bits.shape[0]):
        scratch[w] = bits[w] & (a[w] ^ b[w])
    moved = run_sum_row(scratch, prefix, prefix.shape[0] - 1)
    return min(moved, whole - moved)


@numba.njit(cache=True)
def expand(data, cfg, graph, v, left, right, sums, scratch):
    """Create the children of every non-degenerate split of ``v`` (Appendix E) and record the splits."""
    start = graph.count[1]
    k = 0
    depth = graph.depth[v] - 1 if cfg.limited else graph.depth[v]
    previous = -1
    whole = run_sum_row(graph.keys[v], data.prefix, data.prefix.shape[0] - 1) if cfg.similar else 0.0
    for j in range(data.cols.shape[0]):
        nl = bitset.andnot_into(left, graph.keys[v], data.cols[j])
        if nl == 0:
            continue
        nr = bitset.and_into(right, graph.keys[v], data.cols[j])
        if nr == 0:
            continue
        tag = graph.tag[v]
        a = find_or_create(data, cfg, graph, left, nl, depth, _child_tag(cfg, tag, j, _ZERO), v, sums)
        b = find_or_create(data, cfg, graph, right, nr, depth, _child_tag(cfg, tag, j, _ONE_I), v, sums)
        p = start + k
        graph.split_feature[p], graph.split_left[p], graph.split_right[p] = j, a, b
        graph.split_dist[p] = np.inf
        if cfg.similar and previous >= 0:
            graph.split_dist[p] = _distance(
                graph.keys[v], data.cols[previous], data.cols[j], data.prefix, scratch, whole
            )
        previous = j
        k += 1
    graph.split_start[v], graph.split_count[v] = start, k
    graph.count[1] = start + k
    graph.state[v] = gr.EXPANDED


@numba.njit(cache=True)
def _stump_value(lam, sums, whole, n_classes):
    # λ + best-label loss of the right side (``sums``) and of the left side (``whole − sums``).
    total_r, top_r, total_l, top_l = 0.0, 0.0, 0.0, 0.0
    for c in range(n_classes):
        total_r += sums[c]
        top_r = max(top_r, sums[c])
        other = whole[c] - sums[c]
        total_l += other
        top_l = max(top_l, other)
    return 2 * lam + (total_r - top_r) + (total_l - top_l)


@numba.njit(cache=True)
def expand_stump(data, cfg, graph, v, right, sums, parent_sums):
    """Solve a vertex with one split level left directly: the best stump over every feature.

    Its children could only be leaves, so they are not stored, except the two of the best split
    (needed to extract the tree). The vertex is solved on return.
    """
    k = data.prefix.shape[0] - 2
    size = bitset.count(graph.keys[v])
    run_sums(graph.keys[v], data.prefix, parent_sums, _ALL_ROWS)
    best, best_j = graph.leaf[v], -1
    for j in range(data.cols.shape[0]):
        nr = bitset.and_into(right, graph.keys[v], data.cols[j])
        if nr == 0 or nr == size:
            continue
        run_sums(right, data.prefix, sums, k)  # class masses only
        value = _stump_value(cfg.lam, sums, parent_sums, k)
        if value < best:
            best, best_j = value, j
    start = graph.count[1]
    graph.split_start[v], graph.split_count[v] = start, 0
    graph.state[v] = gr.EXPANDED
    if best_j >= 0:
        left = np.empty_like(right)
        nl = bitset.andnot_into(left, graph.keys[v], data.cols[best_j])
        nr = bitset.and_into(right, graph.keys[v], data.cols[best_j])
        a = find_or_create(
            data, cfg, graph, left, nl, _ZERO, _child_tag(cfg, graph.tag[v], np.int64(best_j), _ZERO), v, sums
        )
        b = find_or_create(
            data, cfg, graph, right, nr, _ZERO, _child_tag(cfg, graph.tag[v], np.int64(best_j), _ONE_I), v, sums
        )
        graph.split_feature[start], graph.split_left[start], graph.split_right[start] = best_j, a, b
        graph.split_dist[start] = np.inf
        graph.split_count[v], graph.count[1] = 1, start + 1


@numba.njit(cache=True)
def split_bounds(cfg, graph, v, lbs):
    """Write into ``lbs`` a lower bound for each split of ``v``; return the least upper bound and its split."""
    start, n = graph.split_start[v], graph.split_count[v]
    ub, best = np.inf, gr.NO_SPLIT
    for k in range(n):
        a, b = graph.split_left[start + k], graph.split_right[start + k]
        lbs[k] = graph.lb[a] + graph.lb[b]  # Thm B.3: sub-tree lower bounds add up
        u = graph.ub[a] + graph.ub[b]
        if u < ub:
            ub, best = u, start + k
    if cfg.similar:  # Thm 4.1: neighbouring splits' optima differ by at most the moved mass
        for k in range(1, n):
            lbs[k] = max(lbs[k], lbs[k - 1] - graph.split_dist[start + k])
        for k in range(n - 2, -1, -1):
            lbs[k] = max(lbs[k], lbs[k + 1] - graph.split_dist[start + k + 1])
    if cfg.progress:
        _progress_bound(cfg, graph, v, lbs)
    return ub, best


@numba.njit(cache=True)
def _progress_bound(cfg, graph, v, lbs):
    # Thm B.7: if the split's two leaves gain at most λ over v's leaf, they lose to it; a tree under this
    # split can then beat v's leaf only if one child splits again.
    start, lam = graph.split_start[v], cfg.lam
    for k in range(graph.split_count[v]):
        a, b = graph.split_left[start + k], graph.split_right[start + k]
        if (graph.leaf[v] - lam) - (graph.leaf[a] - lam) - (graph.leaf[b] - lam) <= lam:
            sa, sb = max(graph.lb[a], graph.lbs[a]), max(graph.lb[b], graph.lbs[b])
            lbs[k] = max(lbs[k], min(sa + graph.lb[b], graph.lb[a] + sb))


@numba.njit(cache=True)
def update(cfg, graph, v, lbs):
    """Recompute ``v``'s bounds from its splits and its leaf (Eq. 7, leaf option kept); return True if changed."""
    ub, best = split_bounds(cfg, graph, v, lbs)
    lb = graph.leaf[v]
    for k in range(graph.split_count[v]):
        lb = min(lb, lbs[k])
    lb = max(lb, graph.lb[v])
    changed = False
    if ub < graph.ub[v]:
        graph.ub[v], graph.best[v] = ub, best
        changed = True
    ub = graph.ub[v]
    if lb > ub - cfg.eps * max(1.0, abs(ub)):
        lb = ub
    if lb > graph.lb[v]:
        graph.lb[v] = lb
        changed = True
    return changed


@numba.njit(cache=True)
def signal_parents(graph, v):
    e = graph.first_edge[v]
    while e != gr.EMPTY:
        p = graph.edge_parent[e]
        if not solved(graph, p):
            gr.push_high(graph, p)
        e = graph.edge_next[e]


@numba.njit(cache=True)
def explore_children(cfg, graph, v, lbs):
    """Queue the children of every split still in play (Algorithm 1, l. 23–27).

    The split with the least upper bound is queued last, so it is explored first (the order within a
    priority level is open in the paper).
    """
    start, n = graph.split_start[v], graph.split_count[v]
    keys = np.empty(n)
    for k in range(n):
        keys[k] = -(graph.ub[graph.split_left[start + k]] + graph.ub[graph.split_right[start + k]])
    for k in np.argsort(keys, kind="mergesort"):
        a, b = graph.split_left[start + k], graph.split_right[start + k]
        if lbs[k] >= graph.ub[a] + graph.ub[b]:
            continue  # resolved split
        if cfg.hierarchical and lbs[k] > graph.ub[v]:
            continue  # Thm B.1/B.3: this split cannot beat v's best subtree
        if not solved(graph, a):
            gr.push_low(graph, a)
        if not solved(graph, b):
            gr.push_low(graph, b)


@numba.njit(cache=True)
def _needed(graph, v, root):
    # A subproblem all of whose parents are solved helps nobody (yet); it is queued again if a new parent asks.
    if v == root:
        return True
    e = graph.first_edge[v]
    while e != gr.EMPTY:
        if not solved(graph, graph.edge_parent[e]):
            return True
        e = graph.edge_next[e]
    return False


@numba.njit(cache=True)
def run(data, cfg, graph, root, budget, lbs, left, right, sums, scratch, scratch_sums):
    """Process the queues until the root is solved or ``budget`` vertices were expanded.

    Returns
    -------
    status : int
        ``DONE``, ``OUT_OF_BUDGET`` or ``NEEDS_MEMORY`` (grow the graph for ``M`` more splits and call again).
    expanded, updates : int
    """
    m = data.cols.shape[0]
    expanded, updates = 0, 0
    while not solved(graph, root):
        if graph.tops[0] > 0:  # bound updates first (§4.3)
            graph.tops[0] -= 1
            v = graph.high[graph.tops[0]]
            graph.in_high[v] = False
            updates += 1
            if not solved(graph, v) and update(cfg, graph, v, lbs):
                signal_parents(graph, v)
            continue
        if graph.tops[1] == 0 or expanded >= budget:
            return OUT_OF_BUDGET, expanded, updates
        v = graph.low[graph.tops[1] - 1]
        if solved(graph, v) or not _needed(graph, v, root):
            graph.tops[1] -= 1
            graph.state[v] = gr.NEW
            continue
        c = graph.count
        if (
            c[0] + 2 * m > graph.keys.shape[0]
            or c[1] + m > graph.split_feature.shape[0]
            or c[2] + 2 * m > graph.edge_parent.shape[0]
        ):
            return NEEDS_MEMORY, expanded, updates
        graph.tops[1] -= 1
        if cfg.limited and graph.depth[v] == 1:
            expand_stump(data, cfg, graph, v, right, sums, scratch_sums)
        else:
            expand(data, cfg, graph, v, left, right, sums, scratch)
        expanded += 1
        if update(cfg, graph, v, lbs):
            signal_parents(graph, v)
        if not solved(graph, v):
            explore_children(cfg, graph, v, lbs)  # lbs still holds v's split bounds from update
    return DONE, expanded, updates
