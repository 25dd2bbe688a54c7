"""The ROC convex hull of a tree from its leaves' class counts (pure numpy).

A tree whose leaves score rows by their positive share ``r = n⁺ / (n⁺ + n⁻)``
has, as its ROC curve, the polyline through the leaves sorted by decreasing
``r``: each leaf is one segment of slope ``(n⁺/N⁺) / (n⁻/N⁻)``, so the
polyline is concave and is the ROC convex hull (GOSDT spec §1.4, Eq. 2).
Leaves with equal ``r`` are collinear and may come in any order.

``auc_ch`` and ``pauc_ch`` are the areas the GOSDT rank objectives minimise
``1 −`` of; ``pauc_ch`` is the raw area over FPR ∈ [0, θ] (spec §1.4: no
normalisation, so a one-leaf tree has θ²/2). ``hull_area`` is the one kernel
that computes it: GOSDT's rank search calls it on every tree it bounds.
"""

from __future__ import annotations

import numba
import numpy as np


def leaf_order(pos, neg):
    """Return the leaf indices by decreasing positive share (stable; empty leaves last).

    Parameters
    ----------
    pos, neg : array of float64, shape (h,)
        Positive and negative (weighted) counts of each leaf.
    """
    pos, neg = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    total = pos + neg
    share = np.divide(pos, total, out=np.full(len(pos), -1.0), where=total > 0)
    return np.argsort(-share, kind="stable")


def hull_points(pos, neg):
    """Return the ROC convex hull vertices of leaves with these counts.

    Returns
    -------
    fpr, tpr : array of float64, shape (h + 1,)
        From (0, 0) to (1, 1); vertex ``k`` labels the first ``k`` leaves
        (in ``leaf_order``) positive.
    order : array of int64, shape (h,)
        ``order[k]`` is the leaf of the segment from vertex ``k`` to ``k + 1``.
    """
    pos, neg = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    P, N = pos.sum(), neg.sum()
    if P <= 0 or N <= 0:
        raise ValueError("the ROC curve needs both classes")
    order = leaf_order(pos, neg)
    tpr = np.concatenate([[0.0], np.cumsum(pos[order]) / P])
    fpr = np.concatenate([[0.0], np.cumsum(neg[order]) / N])
    tpr[-1] = fpr[-1] = 1.0
    return fpr, tpr, order


@numba.njit(cache=True)
def hull_area(up, un, count, limit):
    """Return the area (count units, N⁺·N⁻ = 1) under the ROC hull of units ``0..count-1`` up to ``limit`` negatives.

    Units are sorted by decreasing positive share; equal shares are collinear,
    so their order does not matter (spec §1.4).
    """
    share = np.empty(count)
    for i in range(count):
        t = up[i] + un[i]
        share[i] = up[i] / t if t > 0 else -1.0
    order = np.argsort(-share)
    x = 0.0
    y = 0.0
    area = 0.0
    for k in range(count):
        p, n = up[order[k]], un[order[k]]
        if x + n <= limit:
            area += n * (y + 0.5 * p)
            x += n
            y += p
        else:
            t = limit - x
            if t > 0:
                area += t * (y + p * t / (2.0 * n))
            break
    return area


def pauc_ch(pos, neg, theta=1.0):
    """Return the raw area under the ROC convex hull over FPR ∈ [0, θ].

    Computed in count units (negatives × positives) and divided once at the
    end, so that equal trees give bit-equal areas.
    """
    pos = np.ascontiguousarray(pos, dtype=np.float64)
    neg = np.ascontiguousarray(neg, dtype=np.float64)
    P, N = pos.sum(), neg.sum()
    if P <= 0 or N <= 0:
        raise ValueError("the ROC curve needs both classes")
    return hull_area(pos, neg, len(pos), theta * N) / (P * N)


def auc_ch(pos, neg):
    """Return the area under the ROC convex hull (Eq. 2 with the 2N⁺N⁻ denominator)."""
    return pauc_ch(pos, neg, 1.0)


def f1_loss(fp, fn, positives):
    """Return the F-loss 1 − F1 = (FP + FN) / (2N⁺ + FP − FN)."""
    return (fp + fn) / (2 * positives + fp - fn)


def omega_labels(pos, neg, omega=1.0):
    """Return each leaf's label by the spec's monotone rule: 0 iff ω·n⁺ ≤ n⁻ (Appendix D)."""
    return (omega * np.asarray(pos, dtype=np.float64) > np.asarray(neg, dtype=np.float64)).astype(np.int64)


def f1_tree_loss(pos, neg, omega=1.0):
    """Return the F-loss of leaves labelled by the ω rule."""
    pos, neg = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    label = omega_labels(pos, neg, omega)
    fp = float(neg[label == 1].sum())
    fn = float(pos[label == 0].sum())
    return f1_loss(fp, fn, float(pos.sum()))


def rank_loss(objective, pos, neg, omega=1.0, theta=1.0):
    """Return the loss (1 − metric) of leaves with these counts for ``f1``, ``auc`` or ``pauc``."""
    if objective == "f1":
        return f1_tree_loss(pos, neg, omega)
    if objective == "auc":
        return 1.0 - auc_ch(pos, neg)
    if objective == "pauc":
        return 1.0 - pauc_ch(pos, neg, theta)
    raise ValueError(f"no rank loss called {objective!r}")
