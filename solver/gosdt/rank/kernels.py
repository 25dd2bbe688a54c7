"""Numba kernels of GOSDT's tree-level search for F-score, AUC_ch and pAUC_ch: losses and bounds.

Arrays in, arrays out. A tree is given by its leaves' (weighted) positive and
negative counts ``lp``, ``ln``; the leaves of the popped entry's fixed part
come first (``n_old`` of them), then the leaves its last expansion made.
Objective codes: ``F1``, ``AUC``, ``PAUC``. Notation as in the spec:
``P = N⁺``, ``N = N⁻``, ω the F-score labelling weight, θ the largest FPR
of the partial AUC.
"""

from __future__ import annotations

import numba
import numpy as np

from solver.roc import hull_area

F1, AUC, PAUC = 0, 1, 2
KEPT, BY_HIERARCHICAL, BY_LOOKAHEAD, BY_EQUIVALENT, BY_LEAF_COUNT = -1, 0, 1, 2, 3


@numba.njit(cache=True)
def f1_loss(fp, fn, P):
    """F-loss (FP + FN) / (2N⁺ + FP − FN), non-decreasing in FP and in FN (spec §1.4)."""
    return (fp + fn) / (2.0 * P + fp - fn)


@numba.njit(cache=True)
def f1_errors(lp, ln, omega, skip):
    """Return (FP, FN) of the leaves not flagged in ``skip``, each labelled 0 iff ω·n⁺ ≤ n⁻ (Appendix D)."""
    fp = 0.0
    fn = 0.0
    for i in range(lp.shape[0]):
        if skip[i]:
            continue
        if omega * lp[i] > ln[i]:
            fp += ln[i]
        else:
            fn += lp[i]
    return fp, fn


@numba.njit(cache=True)
def tree_loss(kind, lp, ln, P, N, omega, theta):
    """Return the loss ℓ (1 − metric) of the tree with leaves ``lp``, ``ln``."""
    h = lp.shape[0]
    if kind == F1:
        fp, fn = f1_errors(lp, ln, omega, np.zeros(h, np.bool_))
        return f1_loss(fp, fn, P)
    limit = N if kind == AUC else theta * N
    return 1.0 - hull_area(lp, ln, h, limit) / (P * N)


@numba.njit(cache=True)
def _rank_bound(lp, ln, in_split, cls_start, cls_p, cls_n, slot, use_eq, P, N, limit, up, un):
    """Loss bound of the hull: fixed leaves as they are; each split leaf's positives on top and negatives at the
    bottom (Thm 2.1, Eq. 4 / §C.5), or, with ``use_eq``, its mixed equivalence classes as pseudo-leaves (Thm C.3)."""
    count = 0
    top = 0.0
    bottom = 0.0
    for i in range(lp.shape[0]):
        if not in_split[i]:
            up[count], un[count] = lp[i], ln[i]
            count += 1
        elif use_eq:
            s = slot[i]
            for c in range(cls_start[s], cls_start[s + 1]):
                if cls_p[c] > 0 and cls_n[c] > 0:
                    up[count], un[count] = cls_p[c], cls_n[c]
                    count += 1
                else:
                    top += cls_p[c]
                    bottom += cls_n[c]
        else:
            top += lp[i]
            bottom += ln[i]
    up[count], un[count] = top, 0.0
    up[count + 1], un[count + 1] = 0.0, bottom
    return 1.0 - hull_area(up, un, count + 2, limit) / (P * N)


@numba.njit(cache=True)
def _loss_bounds(
    kind, lp, ln, in_split, extra, cls_start, cls_p, cls_n, slot, P, N, omega, limit, use_hier, use_eq, up, un
):
    """Return the (hierarchical, equivalent points) loss bounds of the split set flagged in ``in_split``."""
    hier = 0.0
    equiv = 0.0
    if kind == F1:
        fp, fn = f1_errors(lp, ln, omega, in_split)
        if use_hier:
            hier = f1_loss(fp, fn, P)  # Theorem B.1: split leaves at best add no error
        if use_eq:
            equiv = f1_loss(fp + extra, fn, P)  # spec §2.8: the safe B.9, unavoidable errors as FP
    else:
        if use_hier:
            hier = _rank_bound(lp, ln, in_split, cls_start, cls_p, cls_n, slot, np.bool_(False), P, N, limit, up, un)
        if use_eq:
            equiv = _rank_bound(lp, ln, in_split, cls_start, cls_p, cls_n, slot, np.bool_(True), P, N, limit, up, un)
    return hier, equiv


@numba.njit(cache=True)
def entry_bounds(
    kind,
    lp,
    ln,
    split_idx,
    minority,
    cls_start,
    cls_p,
    cls_n,
    floor,
    incumbent,
    lam,
    P,
    N,
    omega,
    theta,
    use_hier,
    use_look,
    use_eq,
    out_bound,
    out_rule,
):
    """Bound every split set of a child tree; one entry per non-empty subset of its splittable leaves.

    Parameters
    ----------
    split_idx : array of int64, shape (k,)
        Leaves (positions in ``lp``) that may be split; subset ``mask`` splits
        ``split_idx[b]`` for each set bit ``b``.
    minority : array of float64, shape (k,)
        Σ over each splittable leaf's equivalence classes of min(n⁺, n⁻) (F1).
    cls_start : array of int64, shape (k + 1,); cls_p, cls_n : array of float64
        The equivalence classes of each splittable leaf (CSR).
    floor : float
        The popped entry's bound, valid for every descendant (keeps bounds monotone).
    out_bound : array of float64, shape (2**k,)
    out_rule : array of int64, shape (2**k,)
        ``KEPT`` or the first rule that drops the entry against ``incumbent``.
    """
    h = lp.shape[0]
    k = split_idx.shape[0]
    in_split = np.zeros(h, np.bool_)
    slot = np.full(h, -1, np.int64)
    for b in range(k):
        slot[split_idx[b]] = b
    up = np.empty(h + cls_p.shape[0] + 2)
    un = np.empty(h + cls_p.shape[0] + 2)
    limit = N if kind == AUC else theta * N
    base = lam * h
    step = lam if use_look else 0.0
    if k > 1:
        # Splitting more leaves never raises a loss bound (Lemma C.1; for F1 each leaf's errors ≥ its
        # minority), and every entry splits at least one leaf: if even that cannot beat the incumbent,
        # no split set can (Thms B.1, 2.2, C.3 with B.2).
        for b in range(k):
            in_split[split_idx[b]] = True
        hier, equiv = _loss_bounds(
            kind,
            lp,
            ln,
            in_split,
            minority.sum(),
            cls_start,
            cls_p,
            cls_n,
            slot,
            P,
            N,
            omega,
            limit,
            use_hier,
            use_eq,
            up,
            un,
        )
        least = base + max(hier, equiv) + step
        if least >= incumbent:
            out_bound[1:] = max(floor, least)
            out_rule[1:] = BY_LEAF_COUNT if base >= incumbent else BY_HIERARCHICAL
            return
    for mask in range(1, 1 << k):
        s = 0
        extra = 0.0
        for b in range(k):
            on = (mask >> b) & 1 == 1
            in_split[split_idx[b]] = on
            if on:
                s += 1
                extra += minority[b]
        hier, equiv = _loss_bounds(
            kind, lp, ln, in_split, extra, cls_start, cls_p, cls_n, slot, P, N, omega, limit, use_hier, use_eq, up, un
        )
        look = step * s
        bound = max(floor, base + max(hier, equiv) + look)
        out_bound[mask] = bound
        if base >= incumbent:
            out_rule[mask] = BY_LEAF_COUNT  # Theorem B.4: λH ≤ R for every tree, so H < R_c/λ
        elif base + hier >= incumbent:
            out_rule[mask] = BY_HIERARCHICAL  # Theorem B.1 / Theorems 2.1–2.2: b(d_fix) ≥ R_c
        elif base + hier + look >= incumbent:
            out_rule[mask] = BY_LOOKAHEAD  # Theorem B.2: each split leaf adds at least one more leaf
        elif bound >= incumbent:
            out_rule[mask] = BY_EQUIVALENT  # Theorem C.3 (AUC, pAUC) / safe B.9 (F1), with B.2
        else:
            out_rule[mask] = KEPT


@numba.njit(cache=True)
def terminal_bound(kind, lp, ln, open_p, open_n, P, N, omega, theta):
    """Return a loss bound for every tree that keeps leaves ``lp``, ``ln`` and refines a pool of (open_p, open_n).

    Thm B.1 / Thm 2.1 for the leaves still to choose a split for and the children that may be split
    again: at best their positives top the ROC curve and their negatives end it (F1: no errors).
    """
    if kind == F1:
        fp, fn = f1_errors(lp, ln, omega, np.zeros(lp.shape[0], np.bool_))
        return f1_loss(fp, fn, P)
    h = lp.shape[0]
    up = np.empty(h + 2)
    un = np.empty(h + 2)
    up[:h] = lp
    un[:h] = ln
    up[h], un[h] = open_p, 0.0
    up[h + 1], un[h + 1] = 0.0, open_n
    limit = N if kind == AUC else theta * N
    return 1.0 - hull_area(up, un, h + 2, limit) / (P * N)


@numba.njit(cache=True)
def prefix_losses(
    kind, kept_p, kept_n, open_p, open_n, rest_p, rest_n, p0, n0, done0, p1, n1, done1, P, N, omega, theta, look
):
    """Return, for each candidate split of the next leaf, a loss bound for every tree below the prefix it extends.

    The prefix keeps leaves ``kept`` (fixed, or chosen children that are never split again) and has
    chosen children ``open`` that may be split again; ``rest`` pools the leaves still to choose a
    split for. Candidate ``f`` adds children (p0, n0) and (p1, n1), kept when ``done``. A tree below
    either keeps every open child as a leaf (the rest at best ideal: Thms B.1, 2.1), or splits one
    of them again and has one more leaf: ``look`` = λ when the lookahead (B.2) is on.
    """
    m = p0.shape[0]
    h = kept_p.shape[0]
    o = open_p.shape[0]
    out = np.empty(m)
    lp = np.empty(h + o + 2)
    ln = np.empty(h + o + 2)
    lp[:h] = kept_p
    ln[:h] = kept_n
    op = open_p.sum()
    on = open_n.sum()
    for f in range(m):
        k = h
        ideal_p, ideal_n = rest_p + op, rest_n + on
        for side in range(2):
            p = p0[f] if side == 0 else p1[f]
            n = n0[f] if side == 0 else n1[f]
            done = done0[f] if side == 0 else done1[f]
            if done:
                lp[k], ln[k] = p, n
                k += 1
            else:
                ideal_p += p
                ideal_n += n
        ideal = terminal_bound(kind, lp[:k], ln[:k], ideal_p, ideal_n, P, N, omega, theta)
        if look == 0.0:
            out[f] = ideal
            continue
        j = k
        for i in range(o):
            lp[j], ln[j] = open_p[i], open_n[i]
            j += 1
        for side in range(2):
            done = done0[f] if side == 0 else done1[f]
            if not done:
                lp[j] = p0[f] if side == 0 else p1[f]
                ln[j] = n0[f] if side == 0 else n1[f]
                j += 1
        as_leaves = terminal_bound(kind, lp[:j], ln[:j], rest_p, rest_n, P, N, omega, theta)
        out[f] = min(as_leaves, ideal + look) if j > k else as_leaves
    return out


@numba.njit(cache=True)
def incremental_progress(kind, lp, ln, n_old, j, P, N, omega):
    """Return τ̄ for new leaf ``j``: the most that making it pure could gain in any tree the search can still reach.

    Theorem B.6 / C.2: if an optimal tree splits ``j``, merging that subtree
    back costs at least λ, and no split of ``j`` beats two pure leaves, so
    τ(T') ≥ λ for the tree T' with ``j`` a leaf. T' keeps the popped entry's
    fixed leaves (the first ``n_old``) and may refine the other new leaves.

    * AUC_ch (and pAUC_ch, whose gain is at most the AUC gain: the purified
      hull lies above pointwise): the gain is Σ_{w≠j} min(p_j n_w, n_j p_w)
      + p_j n_j / 2 over N⁺N⁻; min is superadditive, so refining other
      leaves never raises it: the maximum is on the current tree.
    * F1: with (X, Y) the other leaves' (FP, FN), the gain of removing
      ``j``'s FP decreases in X and Y, that of removing its FN decreases in
      X and increases in Y; X ≥ FP of the fixed leaves, Y ≤ FN of the fixed
      leaves + Σ over the other new leaves of min(n⁺, n⁻/ω).
    """
    h = lp.shape[0]
    pj, nj = lp[j], ln[j]
    if kind != F1:
        gain = 0.5 * pj * nj
        for w in range(h):
            if w != j:
                gain += min(pj * ln[w], nj * lp[w])
        return gain / (P * N)
    skip = np.zeros(h, np.bool_)
    skip[n_old:] = True
    x, y = f1_errors(lp, ln, omega, skip)
    if omega * pj > nj:
        return f1_loss(x + nj, y, P) - f1_loss(x, y, P)
    for w in range(n_old, h):
        if w != j:
            y += min(lp[w], ln[w] / omega)
    return f1_loss(x, y + pj, P) - f1_loss(x, y, P)
