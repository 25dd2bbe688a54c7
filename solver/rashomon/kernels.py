"""The Rashomon graph builder's hot path (``solver/rashomon/graph.py``) as numba kernels over uint64 bitsets.

``run`` advances the same depth-first build as the Python generators of ``graph.Builder``, a bounded
number of vertex builds at a time, and returns to the caller (the driver's step) when that work is
done, when an array is full (``NEEDS_MEMORY``: the caller grows it and calls again; nothing is half
done) or when a count or key would leave int64 (``OVERFLOW``: the caller builds with the Python
builder instead). Every vertex, option and cell comes out in the order the Python builder makes them,
so the graph is the same.

State lives in arrays the caller owns (``State``):

* entries: every (rows, depth, path) key the build has looked at, in a ``bitset_table`` hash table,
  with its leaf facts (mistakes, label, the lower bound of a split) and the ``proved`` / ``empty``
  bounds of ``Builder``; ``e_vertex`` its vertex or -1;
* vertices: entry, budget, leaf mistakes, label, the leaf mistakes of every label, and where its cells
  and options are in the pools (a rebuilt vertex gets new ranges; the old ones are left unused);
* a stack of frames (one per vertex under construction: the generator of ``Builder._build``) and two
  accumulators with stack discipline (the cells and options of the frames, the top frame's last).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver.bitset import popcount
from solver.bitset_table import EMPTY, find_slot, key_hash, rehash

DONE, OUT_OF_WORK, NEEDS_MEMORY, OVERFLOW = 0, 1, 2, 3
# What ``NEEDS_MEMORY`` asks for (``need[0]``): more entries, frames, accumulated cells or options, vertices,
# pooled cells or options.
GROW_ENTRIES, GROW_FRAMES, GROW_ACC, GROW_OPT_ACC, GROW_VERTICES, GROW_CELLS, GROW_OPTIONS, GROW_DENSE = range(8)
DENSE_MAX = 1 << 22  # the most cells of a vertex added up in a dense table (32 MB)
BUILD = -2  # ``resolve``: the vertex must be (re)built
COMPACT = 1 << 14  # accumulated cells this many past twice the last merged length are merged before more are added
MAX = np.int64(0x7FFFFFFFFFFFFFFF)

# Frame stages: 0 next feature, 1 the 0-side child requested, 2 the 1-side child requested, 3 combine, 4 finish.
F_ENTRY, F_BUDGET, F_J, F_STAGE, F_K0, F_K1, F_LB0, F_V0, F_V1, F_ACC, F_OPT, F_MERGED = range(12)
FRAME = 12  # F_MERGED: the length of the frame's cells when they were last merged (``COMPACT``)
PAIRS_PER_WORK = 1 << 12  # pairs of subtrees combined that count as one vertex build of ``run``'s ``work``


@numba.njit(cache=True, inline="always")
def facts(support, grp_rows, grp_class, grp_cost, mixed_rows, mixed_cost, k, w):
    """Write every class's cost in ``support`` into ``w``; return the unavoidable cost (GOSDT Thm B.9)."""
    for c in range(k):
        w[c] = 0
    W = support.shape[0]
    for g in range(grp_rows.shape[0]):
        n = 0
        for i in range(W):
            n += popcount(support[i] & grp_rows[g, i])
        w[grp_class[g]] += grp_cost[g] * n
    ep = 0
    for g in range(mixed_rows.shape[0]):
        for i in range(W):
            if support[i] & mixed_rows[g, i]:
                ep += mixed_cost[g]
                break
    return ep


@numba.njit(cache=True, inline="always")
def add_entry(
    slots,
    ekeys,
    edepth,
    etag,
    counts,
    e_m,
    e_label,
    e_split,
    e_proved,
    e_empty,
    e_vertex,
    e_size,
    grp_rows,
    grp_class,
    grp_cost,
    mixed_rows,
    mixed_cost,
    k,
    equivalent,
    q,
    lookahead,
    lam,
    bits,
    depth,
    tag,
    w,
):
    """Return the entry of (bits, depth, tag), adding it with its facts when new (the caller made room)."""
    slot = find_slot(slots, ekeys, edepth, etag, bits, depth, tag)
    e = slots[slot]
    if e != EMPTY:
        return e
    e = counts[0]
    counts[0] += 1
    slots[slot] = e
    ekeys[e, :] = bits
    edepth[e] = depth
    etag[e] = tag
    ep = facts(bits, grp_rows, grp_class, grp_cost, mixed_rows, mixed_cost, k, w)
    total = 0
    best = 0
    for c in range(k):
        total += w[c]
        if w[c] >= w[best]:
            best = c  # a tie predicts the higher class
    e_m[e] = total - w[best]
    e_label[e] = best
    e_split[e] = (ep if equivalent else 0) * q + (2 if lookahead else 1) * lam
    e_proved[e] = -1
    e_empty[e] = -1
    e_vertex[e] = -1
    n = 0
    for i in range(bits.shape[0]):
        n += popcount(bits[i])
    e_size[e] = n
    return e


@numba.njit(cache=True, inline="always")
def equal(keys, row, bits, W):
    for i in range(W):
        if keys[row, i] != bits[i]:
            return False
    return True


@numba.njit(cache=True, inline="always")
def lower(e_m, edepth, e_size, e_split, e_proved, q, lam, hierarchical, e):
    """``Builder.lower``: a sound lower bound on the key of every subtree of entry ``e``."""
    leaf = e_m[e] * q + lam
    bound = leaf
    if edepth[e] != 0 and e_size[e] > 1:
        bound = min(leaf, e_split[e])
    if hierarchical and e_proved[e] >= 0:
        bound = max(bound, e_proved[e])
    return bound


@numba.njit(cache=True, inline="always")
def resolve(
    e_m,
    edepth,
    e_size,
    e_split,
    e_proved,
    q,
    lam,
    hierarchical,
    e_empty,
    e_vertex,
    v_budget,
    c_key,
    v_cstart,
    e,
    budget,
):
    """``Builder.resolve``: the vertex, -1 (no tree within ``budget``) or ``BUILD``."""
    if budget < lower(e_m, edepth, e_size, e_split, e_proved, q, lam, hierarchical, e) or budget <= e_empty[e]:
        return -1
    v = e_vertex[e]
    if v >= 0 and v_budget[v] >= budget:
        return v if c_key[v_cstart[v]] <= budget else -1
    return BUILD


@numba.njit(cache=True, inline="always")
def child_tag(paths, permutation, tag, j, side):
    """The path tag of a child: 0 with the leaf permutation bound, else the interned (parent tag, feature, side)."""
    if permutation:
        return np.uint64(0)
    key = (np.int64(tag), np.int64(j), np.int64(side))
    if key in paths:
        return np.uint64(paths[key])
    t = len(paths) + 1
    paths[key] = t
    return np.uint64(t)


@numba.njit(cache=True, inline="always")
def merge_region(counts, a_m, a_h, a_n, a_key, lo):
    """Sort the accumulated cells ``lo..`` by (key, m, h) and add up equal cells in place; return False on overflow."""
    hi = counts[2]
    n = hi - lo
    if n <= 1:
        return True
    order = np.empty(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = lo + i
    width = 1
    while width < n:  # bottom-up merge sort of the indices
        for start in range(0, n, 2 * width):
            mid = min(start + width, n)
            end = min(start + 2 * width, n)
            i, j, t = start, mid, start
            while i < mid and j < end:
                x, y = order[j], order[i]
                if a_key[x] != a_key[y]:
                    before = a_key[x] < a_key[y]
                elif a_m[x] != a_m[y]:
                    before = a_m[x] < a_m[y]
                else:
                    before = a_h[x] < a_h[y]
                if before:
                    tmp[t] = order[j]
                    j += 1
                else:
                    tmp[t] = order[i]
                    i += 1
                t += 1
            while i < mid:
                tmp[t] = order[i]
                i += 1
                t += 1
            while j < end:
                tmp[t] = order[j]
                j += 1
                t += 1
        order, tmp = tmp, order
        width *= 2
    key = np.empty(n, dtype=np.int64)
    m = np.empty(n, dtype=np.int64)
    h = np.empty(n, dtype=np.int64)
    c = np.empty(n, dtype=np.int64)
    out = -1
    for i in range(n):
        a = order[i]
        if out >= 0 and m[out] == a_m[a] and h[out] == a_h[a]:
            if c[out] > MAX - a_n[a]:
                return False
            c[out] += a_n[a]
        else:
            out += 1
            key[out], m[out], h[out], c[out] = a_key[a], a_m[a], a_h[a], a_n[a]
    for i in range(out + 1):
        a_key[lo + i], a_m[lo + i], a_h[lo + i], a_n[lo + i] = key[i], m[i], h[i], c[i]
    counts[2] = lo + out + 1
    return True


@numba.njit(cache=True, inline="always")
def open_frame(
    a_h,
    a_m,
    a_n,
    counts,
    frames,
    a_key,
    e_m,
    _w,
    ekeys,
    k,
    any_label,
    q,
    lam,
    grp_rows,
    grp_class,
    grp_cost,
    mixed_rows,
    mixed_cost,
    e,
    budget,
    need,
):
    """Push the frame that builds entry ``e`` under ``budget`` with its leaves; return False (``need`` set) when full."""
    top = counts[1]
    if top >= frames.shape[0]:
        need[0] = GROW_FRAMES
        return False
    if counts[2] + k > a_key.shape[0]:
        need[0] = GROW_ACC
        return False
    f = frames[top]
    f[F_ENTRY], f[F_BUDGET], f[F_J], f[F_STAGE] = e, budget, 0, 0
    f[F_ACC], f[F_OPT], f[F_MERGED] = counts[2], counts[3], 0
    counts[1] = top + 1
    m = e_m[e]
    if not any_label:
        if m * q + lam <= budget:
            t = counts[2]
            a_key[t], a_m[t], a_h[t], a_n[t] = m * q + lam, m, 1, 1
            counts[2] = t + 1
    else:
        w = _w
        facts(ekeys[e], grp_rows, grp_class, grp_cost, mixed_rows, mixed_cost, k, w)
        total = 0
        for c in range(k):
            total += w[c]
        for c in range(k):
            mc = total - w[c]
            if mc * q + lam <= budget:
                t = counts[2]
                a_key[t], a_m[t], a_h[t], a_n[t] = mc * q + lam, mc, 1, 1
                counts[2] = t + 1
    return True


@numba.njit(cache=True, inline="always")
def combine(
    a_h,
    a_key,
    a_m,
    a_n,
    counts,
    v_cstart,
    v_clen,
    v_label,
    c_key,
    c_m,
    c_h,
    c_n,
    _dense,
    _touched,
    v_alt,
    trivial,
    any_label,
    q,
    lam,
    k,
    budget,
    v0,
    v1,
    H,
    dense,
):
    """Append the cells of the pairs of subtrees of ``v0`` and ``v1`` within ``budget`` (``graph.combine``); return
    1 when any was appended, 0 when none, -1 on overflow.

    ``dense``: pairs are first added up in ``st.dense`` at ``m·H + h`` (every cell within ``budget`` has an index
    there), so that each distinct cell is appended once.
    """
    s0, n0 = v_cstart[v0], v_clen[v0]
    s1, n1 = v_cstart[v1], v_clen[v1]
    skip = False
    if trivial:
        skip = any_label or v_label[v0] == v_label[v1]
    any_ = 0
    touched = 0
    min1 = c_key[s1]
    for a in range(s0, s0 + n0):
        k0 = c_key[a]
        if k0 + min1 > budget:
            break
        m0, h0, x = c_m[a], c_h[a], c_n[a]
        for b in range(s1, s1 + n1):
            if k0 + c_key[b] > budget:
                break
            if skip and h0 == 1 and c_h[b] == 1:
                continue
            y = c_n[b]
            if x > MAX // y:
                return -1
            m, h = m0 + c_m[b], h0 + c_h[b]
            if dense:
                i = m * H + h
                now = _dense[i]
                if now == 0:
                    _touched[touched] = i
                    touched += 1
                if now > MAX - x * y:
                    return -1
                _dense[i] = now + x * y
            else:
                t = counts[2]
                a_key[t], a_m[t], a_h[t], a_n[t] = k0 + c_key[b], m, h, x * y
                counts[2] = t + 1
            any_ = 1
    for t in range(touched):
        i = _touched[t]
        m, h = i // H, i % H
        t = counts[2]
        a_key[t], a_m[t], a_h[t], a_n[t] = m * q + h * lam, m, h, _dense[i]
        counts[2] = t + 1
        _dense[i] = 0
    if trivial and any_label:
        for a in range(k):
            for b in range(k):
                if a != b:
                    m = v_alt[v0, a] + v_alt[v1, b]
                    key = m * q + 2 * lam
                    if key <= budget:
                        t = counts[2]
                        a_key[t], a_m[t], a_h[t], a_n[t] = key, m, 2, 1
                        counts[2] = t + 1
                        any_ = 1
    return any_


@numba.njit(cache=True)
def finish(
    frames,
    counts,
    e_empty,
    e_proved,
    e_vertex,
    v_budget,
    c_key,
    o_j,
    v_entry,
    v_m,
    e_m,
    v_label,
    e_label,
    _w,
    ekeys,
    v_alt,
    c_m,
    a_key,
    a_m,
    c_h,
    c_n,
    a_h,
    a_n,
    v_cstart,
    v_clen,
    o_v0,
    o_v1,
    oa,
    v_ostart,
    v_olen,
    any_label,
    grp_rows,
    grp_class,
    grp_cost,
    mixed_rows,
    mixed_cost,
    k,
    f,
    need,
):
    """Close frame ``f`` (``Builder._build``'s end); return its vertex, -1, or ``BUILD`` when an array is full
    (``need`` set) or -3 on overflow."""
    e, budget, lo = frames[f, F_ENTRY], frames[f, F_BUDGET], frames[f, F_ACC]
    if not merge_region(counts, a_m, a_h, a_n, a_key, lo):
        return -3
    n = counts[2] - lo
    if n == 0:
        e_empty[e] = max(budget, e_empty[e])
        e_proved[e] = max(max(e_proved[e], 0), budget + 1)
        counts[3] = frames[f, F_OPT]
        return -1
    v = e_vertex[e]
    if v < 0 and counts[4] >= v_budget.shape[0]:
        need[0] = GROW_VERTICES
        return BUILD
    if counts[5] + n > c_key.shape[0]:
        need[0] = GROW_CELLS
        need[1] = n
        return BUILD
    n_opt = counts[3] - frames[f, F_OPT]
    if counts[6] + n_opt > o_j.shape[0]:
        need[0] = GROW_OPTIONS
        need[1] = n_opt
        return BUILD
    if v < 0:
        v = counts[4]
        counts[4] += 1
        e_vertex[e] = v
        v_entry[v] = e
        v_m[v] = e_m[e]
        v_label[v] = e_label[e]
        if any_label:
            w = _w
            facts(ekeys[e], grp_rows, grp_class, grp_cost, mixed_rows, mixed_cost, k, w)
            total = 0
            for c in range(k):
                total += w[c]
            for c in range(k):
                v_alt[v, c] = total - w[c]
    v_budget[v] = budget
    c0 = counts[5]
    for i in range(n):
        c_key[c0 + i], c_m[c0 + i] = a_key[lo + i], a_m[lo + i]
        c_h[c0 + i], c_n[c0 + i] = a_h[lo + i], a_n[lo + i]
    v_cstart[v], v_clen[v] = c0, n
    counts[5] = c0 + n
    o0 = counts[6]
    for i in range(n_opt):
        o_j[o0 + i], o_v0[o0 + i], o_v1[o0 + i] = (
            oa[frames[f, F_OPT] + i, 0],
            oa[frames[f, F_OPT] + i, 1],
            oa[frames[f, F_OPT] + i, 2],
        )
    v_ostart[v], v_olen[v] = o0, n_opt
    counts[6] = o0 + n_opt
    counts[2] = lo
    counts[3] = frames[f, F_OPT]
    e_proved[e] = c_key[c0]
    return v


@numba.njit(cache=True, inline="always")
def deliver(counts, frames, value):
    """Hand a child's result to the frame that asked for it (the top frame), or to the request itself."""
    top = counts[1]
    if top == 0:
        counts[7] = value
        return
    if frames[top - 1, F_STAGE] == 1:
        frames[top - 1, F_V0] = value
    else:
        frames[top - 1, F_V1] = value


@numba.njit(cache=True)
def run(st, data, paths, work, need):
    """Advance the build by at most ``work`` vertex builds; return (status, builds done)."""
    a_m = st.a_m
    a_h = st.a_h
    a_n = st.a_n
    e_label = st.e_label
    grp_rows = data.grp_rows
    grp_class = data.grp_class
    grp_cost = data.grp_cost
    mixed_rows = data.mixed_rows
    mixed_cost = data.mixed_cost
    equivalent = data.equivalent
    lookahead = data.lookahead
    permutation = data.permutation
    any_label = data.any_label
    v_label = st.v_label
    c_m = st.c_m
    c_h = st.c_h
    c_n = st.c_n
    touched = st.touched
    v_alt = st.v_alt
    trivial = data.trivial
    o_j = st.o_j
    v_entry = st.v_entry
    v_m = st.v_m
    o_v0 = st.o_v0
    o_v1 = st.o_v1
    v_ostart = st.v_ostart
    v_olen = st.v_olen
    e_empty = st.e_empty
    e_m = st.e_m
    e_proved = st.e_proved
    e_split = st.e_split
    e_vertex = st.e_vertex
    v_budget = st.v_budget
    ekeys = st.ekeys
    counts = st.counts
    frames = st.frames
    edepth = st.edepth
    slots = st.slots
    e_size = st.e_size
    etag = st.etag
    w = st.w
    c_key = st.c_key
    v_cstart = st.v_cstart
    _dense = st.dense
    v_clen = st.v_clen
    a_key = st.a_key
    oa = st.oa
    cols = data.cols
    hierarchical = data.hierarchical
    lam = data.lam
    q = data.q
    k = data.k
    W = ekeys.shape[1]
    ones = np.empty(W, dtype=np.uint64)
    rest = np.empty(W, dtype=np.uint64)
    done = 0
    while counts[1] > 0:
        f = counts[1] - 1
        e, budget, stage = frames[f, F_ENTRY], frames[f, F_BUDGET], frames[f, F_STAGE]
        if stage == 0:
            if work <= 0:
                return OUT_OF_WORK, done
            j = frames[f, F_J]
            if edepth[e] == 0 or j >= cols.shape[0]:
                frames[f, F_STAGE] = 4
                continue
            if (counts[0] + 2) * 2 > slots.shape[0] or counts[0] + 2 > edepth.shape[0]:
                need[0] = GROW_ENTRIES
                return NEEDS_MEMORY, done
            n1 = 0
            for i in range(W):
                ones[i] = ekeys[e, i] & cols[j, i]
                rest[i] = ekeys[e, i] ^ ones[i]
                n1 += popcount(ones[i])
            if n1 == 0 or n1 == e_size[e]:
                frames[f, F_J] = j + 1
                continue
            mask = np.uint64(slots.shape[0] - 1)
            depth = edepth[e]
            child_depth = depth - 1 if depth > 0 else depth
            tag = etag[e]
            t0 = np.uint64(0) if permutation else child_tag(paths, permutation, tag, j, 0)
            slot = np.int64(key_hash(rest, child_depth, t0) & mask)
            while True:  # bitset_table.find_slot, written out: a call per lookup costs more than the lookup
                k0 = slots[slot]
                if k0 == EMPTY or (edepth[k0] == child_depth and etag[k0] == t0 and equal(ekeys, k0, rest, W)):
                    break
                slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
            if k0 == EMPTY:
                k0 = add_entry(
                    slots,
                    ekeys,
                    edepth,
                    etag,
                    counts,
                    e_m,
                    e_label,
                    e_split,
                    e_proved,
                    e_empty,
                    e_vertex,
                    e_size,
                    grp_rows,
                    grp_class,
                    grp_cost,
                    mixed_rows,
                    mixed_cost,
                    k,
                    equivalent,
                    q,
                    lookahead,
                    lam,
                    rest,
                    child_depth,
                    t0,
                    w,
                )
            t1 = np.uint64(0) if permutation else child_tag(paths, permutation, tag, j, 1)
            slot = np.int64(key_hash(ones, child_depth, t1) & mask)
            while True:  # bitset_table.find_slot, written out: a call per lookup costs more than the lookup
                k1 = slots[slot]
                if k1 == EMPTY or (edepth[k1] == child_depth and etag[k1] == t1 and equal(ekeys, k1, ones, W)):
                    break
                slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
            if k1 == EMPTY:
                k1 = add_entry(
                    slots,
                    ekeys,
                    edepth,
                    etag,
                    counts,
                    e_m,
                    e_label,
                    e_split,
                    e_proved,
                    e_empty,
                    e_vertex,
                    e_size,
                    grp_rows,
                    grp_class,
                    grp_cost,
                    mixed_rows,
                    mixed_cost,
                    k,
                    equivalent,
                    q,
                    lookahead,
                    lam,
                    ones,
                    child_depth,
                    t1,
                    w,
                )
            lb0 = e_m[k0] * q + lam
            if edepth[k0] != 0 and e_size[k0] > 1:
                lb0 = min(lb0, e_split[k0])
            if hierarchical and e_proved[k0] >= 0:
                lb0 = max(lb0, e_proved[k0])
            lb1 = e_m[k1] * q + lam
            if edepth[k1] != 0 and e_size[k1] > 1:
                lb1 = min(lb1, e_split[k1])
            if hierarchical and e_proved[k1] >= 0:
                lb1 = max(lb1, e_proved[k1])
            if lb0 + lb1 > budget:
                frames[f, F_J] = j + 1
                continue
            frames[f, F_K0], frames[f, F_K1], frames[f, F_LB0] = k0, k1, lb0
            frames[f, F_STAGE] = 1
            b0 = budget - lb1
            r = -1
            if b0 >= lb0 and b0 > e_empty[k0]:
                r = BUILD
                v = e_vertex[k0]
                if v >= 0 and v_budget[v] >= b0:
                    r = v if c_key[v_cstart[v]] <= b0 else -1
            if r != BUILD:
                frames[f, F_V0] = r
                continue
            if work <= 0:
                frames[f, F_STAGE] = 0  # the same request again next time
                return OUT_OF_WORK, done
            if not open_frame(
                a_h,
                a_m,
                a_n,
                counts,
                frames,
                a_key,
                e_m,
                w,
                ekeys,
                k,
                any_label,
                q,
                lam,
                grp_rows,
                grp_class,
                grp_cost,
                mixed_rows,
                mixed_cost,
                k0,
                b0,
                need,
            ):
                frames[f, F_STAGE] = 0
                return NEEDS_MEMORY, done
            work -= 1
            done += 1
        elif stage == 1:
            v0 = frames[f, F_V0]
            if v0 < 0:
                frames[f, F_J] += 1
                frames[f, F_STAGE] = 0
                continue
            min0 = c_key[v_cstart[v0]]
            b1 = budget - (min0 if hierarchical else frames[f, F_LB0])
            k1 = frames[f, F_K1]
            lb1 = e_m[k1] * q + lam
            if edepth[k1] != 0 and e_size[k1] > 1:
                lb1 = min(lb1, e_split[k1])
            if hierarchical and e_proved[k1] >= 0:
                lb1 = max(lb1, e_proved[k1])
            r = -1
            if b1 >= lb1 and b1 > e_empty[k1]:
                r = BUILD
                v = e_vertex[k1]
                if v >= 0 and v_budget[v] >= b1:
                    r = v if c_key[v_cstart[v]] <= b1 else -1
            if r != BUILD:
                frames[f, F_V1] = r
                frames[f, F_STAGE] = 2
                continue
            if work <= 0:
                return OUT_OF_WORK, done
            frames[f, F_STAGE] = 2
            if not open_frame(
                a_h,
                a_m,
                a_n,
                counts,
                frames,
                a_key,
                e_m,
                w,
                ekeys,
                k,
                any_label,
                q,
                lam,
                grp_rows,
                grp_class,
                grp_cost,
                mixed_rows,
                mixed_cost,
                frames[f, F_K1],
                b1,
                need,
            ):
                frames[f, F_STAGE] = 1
                return NEEDS_MEMORY, done
            work -= 1
            done += 1
        elif stage == 2:
            if frames[f, F_V1] < 0:
                frames[f, F_J] += 1
                frames[f, F_STAGE] = 0
                continue
            frames[f, F_STAGE] = 3
        elif stage == 3:
            v0, v1 = frames[f, F_V0], frames[f, F_V1]
            if counts[2] - frames[f, F_ACC] > COMPACT + 2 * frames[f, F_MERGED]:
                if not merge_region(counts, a_m, a_h, a_n, a_key, frames[f, F_ACC]):
                    return OVERFLOW, done
                frames[f, F_MERGED] = counts[2] - frames[f, F_ACC]
            H = budget // lam + 1 if lam > 0 else e_size[e] + 1
            size = (budget // q + 1) * H if budget // q < DENSE_MAX and H <= DENSE_MAX else DENSE_MAX + 1
            dense = size <= _dense.shape[0]
            if not dense and size <= DENSE_MAX:
                need[0] = GROW_DENSE
                need[1] = size
                return NEEDS_MEMORY, done
            room = v_clen[v0] * v_clen[v1]
            room = min(room, size) + k * k
            if counts[2] + room > a_key.shape[0]:
                need[0] = GROW_ACC
                need[1] = room
                return NEEDS_MEMORY, done
            if counts[3] >= oa.shape[0]:
                need[0] = GROW_OPT_ACC
                return NEEDS_MEMORY, done
            got = combine(
                a_h,
                a_key,
                a_m,
                a_n,
                counts,
                v_cstart,
                v_clen,
                v_label,
                c_key,
                c_m,
                c_h,
                c_n,
                _dense,
                touched,
                v_alt,
                trivial,
                any_label,
                q,
                lam,
                k,
                budget,
                v0,
                v1,
                H,
                dense,
            )
            if got < 0:
                return OVERFLOW, done
            work -= v_clen[v0] * v_clen[v1] // PAIRS_PER_WORK  # a long combine counts, so a step stays short
            if got:
                t = counts[3]
                oa[t, 0], oa[t, 1], oa[t, 2] = frames[f, F_J], v0, v1
                counts[3] = t + 1
            frames[f, F_J] += 1
            frames[f, F_STAGE] = 0
        else:
            v = finish(
                frames,
                counts,
                e_empty,
                e_proved,
                e_vertex,
                v_budget,
                c_key,
                o_j,
                v_entry,
                v_m,
                e_m,
                v_label,
                e_label,
                w,
                ekeys,
                v_alt,
                c_m,
                a_key,
                a_m,
                c_h,
                c_n,
                a_h,
                a_n,
                v_cstart,
                v_clen,
                o_v0,
                o_v1,
                oa,
                v_ostart,
                v_olen,
                any_label,
                grp_rows,
                grp_class,
                grp_cost,
                mixed_rows,
                mixed_cost,
                k,
                f,
                need,
            )
            if v == BUILD:
                return NEEDS_MEMORY, done
            if v == -3:
                return OVERFLOW, done
            counts[1] = f
            deliver(counts, frames, v)
    return DONE, done


@numba.njit(cache=True)
def request(st, data, bits, depth, budget, need):
    """Start the build of the root (``bits``, ``depth``) under ``budget``: its vertex or -1 when already known,
    ``BUILD`` when ``run`` must build it, ``NEEDS`` when an array must grow first (``need``)."""
    ekeys = st.ekeys
    etag = st.etag
    e_label = st.e_label
    grp_rows = data.grp_rows
    grp_class = data.grp_class
    grp_cost = data.grp_cost
    mixed_rows = data.mixed_rows
    mixed_cost = data.mixed_cost
    k = data.k
    equivalent = data.equivalent
    lookahead = data.lookahead
    a_h = st.a_h
    a_m = st.a_m
    a_n = st.a_n
    frames = st.frames
    a_key = st.a_key
    any_label = data.any_label
    c_key = st.c_key
    e_empty = st.e_empty
    e_m = st.e_m
    e_proved = st.e_proved
    e_size = st.e_size
    e_split = st.e_split
    e_vertex = st.e_vertex
    hierarchical = data.hierarchical
    lam = data.lam
    q = data.q
    v_budget = st.v_budget
    v_cstart = st.v_cstart
    counts = st.counts
    slots = st.slots
    edepth = st.edepth
    w = st.w
    counts[1] = 0
    counts[2] = 0
    counts[3] = 0
    if (counts[0] + 1) * 2 > slots.shape[0] or counts[0] + 1 > edepth.shape[0]:
        need[0] = GROW_ENTRIES
        return NEEDS
    e = add_entry(
        slots,
        ekeys,
        edepth,
        etag,
        counts,
        e_m,
        e_label,
        e_split,
        e_proved,
        e_empty,
        e_vertex,
        e_size,
        grp_rows,
        grp_class,
        grp_cost,
        mixed_rows,
        mixed_cost,
        k,
        equivalent,
        q,
        lookahead,
        lam,
        bits,
        depth,
        np.uint64(0),
        w,
    )
    r = resolve(
        e_m,
        edepth,
        e_size,
        e_split,
        e_proved,
        q,
        lam,
        hierarchical,
        e_empty,
        e_vertex,
        v_budget,
        c_key,
        v_cstart,
        e,
        budget,
    )
    if r != BUILD:
        return r
    if not open_frame(
        a_h,
        a_m,
        a_n,
        counts,
        frames,
        a_key,
        e_m,
        w,
        ekeys,
        k,
        any_label,
        q,
        lam,
        grp_rows,
        grp_class,
        grp_cost,
        mixed_rows,
        mixed_cost,
        e,
        budget,
        need,
    ):
        return NEEDS
    return BUILD


# -- the arrays (Python side) ------------------------------------------------------------------------


class Data(NamedTuple):
    """The rows of ``objective.Rows`` as bitsets, and the builder's switches."""

    cols: np.ndarray  # (features, words)
    grp_rows: np.ndarray  # (groups, words): rows of one class and one integer cost
    grp_class: np.ndarray
    grp_cost: np.ndarray
    mixed_rows: np.ndarray  # (mixed groups, words): identical feature vectors with several labels
    mixed_cost: np.ndarray
    k: int
    q: int
    lam: int
    lookahead: bool
    equivalent: bool
    hierarchical: bool
    permutation: bool
    trivial: bool
    any_label: bool


class State(NamedTuple):
    """Everything the build holds between calls of ``run`` (see the module's docstring)."""

    slots: np.ndarray
    ekeys: np.ndarray
    edepth: np.ndarray
    etag: np.ndarray
    e_m: np.ndarray
    e_label: np.ndarray
    e_split: np.ndarray
    e_proved: np.ndarray
    e_empty: np.ndarray
    e_vertex: np.ndarray
    e_size: np.ndarray
    v_entry: np.ndarray
    v_budget: np.ndarray
    v_m: np.ndarray
    v_label: np.ndarray
    v_alt: np.ndarray
    v_cstart: np.ndarray
    v_clen: np.ndarray
    v_ostart: np.ndarray
    v_olen: np.ndarray
    c_key: np.ndarray
    c_m: np.ndarray
    c_h: np.ndarray
    c_n: np.ndarray
    o_j: np.ndarray
    o_v0: np.ndarray
    o_v1: np.ndarray
    frames: np.ndarray
    a_key: np.ndarray
    a_m: np.ndarray
    a_h: np.ndarray
    a_n: np.ndarray
    oa: np.ndarray
    w: np.ndarray
    dense: np.ndarray
    touched: np.ndarray
    counts: np.ndarray  # entries, frames, accumulated cells, accumulated options, vertices, cells, options, result


ENTRY_FIELDS = ("edepth", "etag", "e_m", "e_label", "e_split", "e_proved", "e_empty", "e_vertex", "e_size")
VERTEX_FIELDS = ("v_entry", "v_budget", "v_m", "v_label", "v_cstart", "v_clen", "v_ostart", "v_olen")
GROUPS = {
    GROW_FRAMES: ("frames",),
    GROW_ACC: ("a_key", "a_m", "a_h", "a_n"),
    GROW_OPT_ACC: ("oa",),
    GROW_CELLS: ("c_key", "c_m", "c_h", "c_n"),
    GROW_OPTIONS: ("o_j", "o_v0", "o_v1"),
}


def new_paths():
    """Return the table that interns paths (parent's tag, feature, side) when the leaf permutation bound is off."""
    return numba.typed.Dict.empty(key_type=numba.types.UniTuple(numba.int64, 3), value_type=numba.int64)


def new_state(words, k, entries=1024, vertices=256, cells=4096):
    i64 = np.int64
    return State(
        slots=np.full(2 * entries, EMPTY, dtype=i64),
        ekeys=np.zeros((entries, words), dtype=np.uint64),
        edepth=np.zeros(entries, dtype=i64),
        etag=np.zeros(entries, dtype=np.uint64),
        **{f: np.zeros(entries, dtype=i64) for f in ENTRY_FIELDS[2:]},
        **{f: np.zeros(vertices, dtype=i64) for f in VERTEX_FIELDS},
        v_alt=np.zeros((vertices, k), dtype=i64),
        c_key=np.zeros(cells, dtype=i64),
        c_m=np.zeros(cells, dtype=i64),
        c_h=np.zeros(cells, dtype=i64),
        c_n=np.zeros(cells, dtype=i64),
        o_j=np.zeros(vertices, dtype=i64),
        o_v0=np.zeros(vertices, dtype=i64),
        o_v1=np.zeros(vertices, dtype=i64),
        frames=np.zeros((64, FRAME), dtype=i64),
        a_key=np.zeros(cells, dtype=i64),
        a_m=np.zeros(cells, dtype=i64),
        a_h=np.zeros(cells, dtype=i64),
        a_n=np.zeros(cells, dtype=i64),
        oa=np.zeros((256, 3), dtype=i64),
        w=np.zeros(k, dtype=i64),
        dense=np.zeros(4096, dtype=i64),
        touched=np.zeros(4096, dtype=i64),
        counts=np.zeros(8, dtype=i64),
    )


def _grow(a, at_least):
    size = max(2 * a.shape[0], int(at_least))
    out = np.zeros((size,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


def grown(st, need):
    """Return ``st`` with room for what ``run`` asked (``need``: what, how much more)."""
    what, more = int(need[0]), int(need[1])
    c = st.counts
    if what == GROW_ENTRIES:
        size = 2 * st.edepth.shape[0]
        fields = {f: _grow(getattr(st, f), size) for f in ("ekeys",) + ENTRY_FIELDS}
        slots = np.full(2 * size, EMPTY, dtype=np.int64)
        rehash(slots, fields["ekeys"], fields["edepth"], fields["etag"], int(c[0]))
        return st._replace(slots=slots, **fields)
    if what == GROW_DENSE:
        size = max(2 * st.dense.shape[0], more)
        return st._replace(dense=np.zeros(size, dtype=np.int64), touched=np.zeros(size, dtype=np.int64))
    if what == GROW_VERTICES:
        size = 2 * st.v_budget.shape[0]
        return st._replace(v_alt=_grow(st.v_alt, size), **{f: _grow(getattr(st, f), size) for f in VERTEX_FIELDS})
    top = {GROW_FRAMES: c[1], GROW_ACC: c[2], GROW_OPT_ACC: c[3], GROW_CELLS: c[5], GROW_OPTIONS: c[6]}[what]
    return st._replace(**{f: _grow(getattr(st, f), top + more + 1) for f in GROUPS[what]})


NEEDS = -4
