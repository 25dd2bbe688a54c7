"""The ordered search as an explicit stack (spec ``contree.md`` §4–§7): ``run`` does a bounded amount of work.

One frame per recursion level (``solver.ordered.state``). A frame searches its node's features one by
one; per feature, an interval queue (§5.6) hands out split indices in bisection order, pruned by the
sub-interval bound (§5.3), interval shrinking (§5.5), the zero rule (§5.2) and neighbourhood pruning
(§5.4). An index is evaluated by the depth-two routine (``solver.ordered.sweep``, §3) at a node of
depth two, else by solving the bigger child, then the smaller one under the bound left over plus the
interval's half-width (§4.3, the ``+h`` relaxation), as child frames on top of the stack.

Contract of a frame (§4.1): called with bound ``U``, it returns either the node's optimum (``ok``,
when it is below ``U``) or a proved lower bound ``≥ U``. A node's optimum is cached with its tree; a
failure bound is cached as a lower bound (§7.2: never an incumbent's value).

Node budgets (STreeD's Eq. 47): a frame tries every allocation of its branching nodes between the
children; a split's records are the minimum over allocations (lower bounds of each), and the zero
rule fires only when every allocation's child bound is zero — the lemmas of §5.1 hold per
allocation, so they hold for the minimum.
"""

import numba
import numpy as np

from solver.ordered import cache, histogram, sweep
from solver.ordered.state import (
    HIST,
    HIST_MAX_WORK,
    ALLOC,
    C_D2,
    C_ENTRIES,
    C_EVALS,
    C_HITS,
    C_NEIGHBOUR,
    C_NODES,
    C_POOL,
    C_RET_OK,
    C_RET_TREE,
    C_ROOT_DONE,
    C_SKIPPED,
    C_SPLITS,
    C_SUBINTERVAL,
    C_TOP,
    C_WORK,
    C_ZERO,
    DONE,
    F_INC,
    F_LBN,
    F_LEAF,
    F_ML,
    F_MR,
    F_TL,
    F_TR,
    F_TS,
    F_U,
    F_UBS,
    F_VB,
    F_VS,
    F_W,
    FEATURE,
    FINISH,
    I_A,
    I_AL,
    I_ALH,
    I_B,
    I_BIGLEFT,
    I_D,
    I_DSEARCH,
    I_FPOS,
    I_FEAT,
    I_HI,
    I_INCT,
    I_K,
    I_KB,
    I_KD,
    I_LEAFLAB,
    I_LO,
    I_N,
    I_NB,
    I_NSEARCH,
    I_OKB,
    I_OKS,
    I_PHASE,
    I_TB,
    I_TS,
    NEEDS_CACHE,
    NEEDS_LEVELS,
    NEEDS_POOL,
    OUT_OF_BUDGET,
    POP,
    SI_M,
    SI_QH,
    SI_QT,
    SI_ZL,
    SI_ZR,
    START,
    WAIT_BIG,
    WAIT_SMALL,
)

INF = np.inf
# Typed constants for call sites: a literal 0, -1 or False there compiles the callee once more (its own type).
ZERO, YES, NO = np.int64(0), np.bool_(True), np.bool_(False)


@numba.njit(cache=True, inline="always")
def _node(st, f, u, left, right):
    """Add a branching node to the pool; return its tree id."""
    t = st.cnt[C_POOL]
    st.pf[t], st.pu[t], st.pl[t], st.pr[t] = f, u, left, right
    st.cnt[C_POOL] = t + 1
    return t


@numba.njit(cache=True, inline="always")
def _stump(st, di, c):
    """Tree id of child ``c``'s depth-≤1 tree from the depth-two routine's output ``di``."""
    if di[c, 0] < 0:
        return -(di[c, 4] + 1)
    return _node(st, di[c, 0], di[c, 1], -(di[c, 2] + 1), -(di[c, 3] + 1))


@numba.njit(cache=True, inline="always")
def _full(d):
    return (1 << d) - 1 if d < 62 else (1 << 62)


@numba.njit(cache=True)
def split_into(key1, key2, st, top, j, s, left):
    """Write the rows of one child of split position ``s`` of feature ``j`` at ``top`` into level ``top + 1``.

    Every feature's order (with its ranks and classes) is filtered in place of re-sorting (a stable
    partition, §2.2); the child's row-set keys are summed on the way. Returns the child's row count.
    """
    n = st.fi[top, I_N]
    F = st.ord.shape[1]
    side = st.side
    src = st.ord[top, j]
    for p in range(n):
        side[src[p]] = 1 if (p < s) == left else 0
    h1, h2 = np.uint64(0), np.uint64(0)
    m = 0
    for g in range(F):
        m = 0
        row, rk, cl = st.ord[top, g], st.srk[top, g], st.scl[top, g]
        out, ork, ocl = st.ord[top + 1, g], st.srk[top + 1, g], st.scl[top + 1, g]
        for p in range(n):
            r = row[p]
            if side[r] == 1:
                out[m], ork[m], ocl[m] = r, rk[p], cl[p]
                m += 1
                if g == 0:
                    h1 += key1[r]
                    h2 += key2[r]
    st.fh[top + 1, 0], st.fh[top + 1, 1] = h1, h2
    st.cnt[C_WORK] += F * n
    st.cnt[C_SPLITS] += 1
    return m


@numba.njit(cache=True)
def _children(inp, prm, st, top, n, j, s):
    """The depth-two routine on the frame at ``top``: the integer one for two classes of unit weight."""
    if prm.binary:
        return sweep.children_binary(
            st.ord[top], st.srk[top], st.scl[top], st.side, n, j, s, prm.cc, prm.eps, prm.min_leaf, st.dv, st.di
        )
    if prm.counts:
        return sweep.children_counts(
            st.ord[top],
            st.srk[top],
            st.scl[top],
            st.side,
            n,
            j,
            s,
            inp.cost.shape[1],
            prm.cc,
            prm.eps,
            prm.min_leaf,
            st.counts,
            st.dv,
            st.di,
        )
    return sweep.children(
        inp.cost,
        inp.w,
        inp.cw,
        prm.diag,
        st.ord[top],
        st.srk[top],
        st.scl[top],
        st.side,
        n,
        j,
        s,
        prm.cc,
        prm.eps,
        prm.min_leaf,
        st.sw,
        st.dv,
        st.di,
    )


@numba.njit(cache=True)
def _push_child(st, top, n, d, nb, U):
    fi = st.fi[top + 1]
    fi[:] = 0
    fi[I_N], fi[I_D], fi[I_NB], fi[I_PHASE] = n, d, nb, START
    st.ff[top + 1, :] = 0.0
    st.ff[top + 1, F_U] = U
    st.cnt[C_TOP] = top + 1


@numba.njit(cache=True, inline="always")
def _slot(prm, top, j, F):
    """The slot of feature ``j`` at the frame of level ``top``: the root's own per feature in turns, else the level's."""
    if prm.round_robin:
        return j if top == 0 else F + top
    return top


@numba.njit(cache=True)
def _queue_push(st, slot, lo, hi, a, b):
    cap = st.q.shape[1]
    t = st.si[slot, SI_QT]
    e = st.q[slot, t % cap]
    e[0], e[1], e[2], e[3] = lo, hi, a, b
    st.si[slot, SI_QT] = t + 1


@numba.njit(cache=True)
def _first_beyond(P, S, lo, hi, base, r):
    """Return the first index ``i`` in ``[lo, hi]`` with ``P[S[i]] - base > r`` (``hi + 1`` if none)."""
    a, b = lo, hi + 1
    while a < b:
        mid = (a + b) // 2
        if P[S[mid]] - base > r:
            b = mid
        else:
            a = mid + 1
    return a


@numba.njit(cache=True)
def _last_before(P, S, lo, hi, top_value, r):
    """Return the last index ``i`` in ``[lo, hi]`` with ``top_value - P[S[i]] > r`` (``lo - 1`` if none)."""
    a, b = lo - 1, hi
    while a < b:
        mid = (a + b + 1) // 2
        if top_value - P[S[mid]] > r:
            a = mid
        else:
            b = mid - 1
    return a


@numba.njit(cache=True)
def _finish(st, prm, top, ok, value, tree):
    """Return ``value`` (an optimum when ``ok``, else a lower bound) to the parent; cache it."""
    fi = st.fi[top]
    if prm.use_cache and fi[I_KD] >= 1:
        st.cnt[C_ENTRIES] += cache.store(
            st.ck1,
            st.ck2,
            st.ci,
            st.cv,
            st.cx,
            st.fh[top, 0],
            st.fh[top, 1],
            fi[I_N],
            fi[I_KD],
            fi[I_KB],
            value,
            ok,
            tree if ok else 0,
        )
    st.reg[0] = value
    st.cnt[C_RET_OK] = 1 if ok else 0
    st.cnt[C_RET_TREE] = tree if ok else 0
    st.cnt[C_TOP] = top - 1
    fi[I_PHASE] = FINISH


@numba.njit(cache=True)
def _start(inp, prm, st, top):
    """Initialise a frame: leaf, budgets, cache, shortcuts; solve depth one at once. Return True when finished."""
    cost, w = inp.cost, inp.w
    fi, ff = st.fi[top], st.ff[top]
    n = fi[I_N]
    L = cost.shape[1]
    tot = st.tot[top]
    tot[:] = 0.0
    rows = st.ord[top, 0]
    weight = 0.0
    for p in range(n):
        r = rows[p]
        for l in range(L):
            tot[l] += cost[r, l]
        weight += w[r]
    st.cnt[C_WORK] += n
    st.cnt[C_NODES] += 1
    leaf, lab = tot[0], 0
    for l in range(1, L):
        if tot[l] < leaf:
            leaf, lab = tot[l], l
    ff[F_LEAF], ff[F_INC], ff[F_LBN], ff[F_W] = leaf, leaf, 0.0, weight
    fi[I_LEAFLAB], fi[I_INCT] = lab, -(lab + 1)
    cc, eps = prm.cc, prm.eps
    U = ff[F_U]
    # Budgets that do not depend on U: a tree with nb branching nodes has depth ≤ nb; a path of depth d needs
    # d + 1 leaves of at least min_leaf rows (§4.6 depth reduction).
    d, nb = fi[I_D], fi[I_NB]
    d = min(d, n // prm.min_leaf - 1)
    d = max(d, 0)
    nb = min(nb, _full(d))
    d = min(d, nb)
    fi[I_KD], fi[I_KB] = d, nb
    if prm.use_cache and d >= 1:
        s = cache.find(st.ck1, st.ck2, st.ci, st.fh[top, 0], st.fh[top, 1], n, d, nb)
        if s >= 0:
            v = st.cv[s]
            if st.cx[s] == 1:
                st.cnt[C_HITS] += 1
                fi[I_KD] = 0  # nothing new to store
                _finish(st, prm, top, v < U - eps, v, np.int64(st.ci[s, 3]))
                return True
            ff[F_LBN] = v
            if v >= U - eps:
                st.cnt[C_HITS] += 1
                fi[I_KD] = 0
                _finish(st, prm, top, NO, v, ZERO)
                return True
    # No split beats a leaf of cost at most cc; nor one the cached bound proves optimal; a node of weight at
    # most 2 cc cannot have two children that each pay for their split (§4.6).
    if d == 0 or leaf <= cc + eps or leaf <= ff[F_LBN] + eps or (cc > 0 and weight <= 2 * cc):
        _end(st, prm, top)
        return True
    # A tree better than min(leaf, U) has fewer than min(leaf, U) / cc branching nodes.
    ns = nb
    if cc > 0:
        bound = min(leaf, U)
        most = np.int64(np.ceil((bound - eps) / cc)) - 1
        ns = min(ns, most)
    if ns <= 0:
        _end(st, prm, top)
        return True
    ds = min(d, ns)
    ns = min(ns, _full(ds))
    fi[I_NSEARCH], fi[I_DSEARCH] = ns, ds
    if ds == 1:
        st.cnt[C_WORK] += _children(inp, prm, st, top, n, np.int64(-1), ZERO)
        if st.dv[0, 0] < leaf - eps:
            ff[F_INC] = st.dv[0, 0]
            fi[I_INCT] = _stump(st, st.di, 0)
        _end(st, prm, top)
        return True
    if ds == 2 and prm.hist_ratio > 0 and _by_histograms(inp, prm, st, top, n):
        fi[I_FPOS] = 0
        fi[I_PHASE] = HIST
        return False
    ford = st.ford[top]
    if prm.order_features:
        # Gini above depth two (as the reference); the cheaper stump cost at depth two.
        st.cnt[C_WORK] += sweep.feature_scores(
            cost, w, prm.diag, st.ord[top], st.srk[top], st.scl[top], n, prm.min_leaf, ds >= 3, st.sw, st.fsc
        )
        ford[:] = np.argsort(st.fsc, kind="mergesort").astype(np.int32)
    else:
        for g in range(ford.shape[0]):
            ford[g] = g
    fi[I_FPOS] = 0
    fi[I_PHASE] = FEATURE
    if top == 0 and prm.round_robin:
        for g in range(ford.shape[0]):  # every feature's queue at once: they are searched in turns
            _prepare(inp, prm, st, top, ford[g], g)
        fi[I_PHASE] = POP
    return False


@numba.njit(cache=True)
def _by_histograms(inp, prm, st, top, n):
    """Return True (the histograms filled) when a depth-two frame is cheaper to solve from histograms."""
    F = inp.rank.shape[0]
    st.cnt[C_WORK] += n * F
    M = histogram.node_bins(st.ord[top], st.srk[top], n, st.hbins, st.hvals, st.hoff, st.hm)
    if M < 0:
        return False
    most = 0
    for g in range(F):
        most = max(most, st.hm[g])
    if n * F + 2 * most * M > HIST_MAX_WORK or n * F * F + 2 * M * M > prm.hist_ratio * n * F:
        return False
    histogram.totals(inp.cost, st.ord[top], st.hbins, n, st.hoff, st.hm, st.hh, st.hc, st.hsw[0])
    st.cnt[C_WORK] += n * F
    return True


@numba.njit(cache=True)
def _hist_step(inp, prm, st, top):
    """Try every threshold of the next root feature of a frame solved from histograms (``_by_histograms``)."""
    fi, ff = st.fi[top], st.ff[top]
    F = inp.rank.shape[0]
    if fi[I_FPOS] >= F:
        _end(st, prm, top)
        return
    j = fi[I_FPOS]
    n = fi[I_N]
    best = ff[F_INC] - prm.eps
    value = histogram.root_feature(
        inp.cost,
        st.ord[top],
        st.srk[top],
        n,
        j,
        fi[I_NSEARCH],
        prm.cc,
        prm.min_leaf,
        st.hbins,
        st.hvals,
        st.hoff,
        st.hm,
        st.hh,
        st.hc,
        st.hlh,
        st.hlc,
        st.hsw,
        st.htree,
        best,
    )
    st.cnt[C_WORK] += n * F + 2 * st.hm[j] * (st.hoff[F - 1] + st.hm[F - 1])
    st.cnt[C_D2] += 1
    if value < best:
        tree = st.htree
        ff[F_INC] = value
        fi[I_INCT] = _node(st, tree[0], tree[1], _hist_side(st, tree, np.int64(2)), _hist_side(st, tree, np.int64(7)))
    fi[I_FPOS] = j + 1


@numba.njit(cache=True)
def _hist_side(st, tree, at):
    """Tree id of one side of ``histogram.solve``'s tree."""
    if tree[at] < 0:
        return -(tree[at + 4] + 1)
    return _node(st, tree[at], tree[at + 1], -(tree[at + 2] + 1), -(tree[at + 3] + 1))


@numba.njit(cache=True)
def _end(st, prm, top):
    """Finish a frame whose search is complete: its incumbent is optimal if below U, else U is a bound."""
    fi, ff = st.fi[top], st.ff[top]
    U, inc = ff[F_U], ff[F_INC]
    if inc < U - prm.eps:
        _finish(st, prm, top, YES, inc, fi[I_INCT])
    else:
        _finish(st, prm, top, NO, max(U, ff[F_LBN]), ZERO)


@numba.njit(cache=True)
def _prepare(inp, prm, st, top, j, position):
    """Fill feature ``j``'s slot: its split positions, prefix weights and a queue of one interval; return its count."""
    w = inp.w
    n = st.fi[top, I_N]
    slot = _slot(prm, top, j, inp.rank.shape[0])
    row = st.ord[top, j]
    rk = st.srk[top, j]
    P = st.P[slot]
    S = st.S[slot]
    P[0] = 0.0
    for p in range(n):
        P[p + 1] = P[p] + w[row[p]]
    cc, ml = prm.cc, prm.min_leaf
    m = 0
    for p in range(max(1, ml), n - max(1, ml) + 1):
        if rk[p] != rk[p - 1]:
            # A child of weight at most cc never pays for its split (§4.6).
            if cc > 0 and (P[p] <= cc or P[n] - P[p] <= cc):
                continue
            S[m] = p
            m += 1
    st.cnt[C_WORK] += n
    si = st.si[slot]
    si[SI_M], si[SI_QH], si[SI_QT], si[SI_ZL], si[SI_ZR] = m, 0, 0, -1, m
    if m > 0:
        _queue_push(st, slot, ZERO, np.int64(m - 1), np.int64(-1), np.int64(-1))
    return m


@numba.njit(cache=True)
def _feature(inp, prm, st, top):
    """Start the next feature of a frame that searches them one by one."""
    fi = st.fi[top]
    F = inp.rank.shape[0]
    while fi[I_FPOS] < F:
        j = st.ford[top, fi[I_FPOS]]
        if _prepare(inp, prm, st, top, j, fi[I_FPOS]) == 0:
            fi[I_FPOS] += 1
            continue
        fi[I_FEAT] = j
        fi[I_PHASE] = POP
        return
    _end(st, prm, top)


@numba.njit(cache=True)
def _record(st, prm, top, use_interval):
    """Record the evaluated index's bounds, update the zero indices, queue the rest of its interval (§5.4)."""
    fi, ff = st.fi[top], st.ff[top]
    k, lo, hi, a, b = fi[I_K], fi[I_LO], fi[I_HI], fi[I_A], fi[I_B]
    slot = _slot(prm, top, fi[I_FEAT], st.ord.shape[1])
    si = st.si[slot]
    st.recS[slot, k], st.recL[slot, k], st.recR[slot, k] = ff[F_TS], ff[F_TL], ff[F_TR]
    P, S = st.P[slot], st.S[slot]
    start, end = k + 1, k - 1
    if use_interval:
        if ff[F_ML] <= 0.0:
            si[SI_ZL] = max(si[SI_ZL], k)
        if ff[F_MR] <= 0.0:
            si[SI_ZR] = min(si[SI_ZR], k)
        start = max(start, si[SI_ZL] + 1)
        end = min(end, si[SI_ZR] - 1)
        # Every index within r of moved weight of k has C ≥ score(k) − W ≥ UB (Lemmas (M), (L)).
        r = ff[F_TS] - min(ff[F_U], ff[F_INC])
        if r > 0.0:
            first = _first_beyond(P, S, start, hi, P[S[k]], r)
            last = _last_before(P, S, lo, end, P[S[k]], r)
            st.cnt[C_NEIGHBOUR] += (first - start) + (end - last)
            start, end = first, last
    if start <= hi:
        _queue_push(st, slot, start, hi, k, b)
    if lo <= end:
        _queue_push(st, slot, lo, end, a, k)
    fi[I_PHASE] = POP


@numba.njit(cache=True)
def _pop(inp, prm, st, top, use_interval):
    """Take the next interval, prune or shrink it, and evaluate its middle index; return False when none is left."""
    fi, ff = st.fi[top], st.ff[top]
    cc, eps = prm.cc, prm.eps
    F = st.ord.shape[1]
    cap = st.q.shape[1]
    turns = prm.round_robin and top == 0
    while True:
        ub = min(ff[F_U], ff[F_INC])
        # Nothing beats cc (every split costs it) nor the node's proved lower bound.
        if ff[F_INC] <= cc + eps or ff[F_INC] <= ff[F_LBN] + eps:
            _end(st, prm, top)
            return
        if turns:
            # The best-ranked feature first, to the end (a good incumbent early); then the others in turns, so
            # that every one's lower bound rises. No interval left: the root is solved.
            j = -1
            first = st.ford[top, 0]
            if st.si[first, SI_QH] != st.si[first, SI_QT]:
                j = first
            for c in range(F if j < 0 else 0):
                g = st.ford[top, (fi[I_FPOS] + c) % F]
                if st.si[g, SI_QH] != st.si[g, SI_QT]:
                    j = g
                    fi[I_FPOS] = (fi[I_FPOS] + c + 1) % F
                    break
            if j < 0:
                _end(st, prm, top)
                return
            fi[I_FEAT] = j
        slot = _slot(prm, top, fi[I_FEAT], F)
        si = st.si[slot]
        P, S = st.P[slot], st.S[slot]
        if si[SI_QH] == si[SI_QT]:
            fi[I_FPOS] += 1
            fi[I_PHASE] = FEATURE
            return
        e = st.q[slot, si[SI_QH] % cap]
        lo, hi, a, b = np.int64(e[0]), np.int64(e[1]), np.int64(e[2]), np.int64(e[3])
        si[SI_QH] += 1
        if use_interval:
            lo = max(lo, si[SI_ZL] + 1)
            hi = min(hi, si[SI_ZR] - 1)
            if lo > hi:
                st.cnt[C_ZERO] += 1
                continue
            la = st.recL[slot, a] if a >= 0 else 0.0
            rb = st.recR[slot, b] if b >= 0 else 0.0
            if la + rb + cc >= ub - eps:  # sub-interval pruning (§5.3), by (M) on both sides
                st.cnt[C_SUBINTERVAL] += 1
                continue
            if a >= 0:  # interval shrinking (§5.5)
                r = st.recS[slot, a] - ub
                if r > 0.0:
                    lo = _first_beyond(P, S, lo, hi, P[S[a]], r)
            if b >= 0:
                r = st.recS[slot, b] - ub
                if r > 0.0:
                    hi = _last_before(P, S, lo, hi, P[S[b]], r)
            if lo > hi:
                st.cnt[C_NEIGHBOUR] += 1
                continue
            # Between two evaluated indices both lemmas bound every index (§5.8): shrink the ends it prunes.
            while lo <= hi and _between_bound(st, slot, lo, a, b) + cc >= ub - eps:
                lo += 1
            while lo <= hi and _between_bound(st, slot, hi, a, b) + cc >= ub - eps:
                hi -= 1
            if lo > hi:
                st.cnt[C_SUBINTERVAL] += 1
                continue
        k = (lo + hi) // 2
        if use_interval:
            # The middle if the bound allows it, else the unpruned index nearest to it (one exists: lo).
            d = 0
            while True:
                if k - d >= lo and _between_bound(st, slot, k - d, a, b) + cc < ub - eps:
                    k = k - d
                    break
                if k + d <= hi and _between_bound(st, slot, k + d, a, b) + cc < ub - eps:
                    k = k + d
                    break
                d += 1
        fi[I_K], fi[I_LO], fi[I_HI], fi[I_A], fi[I_B] = k, lo, hi, a, b
        st.cnt[C_EVALS] += 1
        if fi[I_DSEARCH] == 2 and prm.use_depth_two:
            _depth_two(inp, prm, st, top, ub)
            _record(st, prm, top, use_interval)
            return  # back to ``run``: it checks the budget and the pool between evaluations
        ds = fi[I_DSEARCH]
        ns = fi[I_NSEARCH]
        half = _full(ds - 1)
        fi[I_AL] = max(0, ns - 1 - half)
        fi[I_ALH] = min(ns - 1, half)
        ff[F_TS], ff[F_TL], ff[F_TR], ff[F_ML], ff[F_MR] = INF, INF, INF, -INF, -INF
        fi[I_PHASE] = ALLOC
        return


@numba.njit(cache=True)
def _between_bound(st, slot, i, a, b):
    """Lower bound on both children's optima at split index ``i`` from evaluated neighbours ``a < i < b`` (§5.8).

    ``L_i ⊆ L_b`` with the band between them moving: ``T(L_i) ≥ max(ℓL(a), ℓL(b) − W(i, b))`` by (M) and (L);
    symmetrically on the right.
    """
    P, S = st.P[slot], st.S[slot]
    left = right = 0.0
    if a >= 0:
        left = st.recL[slot, a]
        right = max(right, st.recR[slot, a] - (P[S[i]] - P[S[a]]))
    if b >= 0:
        right = max(right, st.recR[slot, b])
        left = max(left, st.recL[slot, b] - (P[S[b]] - P[S[i]]))
    return left + right


@numba.njit(cache=True)
def _depth_two(inp, prm, st, top, ub):
    """Evaluate split index k of a depth-two frame with the depth-two routine (exact children)."""
    fi, ff = st.fi[top], st.ff[top]
    j, k = fi[I_FEAT], fi[I_K]
    s = st.S[_slot(prm, top, j, inp.rank.shape[0]), k]
    st.cnt[C_WORK] += _children(inp, prm, st, top, fi[I_N], j, np.int64(s))
    st.cnt[C_D2] += 1
    dv = st.dv
    stump_l, leaf_l, stump_r, leaf_r = dv[0, 0], dv[0, 1], dv[1, 0], dv[1, 1]
    if fi[I_NSEARCH] >= 3:
        score = stump_l + stump_r
        left_stump = right_stump = True
        ff[F_ML], ff[F_MR] = stump_l, stump_r
    else:  # one branching node below: a stump on one side, a leaf on the other
        left_stump = stump_l + leaf_r <= leaf_l + stump_r
        right_stump = not left_stump
        score = min(stump_l + leaf_r, leaf_l + stump_r)
        ff[F_ML], ff[F_MR] = leaf_l, leaf_r
    score += prm.cc
    ff[F_TS], ff[F_TL], ff[F_TR] = score, stump_l, stump_r
    if score < ub - prm.eps:
        tl = _stump(st, st.di, 0) if left_stump else -(st.di[0, 4] + 1)
        tr = _stump(st, st.di, 1) if right_stump else -(st.di[1, 4] + 1)
        ff[F_INC] = score
        fi[I_INCT] = _node(st, j, st.srk[top, j, s], tl, tr)


@numba.njit(cache=True)
def _alloc(inp, prm, st, top):
    """Start the next node allocation of the evaluated index: split off and push its bigger child."""
    fi, ff = st.fi[top], st.ff[top]
    if fi[I_AL] > fi[I_ALH]:
        _record(st, prm, top, prm.use_interval and prm.min_leaf <= 1)
        return
    j, k = fi[I_FEAT], fi[I_K]
    s = st.S[_slot(prm, top, j, inp.rank.shape[0]), k]
    n = fi[I_N]
    big_left = s >= n - s
    fi[I_BIGLEFT] = 1 if big_left else 0
    nl = fi[I_AL]
    nr = fi[I_NSEARCH] - 1 - nl
    ub = min(ff[F_U], ff[F_INC])
    bound = min(ub + prm.unit, ff[F_INC]) - prm.cc if prm.use_upper_bound else INF
    m = split_into(inp.key1, inp.key2, st, top, j, s, big_left)
    fi[I_PHASE] = WAIT_BIG
    _push_child(st, top, m, fi[I_DSEARCH] - 1, nl if big_left else nr, bound)


@numba.njit(cache=True)
def _after_big(inp, prm, st, top, use_interval):
    """The bigger child returned: push the smaller one under what is left of the bound, plus h (§4.3)."""
    fi, ff = st.fi[top], st.ff[top]
    ff[F_VB] = st.reg[0]
    fi[I_OKB] = st.cnt[C_RET_OK]
    fi[I_TB] = st.cnt[C_RET_TREE]
    ub = min(ff[F_U], ff[F_INC])
    k, lo, hi = fi[I_K], fi[I_LO], fi[I_HI]
    slot = _slot(prm, top, fi[I_FEAT], inp.rank.shape[0])
    P, S = st.P[slot], st.S[slot]
    h = max(P[S[k]] - P[S[lo]], P[S[hi]] - P[S[k]]) if use_interval else 0.0
    bound = min(ub + prm.unit, ff[F_INC]) - ff[F_VB] - prm.cc + h if prm.use_upper_bound else INF
    ff[F_UBS] = bound
    if bound <= 0.0:
        # Nothing of cost ≥ 0 is below the bound: the smaller child's trivial lower bound 0 is enough.
        st.cnt[C_SKIPPED] += 1
        ff[F_VS], fi[I_OKS], fi[I_TS] = 0.0, 0, 0
        _alloc_done(inp, prm, st, top)
        return
    j, s = fi[I_FEAT], S[k]
    big_left = fi[I_BIGLEFT] == 1
    nl = fi[I_AL]
    nr = fi[I_NSEARCH] - 1 - nl
    m = split_into(inp.key1, inp.key2, st, top, j, s, not big_left)
    fi[I_PHASE] = WAIT_SMALL
    _push_child(st, top, m, fi[I_DSEARCH] - 1, nr if big_left else nl, bound)


@numba.njit(cache=True)
def _after_small(inp, prm, st, top):
    fi, ff = st.fi[top], st.ff[top]
    ff[F_VS] = st.reg[0]
    fi[I_OKS] = st.cnt[C_RET_OK]
    fi[I_TS] = st.cnt[C_RET_TREE]
    _alloc_done(inp, prm, st, top)


@numba.njit(cache=True)
def _alloc_done(inp, prm, st, top):
    """Combine both children of one allocation: bounds for the records, a new incumbent if better."""
    fi, ff = st.fi[top], st.ff[top]
    if fi[I_BIGLEFT] == 1:
        vl, okl, tl, vr, okr, tr = ff[F_VB], fi[I_OKB], fi[I_TB], ff[F_VS], fi[I_OKS], fi[I_TS]
    else:
        vl, okl, tl, vr, okr, tr = ff[F_VS], fi[I_OKS], fi[I_TS], ff[F_VB], fi[I_OKB], fi[I_TB]
    score = vl + vr + prm.cc
    ff[F_TS] = min(ff[F_TS], score)
    ff[F_TL] = min(ff[F_TL], vl)
    ff[F_TR] = min(ff[F_TR], vr)
    ff[F_ML] = max(ff[F_ML], vl)
    ff[F_MR] = max(ff[F_MR], vr)
    if okl == 1 and okr == 1 and score < min(ff[F_U], ff[F_INC]) - prm.eps:
        j, k = fi[I_FEAT], fi[I_K]
        ff[F_INC] = score
        fi[I_INCT] = _node(st, j, st.srk[top, j, st.S[_slot(prm, top, j, inp.rank.shape[0]), k]], tl, tr)
    fi[I_AL] += 1
    fi[I_PHASE] = ALLOC


@numba.njit(cache=True)
def run(inp, prm, st, budget):
    """Advance the search by about ``budget`` units of work (rows visited); return an outcome code.

    Parameters
    ----------
    inp : Inputs
    prm : Params
    st : State
        Resumed and updated in place.
    budget : int

    Returns
    -------
    outcome : int
        ``DONE`` (the root's value and tree are in ``st.reg[0]`` and ``st.cnt[C_RET_TREE]``),
        ``OUT_OF_BUDGET``, or ``NEEDS_POOL`` / ``NEEDS_CACHE`` / ``NEEDS_LEVELS`` (grow that part of the
        state and call again: nothing was changed).
    """
    cnt = st.cnt
    start_work = cnt[C_WORK]
    use_interval = prm.use_interval and prm.min_leaf <= 1
    while True:
        if cnt[C_ROOT_DONE] == 1:
            return DONE
        top = cnt[C_TOP]
        if cnt[C_WORK] - start_work >= budget:
            return OUT_OF_BUDGET
        if cnt[C_POOL] + 8 > st.pf.shape[0]:
            return NEEDS_POOL
        if 2 * (cnt[C_ENTRIES] + 2) > st.ck1.shape[0]:
            return NEEDS_CACHE
        # Only a frame of depth ≥ 3 pushes a child (depth two is solved in place, by the depth-two routine).
        if top + 2 > st.fi.shape[0] and st.fi[top, I_D] >= (3 if prm.use_depth_two else 2):
            return NEEDS_LEVELS
        phase = st.fi[top, I_PHASE]
        if phase == START:
            _start(inp, prm, st, top)
        elif phase == FEATURE:
            _feature(inp, prm, st, top)
        elif phase == POP:
            _pop(inp, prm, st, top, use_interval)
        elif phase == ALLOC:
            _alloc(inp, prm, st, top)
        elif phase == WAIT_BIG:
            _after_big(inp, prm, st, top, use_interval)
        elif phase == WAIT_SMALL:
            _after_small(inp, prm, st, top)
        elif phase == HIST:
            _hist_step(inp, prm, st, top)
        if cnt[C_TOP] < top and cnt[C_TOP] < 0:
            cnt[C_ROOT_DONE] = 1
            return DONE


@numba.njit(cache=True)
def leaf_of(cost, rows, lo, hi):
    """Return (cost, label) of the best leaf over ``rows[lo:hi]``."""
    L = cost.shape[1]
    sums = np.zeros(L)
    for p in range(lo, hi):
        r = rows[p]
        for l in range(L):
            sums[l] += cost[r, l]
    best, lab = sums[0], 0
    for l in range(1, L):
        if sums[l] < best:
            best, lab = sums[l], l
    return best, lab


@numba.njit(cache=True)
def unwind(inp, prm, st):
    """Return (value, tree id) of the best complete tree the stack holds now (the anytime answer, §7.1).

    Each open frame offers its incumbent, or the split it is evaluating with the best tree of the child
    above it on one side and the other side's solved tree (or its leaf). The root's is returned. Needs
    room for one pool node per open frame.
    """
    top = st.cnt[C_TOP]
    if st.cnt[C_ROOT_DONE] == 1:
        return st.reg[0], st.cnt[C_RET_TREE]
    cost = inp.cost
    child_v, child_t = INF, 0
    for lev in range(top, -1, -1):
        fi, ff = st.fi[lev], st.ff[lev]
        phase = fi[I_PHASE]
        n = fi[I_N]
        if phase == START:
            v, lab = leaf_of(cost, st.ord[lev, 0], ZERO, n)
            t = -(lab + 1)
        else:
            v, t = ff[F_INC], fi[I_INCT]
        if lev < top and (phase == WAIT_BIG or phase == WAIT_SMALL) and child_v < INF:
            j, k = fi[I_FEAT], fi[I_K]
            s = st.S[_slot(prm, lev, j, inp.rank.shape[0]), k]
            big_left = fi[I_BIGLEFT] == 1
            child_left = big_left if phase == WAIT_BIG else not big_left
            if phase == WAIT_SMALL and fi[I_OKB] == 1:
                other_v, other_t = ff[F_VB], fi[I_TB]
            elif child_left:
                other_v, lab = leaf_of(cost, st.ord[lev, j], np.int64(s), n)
                other_t = -(lab + 1)
            else:
                other_v, lab = leaf_of(cost, st.ord[lev, j], ZERO, np.int64(s))
                other_t = -(lab + 1)
            total = child_v + other_v + prm.cc
            if total < v - prm.eps:
                u = st.srk[lev, j, s]
                v = total
                t = _node(st, j, u, child_t, other_t) if child_left else _node(st, j, u, other_t, child_t)
        child_v, child_t = v, t
    return child_v, child_t


@numba.njit(cache=True)
def _interval_bound(st, slot, lo, hi, a, b, cc):
    """Return the least lower bound of the split indices ``lo … hi`` between evaluated ``a`` and ``b`` (§5.8)."""
    best = INF
    for i in range(lo, hi + 1):
        best = min(best, _between_bound(st, slot, i, a, b))
    return best + cc


@numba.njit(cache=True)
def root_lower_bound(prm, st, F):
    """Return a proved lower bound on the root's optimum (spec §7.2).

    Root candidates are the leaf (its incumbent is no worse), the splits of finished features (none below
    the incumbent), those still queued or under evaluation (the §5.8 bound of their interval), and those of
    features not started (only the trivial ``cc``). A root that searches its features in turns starts them
    all at once, so its bound rises from the start.
    """
    if st.cnt[C_ROOT_DONE] == 1:
        return st.reg[0]
    fi, ff = st.fi[0], st.ff[0]
    phase = fi[I_PHASE]
    if phase == START:
        return 0.0
    lb = ff[F_INC]
    if phase == FINISH:
        return lb
    cc = prm.cc
    if phase == HIST:  # root features not tried yet: only the trivial cc
        return max(min(lb, cc), 0.0) if fi[I_FPOS] < F else max(lb, 0.0)
    cap = st.q.shape[1]
    if prm.round_robin:
        features = st.ford[0]
    else:
        if fi[I_FPOS] < F - 1 or phase == FEATURE:
            lb = min(lb, cc)  # features not started yet
        if phase == FEATURE or fi[I_FPOS] >= F:
            return max(lb, 0.0)
        features = st.ford[0, fi[I_FPOS] : fi[I_FPOS] + 1]
    for j in features:
        slot = _slot(prm, 0, j, F)
        si = st.si[slot]
        for i in range(si[SI_QH], si[SI_QT]):
            e = st.q[slot, i % cap]
            lo, hi = max(np.int64(e[0]), si[SI_ZL] + 1), min(np.int64(e[1]), si[SI_ZR] - 1)
            if lo <= hi:
                lb = min(lb, _interval_bound(st, slot, lo, hi, np.int64(e[2]), np.int64(e[3]), cc))
    if phase != POP:  # the interval under evaluation
        slot = _slot(prm, 0, fi[I_FEAT], F)
        lb = min(lb, _interval_bound(st, slot, fi[I_LO], fi[I_HI], fi[I_A], fi[I_B], cc))
    return max(lb, 0.0)
