"""Fronts of (FN, FP) counts for the F1 task (spec §2.4, §3.6): depths two to four, without general merges.

The generic ``depth_two.solve`` builds every front with small merges and
sorts; for F1 every value is a pair of integer counts (false negatives,
false positives) bounded by the node's positives and negatives, so a front
of one node budget is an array ``fp[fn]`` (fewest false positives for each
false-negative count) with the code of the tree that reaches it. Adding a
candidate is O(1); the front is read off by one sweep over ``fn``. A leaf
labelled 0 is worth (positives, 0), labelled 1 (0, negatives); a split of a
child on ``b`` with labels (0, 1) is (positives where x_b = 0, negatives
where x_b = 1), with (1, 0) the other way round.

Same fronts as ``depth_two.solve`` (values, and among equal values the fewest
branching nodes); ties between trees of equal value and size may resolve
to another of them. Features constant on the rows, or twins of an earlier
feature (equal or complementary there), are left out: they give the same
children. ``solve_f1_depth_three`` does a node of depth budget 3 in one call,
``solve_f1_depth_four`` a root of depth budget 4.
"""

import numba
import numpy as np

from solver.bitset import count
from solver.streed.bitcount import count_masked
from solver.streed.depth_two import NONE


@numba.njit(cache=True)
def _insert(sfn, sfp, scode, at, k, fn, fp, b, l0, l1):
    """Insert (fn, fp) into the staircase at ``at:k`` (increasing fn, strictly falling fp); return its new end.

    A point weakly dominated by one already there is dropped (so among equal values the
    earlier stays); the points the new one dominates are removed.
    """
    i = at
    while i < k and sfn[i] < fn:
        i += 1
    if i > at and sfp[i - 1] <= fp:
        return k
    if i < k and sfn[i] == fn and sfp[i] <= fp:
        return k
    j = i
    while j < k and sfp[j] >= fp:
        j += 1
    # Points i..j-1 are dominated: replace them by the new one, shifting the rest.
    shift = 1 - (j - i)
    if shift > 0:
        for t in range(k - 1, j - 1, -1):
            sfn[t + shift], sfp[t + shift] = sfn[t], sfp[t]
            scode[t + shift, 0], scode[t + shift, 1], scode[t + shift, 2] = scode[t, 0], scode[t, 1], scode[t, 2]
    elif shift < 0:
        for t in range(j, k):
            sfn[t + shift], sfp[t + shift] = sfn[t], sfp[t]
            scode[t + shift, 0], scode[t + shift, 1], scode[t + shift, 2] = scode[t, 0], scode[t, 1], scode[t, 2]
    sfn[i], sfp[i] = fn, fp
    scode[i, 0], scode[i, 1], scode[i, 2] = b, l0, l1
    return k + shift


@numba.njit(cache=True)
def _child_splits(neg, pos, active, a, side, totals, min_leaf, sfn, sfp, scode, at, slot_fp, slot_code):
    """Fill the front of depth-one trees inside child ``x_a = side`` into ``sfn``, ``sfp``, ``scode`` (b, l0, l1).

    ``neg``, ``pos``: symmetric pair counts (k, k) of negatives and positives over the features
    ``active`` (codes name ``active[b]``); ``totals`` = (negatives, positives) of the node. The points
    go from index ``at`` on, by increasing FN; returns the index after the last. With slots
    (``slot_fp`` of size positives + 1, all at the int64 maximum) each candidate is one comparison;
    without (size 0) it is inserted into the sorted staircase — cheaper when the positives far
    outnumber the features.
    """
    k = at
    lo, hi = slot_fp.shape[0], -1
    na, pa = neg[a, a], pos[a, a]
    for b in range(neg.shape[0]):
        if b == a:
            continue
        feature = active[b]
        if side == 1:
            n1, p1 = neg[a, b], pos[a, b]
            n0, p0 = na - n1, pa - p1
        else:
            n1, p1 = neg[b, b] - neg[a, b], pos[b, b] - pos[a, b]
            n0 = totals[0] - na - neg[b, b] + neg[a, b]
            p0 = totals[1] - pa - pos[b, b] + pos[a, b]
        if n0 + p0 < min_leaf or n1 + p1 < min_leaf:
            continue
        if slot_fp.shape[0] == 0:
            k = _insert(
                sfn, sfp, scode, at, k, p0, n1, feature, np.int64(0), np.int64(1)
            )  # x_b = 0 → label 0, x_b = 1 → label 1
            k = _insert(sfn, sfp, scode, at, k, p1, n0, feature, np.int64(1), np.int64(0))  # the other way round
            continue
        # Slots: the fewest false positives per FN count (strict <: among equal values the earlier stays).
        if n1 < slot_fp[p0]:
            slot_fp[p0], slot_code[p0, 0], slot_code[p0, 1], slot_code[p0, 2] = n1, feature, 0, 1
            lo, hi = min(lo, p0), max(hi, p0)
        if n0 < slot_fp[p1]:
            slot_fp[p1], slot_code[p1, 0], slot_code[p1, 1], slot_code[p1, 2] = n0, feature, 1, 0
            lo, hi = min(lo, p1), max(hi, p1)
    if slot_fp.shape[0] == 0:
        return k
    lowest = np.iinfo(np.int64).max
    for fn in range(lo, hi + 1):  # read the staircase off the slots, and empty them for the next child
        if slot_fp[fn] < lowest:
            lowest = slot_fp[fn]
            sfn[k], sfp[k] = fn, lowest
            scode[k, 0], scode[k, 1], scode[k, 2] = slot_code[fn, 0], slot_code[fn, 1], slot_code[fn, 2]
            k += 1
        slot_fp[fn] = np.iinfo(np.int64).max
    return k


@numba.njit(cache=True)
def _symmetric(S, r, active):
    # Integer pair counts of class r over the features `active`, as a full symmetric matrix (rows contiguous).
    k = active.shape[0]
    out = np.empty((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = int(S[active[i], active[j], r])
    return out


@numba.njit(cache=True)
def _distinct_features(C, N):
    """Return the features worth splitting on here: not constant, and not a twin of an earlier one.

    A constant feature splits nothing (min leaf ≥ 1). A feature equal to an earlier one on these
    rows (C[a, a] = C[b, b] = C[a, b]) or its complement (C[a, b] = 0, C[a, a] + C[b, b] = N)
    splits every subset of them into the same two parts (swapped), so every tree using it has
    a twin of the same value and size using the earlier one.
    """
    q = C.shape[0]
    active = np.empty(q, dtype=np.int64)
    k = 0
    for b in range(q):
        if not 0 < C[b, b] < N:
            continue
        twin = False
        for i in range(k):
            a = active[i]
            same = C[a, a] == C[b, b] and C[a, b] == C[b, b]
            if same or (C[a, b] == 0 and C[a, a] + C[b, b] == N):
                twin = True
                break
        if not twin:
            active[k] = b
            k += 1
    return active[:k]


@numba.njit(cache=True, inline="always")
def _offer(best_fp, best_nodes, codes, t, fn, fp, nodes, f1, lcode, i, rcode, j, cap_fn, cap_fp):
    # Keep candidate (fn, fp) at slot (t, fn) when it has fewer false positives, or as many and fewer nodes.
    # Scalar indexing only: an array view per candidate costs a reference count (most of the kernel's time).
    if fn > cap_fn or fp > cap_fp:
        return
    if fp < best_fp[t, fn] or (fp == best_fp[t, fn] and nodes < best_nodes[t, fn]):
        best_fp[t, fn] = fp
        best_nodes[t, fn] = nodes
        codes[t, fn, 0] = f1
        codes[t, fn, 1], codes[t, fn, 2], codes[t, fn, 3] = lcode[i, 0], lcode[i, 1], lcode[i, 2]
        codes[t, fn, 4], codes[t, fn, 5], codes[t, fn, 6] = rcode[j, 0], rcode[j, 1], rcode[j, 2]


@numba.njit(cache=True)
def _read_front(best_fp, best_nodes, codes):
    # Sweep the slots by increasing FN, keeping strictly falling FP: values (k, 2), codes (k, w), nodes (k,).
    P = best_fp.shape[0]
    keep = np.empty(P, dtype=np.int64)
    count = 0
    lowest = np.iinfo(np.int64).max
    for fn in range(P):
        if best_fp[fn] < lowest:
            lowest = best_fp[fn]
            keep[count] = fn
            count += 1
    values = np.empty((count, 2))
    for i in range(count):
        values[i, 0], values[i, 1] = keep[i], best_fp[keep[i]]
    return values, codes[keep[:count]].copy(), best_nodes[keep[:count]].copy()


@numba.njit(cache=True)
def solve_f1(S, C, tot, N, caps, min_leaf, budget):
    """Return the (FN, FP) fronts of every tree of depth ≤ 2 with at most 1, 2 and 3 branching nodes.

    ``S[a, b]`` counts (negatives, positives) with features a and b (a ≤ b), ``C`` the rows, ``tot``
    the node's (negatives, positives); ``caps`` bound (FN, FP). Same output as ``depth_two.solve``:
    ``(values1, codes1, values2, codes2, values3, codes3)``, budgets above ``budget`` empty.
    In one call; ``f1_start``, ``f1_range`` and ``f1_finish`` do the same over ranges of root features.
    """
    state = f1_start(S, C, tot, N, caps, budget)
    f1_range(S, C, N, min_leaf, np.int64(0), state[9].shape[0], state)
    return f1_finish(state, tot, budget)


@numba.njit(cache=True)
def f1_start(S, C, tot, N, caps, budget):
    """Return the state of ``solve_f1`` before any root split; its root features are ``state[9]`` (``f1_range``)."""
    flip = 1 if tot[0] < tot[1] else 0
    return _slots_start(S, C, tot, N, caps, budget, flip)


@numba.njit(cache=True)
def f1_finish(state, tot, budget):
    """Return ``solve_f1``'s six arrays from its state once every root feature is done."""
    values, codes, _, start = _read_fronts(state, tot, budget)
    out = []
    for b in range(1, 4):
        out.append((values[start[b] : start[b + 1]].copy(), codes[start[b] : start[b + 1]].copy()))
    return out[0][0], out[0][1], out[1][0], out[1][1], out[2][0], out[2][1]


@numba.njit(cache=True, inline="always")
def _fronts(S, C, tot, N, caps, min_leaf, budget):
    """Return the fronts of depth ≤ 2 for node budgets 0–3 as flat arrays: values (k, 2), codes (k, 7), nodes, start.

    Budget ``b`` runs over ``start[b]:start[b + 1]`` (empty above ``budget``), each by increasing FN.
    Budget 0 is the best leaves (label 0: (positives, 0); label 1: (0, negatives); a point weakly
    dominated by the other is dropped, label 0 first on ties).

    The slots run over the smaller class: with fewer negatives than positives the classes are
    swapped (FN ↔ FP, labels flipped) and each front is read back the other way round.
    """
    state = f1_start(S, C, tot, N, caps, budget)
    f1_range(S, C, N, min_leaf, np.int64(0), state[9].shape[0], state)
    return _read_fronts(state, tot, budget)


@numba.njit(cache=True)
def _read_fronts(state, tot, budget):
    # _fronts's output from the slots: carry each budget's slots up, then sweep them into fronts.
    _carry_up(state)
    best_fp, best_nodes, slot_codes = state[0], state[1], state[2]
    flip = state[15][2]
    top = min(budget, 3)
    P, M = int(tot[1]), int(tot[0])
    total = 2 + top * best_fp.shape[1]
    values = np.empty((total, 2))
    codes = np.full((total, 7), NONE, dtype=np.int64)
    nodes = np.zeros(total, dtype=np.int64)
    start = np.zeros(5, dtype=np.int64)
    if P == 0 or M == 0:  # one leaf costs nothing
        values[0, 0], values[0, 1] = 0.0, 0.0
        codes[0, 2] = 0 if P == 0 else 1
        at = 1
    else:
        values[0, 0], values[0, 1] = P, 0.0
        codes[0, 2] = 0
        values[1, 0], values[1, 1] = 0.0, M
        codes[1, 2] = 1
        at = 2
    start[1] = at
    keep = np.empty(best_fp.shape[1], dtype=np.int64)
    for t in range(3):
        if t < top:
            count = 0
            lowest = np.iinfo(np.int64).max
            for fn in range(best_fp.shape[1]):  # the staircase: increasing FN, strictly falling FP
                if best_fp[t, fn] < lowest:
                    lowest = best_fp[t, fn]
                    keep[count] = fn
                    count += 1
            for i in range(count):
                fn = keep[count - 1 - i] if flip else keep[i]
                values[at, flip], values[at, 1 - flip] = fn, best_fp[t, fn]
                nodes[at] = best_nodes[t, fn]
                for c in range(7):
                    code = slot_codes[t, fn, c]
                    if flip and code != NONE and (c == 2 or c == 3 or c == 5 or c == 6):
                        code = 1 - code  # a label of the swapped classes
                    codes[at, c] = code
                at += 1
        start[t + 2] = at
    return values[:at], codes[:at], nodes[:at], start


@numba.njit(cache=True, inline="always")
def _slots_start(S, C, tot, N, caps, budget, flip):
    """Return the state of the slots (3, P + 1) of trees of depth ≤ 2 with 1, 2, 3 branching nodes.

    ``(best_fp, best_nodes, codes, lfn, lfp, rfn, rfp, lcode, rcode, active, neg, pos, slot_fp,
    slot_code, totals, ints, limits)``: the fewest FP per FN with their node counts and codes, the
    children's scratch options, the root features worth splitting on (``active``) and their class
    pair counts, ``ints`` = (P, M, flip, top) and ``limits`` = (FN cap, FP cap). With ``flip`` the
    classes are swapped: class 1 counts as negative, "FN" is the count of misclassified class-0 rows
    and labels are the swapped ones.
    """
    neg_class, pos_class = flip, 1 - flip
    P, M = int(tot[pos_class]), int(tot[neg_class])
    limits = np.array([min(caps[flip], P), caps[1 - flip]])
    top = min(budget, 3)
    empty = np.iinfo(np.int64).max
    best_fp = np.full((3, P + 1), empty, dtype=np.int64)
    best_nodes = np.zeros((3, P + 1), dtype=np.int64)
    codes = np.full((3, P + 1, 7), NONE, dtype=np.int64)
    leaves = np.full((3, 3), NONE, dtype=np.int64)  # rows: leaf 0, leaf 1, nothing
    leaves[0, 1], leaves[1, 1] = 0, 1
    for t in range(top):  # a lone leaf is coded (NONE, NONE, label, NONE, ...), as in depth_two
        _offer(best_fp, best_nodes, codes, t, P, 0, 0, NONE, leaves, 0, leaves, 2, limits[0], limits[1])
        _offer(best_fp, best_nodes, codes, t, 0, M, 0, NONE, leaves, 1, leaves, 2, limits[0], limits[1])
    # Each child's options: its two leaves (positions 0, 1: labels 0 and 1), then its depth-one trees.
    q = S.shape[0]
    lfn, lfp = np.empty(2 * q + 2, dtype=np.int64), np.empty(2 * q + 2, dtype=np.int64)
    rfn, rfp = np.empty(2 * q + 2, dtype=np.int64), np.empty(2 * q + 2, dtype=np.int64)
    lcode, rcode = np.empty((2 * q + 2, 3), dtype=np.int64), np.empty((2 * q + 2, 3), dtype=np.int64)
    lcode[:2], rcode[:2] = leaves[:2], leaves[:2]
    active = _distinct_features(C, N)
    k = active.shape[0]
    neg, pos = _symmetric(S, neg_class, active), _symmetric(S, pos_class, active)
    slots = P + 1 if P + 1 <= 16 * k else 0
    slot_fp = np.full(slots, np.iinfo(np.int64).max, dtype=np.int64)
    slot_code = np.empty((slots, 3), dtype=np.int64)
    totals = np.array([M, P])
    ints = np.array([P, M, flip, top])
    return (
        best_fp,
        best_nodes,
        codes,
        lfn,
        lfp,
        rfn,
        rfp,
        lcode,
        rcode,
        active,
        neg,
        pos,
        slot_fp,
        slot_code,
        totals,
        ints,
        limits,
    )


@numba.njit(cache=True)
def f1_range(S, C, N, min_leaf, lo, hi, state):
    """Offer the trees whose root is ``state[9][lo:hi]`` (the root features worth splitting on), in place.

    Features run in order with the same rules whatever the ranges, so consecutive ranges give what one
    range over all of them gives.
    """
    best_fp, best_nodes, codes, lfn, lfp, rfn, rfp, lcode, rcode = state[:9]
    active, neg, pos, slot_fp, slot_code, totals, ints, limits = state[9:]
    P, M, flip, top = ints[0], ints[1], ints[2], ints[3]
    neg_class, pos_class = flip, 1 - flip
    cap_fn, cap_fp = limits[0], limits[1]
    for ia in range(lo, hi):
        a = active[ia]
        n1 = C[a, a]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        rn, rp = int(S[a, a, neg_class]), int(S[a, a, pos_class])
        # Leaf children: label 0 → (positives, 0), label 1 → (0, negatives).
        lfn[0], lfp[0], lfn[1], lfp[1] = P - rp, 0, 0, M - rn
        rfn[0], rfp[0], rfn[1], rfp[1] = rp, 0, 0, rn
        nl = nr = 2
        if top >= 2:
            nl = _child_splits(
                neg, pos, active, ia, np.int64(0), totals, min_leaf, lfn, lfp, lcode, np.int64(2), slot_fp, slot_code
            )
            nr = _child_splits(
                neg, pos, active, ia, np.int64(1), totals, min_leaf, rfn, rfp, rcode, np.int64(2), slot_fp, slot_code
            )
        for i in range(nl):
            for j in range(nr):
                level = (i >= 2) + (j >= 2)  # children that split: the tree has 1 + level branching nodes
                if level == 0 and i == j:
                    continue  # equal leaf labels: the leaf itself, offered above
                if level < top:
                    _offer(
                        best_fp,
                        best_nodes,
                        codes,
                        level,
                        lfn[i] + rfn[j],
                        lfp[i] + rfp[j],
                        1 + level,
                        a,
                        lcode,
                        i,
                        rcode,
                        j,
                        cap_fn,
                        cap_fp,
                    )


@numba.njit(cache=True, inline="always")
def _carry_up(state):
    # A tree within a smaller budget is within the larger ones: carry each slot up where it is better. Its
    # node count (1 + level) differs from every candidate offered at the larger budget, so this keeps the
    # same point as offering it there too, in the same order.
    best_fp, best_nodes, codes, top = state[0], state[1], state[2], state[15][3]
    for t in range(1, top):
        for fn in range(best_fp.shape[1]):
            if best_fp[t - 1, fn] < best_fp[t, fn] or (
                best_fp[t - 1, fn] == best_fp[t, fn] and best_nodes[t - 1, fn] < best_nodes[t, fn]
            ):
                best_fp[t, fn], best_nodes[t, fn] = best_fp[t - 1, fn], best_nodes[t - 1, fn]
                for c in range(7):
                    codes[t, fn, c] = codes[t - 1, fn, c]


@numba.njit(cache=True, inline="always")
def _restrict(S, C, feats):
    # Pair sums and counts over the features feats only (upper triangle kept).
    k = feats.shape[0]
    S2 = np.empty((k, k, S.shape[2]))
    C2 = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i, k):
            S2[i, j] = S[feats[i], feats[j]]
            C2[i, j] = C[feats[i], feats[j]]
    return S2, C2


@numba.njit(cache=True)
def _child_key(path, code, base):
    # The set of path decisions plus ``code``, as one integer (digits base ``base``, sorted): a branch-cache key.
    key = 0
    placed = False
    for c in path:
        if not placed and code < c:
            key = key * base + code
            placed = True
        key = key * base + c
    if not placed:
        key = key * base + code
    return key


@numba.njit(cache=True)
def _named(codes, feats):
    # Depth-two codes over the restricted features ``feats`` renamed to the original features.
    out = codes.copy()
    for i in range(out.shape[0]):
        for at in (0, 1, 4):
            if out[i, at] != NONE:
                out[i, at] = feats[out[i, at]]
    return out


@numba.njit(cache=True)
def _merge_split(best_fp, best_nodes, codes, f, lv, lc, ln, l0, l1, rv, rc, rn, r0, r1):
    """Offer every pair of left points ``l0:l1`` and right points ``r0:r1`` under a split on ``f`` to the slots.

    A slot ``fn`` keeps the fewest false positives, then the fewest nodes (the first offered on
    ties); its code is ``(f, left code, right code)``. Scalar copies only: a row view per candidate
    costs a reference count.
    """
    w = lc.shape[1]
    for i in range(l0, l1):
        for j in range(r0, r1):
            fn = int(lv[i, 0] + rv[j, 0])
            fp = int(lv[i, 1] + rv[j, 1])
            nodes = 1 + ln[i] + rn[j]
            if fp < best_fp[fn] or (fp == best_fp[fn] and nodes < best_nodes[fn]):
                best_fp[fn], best_nodes[fn] = fp, nodes
                codes[fn, 0] = f
                for c in range(w):
                    codes[fn, 1 + c], codes[fn, 1 + w + c] = lc[i, c], rc[j, c]


@numba.njit(cache=True)
def _leaf_slots(P, M, width):
    # The slots of a node holding its two leaves: label 0 → (P, 0), label 1 → (0, M); the first wins ties.
    empty = np.iinfo(np.int64).max
    best_fp = np.full(P + 1, empty, dtype=np.int64)
    best_nodes = np.zeros(P + 1, dtype=np.int64)
    codes = np.full((P + 1, width), NONE, dtype=np.int64)
    for label, fn, fp in ((0, P, 0), (1, 0, M)):
        if fp < best_fp[fn]:
            best_fp[fn], best_nodes[fn] = fp, 0
            codes[fn, 0], codes[fn, 1] = NONE, label
    return best_fp, best_nodes, codes


@numba.njit(cache=True)
def solve_f1_depth_three(bits, cls, full, budget, min_leaf, path, base, index, store):
    """Return the (FN, FP) front of every tree of depth ≤ 3 with at most ``budget`` branching nodes.

    The node's rows are packed (``bitcount.pack_rows``: features ``bits`` (q, W), classes
    ``cls`` (2, W), rows ``full``). Each split's left child is counted by popcount and the
    right one is the parent minus it (§3.6); both children's depth-two fronts come from
    ``_fronts`` and every node allocation's pairs go into the node's slots (fewest false
    positives per FN count, then fewest nodes). Returns values (k, 2) by increasing FN,
    codes (k, 15) = (feature, left depth-two code, right depth-two code) with feature −1
    for a lone leaf whose label is at position 1, and node counts (k,).

    Children's fronts are shared between nodes through a branch cache (§3.5): ``path``
    holds the node's sorted decisions (``2 f + side``), a child's key is that set plus its
    own decision (``_child_key``), ``index`` maps keys to positions in ``store``. The child
    of the node on x_g = s split on f is the child of the node on x_f = t split on g, so
    at depth four each is solved once, not twice. ``base`` 0 turns the cache off.
    """
    S, C, tot = count_masked(bits, cls, full)
    N = count(full)
    best_fp, best_nodes, codes = _leaf_slots(int(tot[1]), int(tot[0]), np.int64(15))
    # Only the node's distinct features (not constant, not a twin of an earlier one) can split it or any
    # of its children usefully: count and solve over those alone, and name the originals in the codes.
    feats = _distinct_features(C, N)
    q, W = feats.shape[0], bits.shape[1]
    bits = np.ascontiguousarray(bits[feats])
    S, C = _restrict(S, C, feats)
    left_bits = np.empty(W, dtype=np.uint64)
    inf = np.array([np.inf, np.inf])
    half = 3
    for f in range(q):
        n1 = C[f, f]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        keys = (_child_key(path, 2 * feats[f], base), _child_key(path, 2 * feats[f] + 1, base))
        known = (base > 0 and keys[0] in index, base > 0 and keys[1] in index)
        if not (known[0] and known[1]):
            for w in range(W):
                left_bits[w] = full[w] & ~bits[f, w]
            Sl, Cl, tl = count_masked(bits, cls, left_bits)
        if known[0]:
            lv, lc, ln, ls = store[index[keys[0]]]
        else:
            lv, lc, ln, ls = _fronts(Sl, Cl, tl, N - n1, inf, min_leaf, np.int64(3))
            lc = _named(lc, feats)
            if base > 0:
                index[keys[0]] = len(store)
                store.append((lv, lc, ln, ls))
        if known[1]:
            rv, rc, rn, rs = store[index[keys[1]]]
        else:
            rv, rc, rn, rs = _fronts(S - Sl, C - Cl, tot - tl, n1, inf, min_leaf, np.int64(3))
            rc = _named(rc, feats)
            if base > 0:
                index[keys[1]] = len(store)
                store.append((rv, rc, rn, rs))
        for n_left in range(max(0, budget - 1 - half), min(budget - 1, half) + 1):
            n_right = budget - 1 - n_left
            _merge_split(
                best_fp,
                best_nodes,
                codes,
                feats[f],
                lv,
                lc,
                ln,
                ls[n_left],
                ls[n_left + 1],
                rv,
                rc,
                rn,
                rs[n_right],
                rs[n_right + 1],
            )
    return _read_front(best_fp, best_nodes, codes)


@numba.njit(cache=True)
def solve_f1_depth_four(bits, cls, full, budget, min_leaf, base, index, store):
    """Return the (FN, FP) front of every tree of depth ≤ 4 with at most ``budget`` branching nodes (a root).

    Every distinct feature of the rows splits them; each child's front for each budget the
    allocation needs is ``solve_f1_depth_three`` on the parent's bitsets under the child's row
    mask (its path is the one decision; ``base``, ``index``, ``store`` its branch cache), and
    the pairs go into the root's slots as there. Returns values (k, 2) by increasing FN, codes
    (k, 31) = (feature, left depth-three code, right depth-three code) with feature −1 for a
    lone leaf whose label is at position 1, node counts (k,), and the number of depth-three solves.
    """
    S, C, tot = count_masked(bits, cls, full)
    N = count(full)
    best_fp, best_nodes, codes = _leaf_slots(int(tot[1]), int(tot[0]), np.int64(31))
    solved = 0
    feats = _distinct_features(C, N)
    W = bits.shape[1]
    half = 7
    path = np.empty(1, dtype=np.int64)
    masks = np.empty((2, W), dtype=np.uint64)
    for f in feats:
        n1 = C[f, f]
        if n1 < min_leaf or N - n1 < min_leaf:
            continue
        for w in range(W):
            masks[0, w], masks[1, w] = full[w] & ~bits[f, w], full[w] & bits[f, w]
        for n_left in range(max(0, budget - 1 - half), min(budget - 1, half) + 1):
            n_right = budget - 1 - n_left
            path[0] = 2 * f
            lv, lc, ln = solve_f1_depth_three(bits, cls, masks[0], n_left, min_leaf, path, base, index, store)
            path[0] = 2 * f + 1
            rv, rc, rn = solve_f1_depth_three(bits, cls, masks[1], n_right, min_leaf, path, base, index, store)
            solved += 2
            _merge_split(
                best_fp,
                best_nodes,
                codes,
                f,
                lv,
                lc,
                ln,
                np.int64(0),
                lv.shape[0],
                rv,
                rc,
                rn,
                np.int64(0),
                rv.shape[0],
            )
    values, codes, nodes = _read_front(best_fp, best_nodes, codes)
    return values, codes, nodes, solved
