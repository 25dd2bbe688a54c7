"""Survival metrics of curve predictions on any data (OSST paper, Appendix C).

The IPCW integrated Brier score (Eqs. 1-2) on the unique evaluation times,
the IBS ratio (Eq. 14), and the concordance indices of Harrell (Eq. 43) and
Uno (Eq. 44) with curves read at the earlier time of each pair. Ĝ comes from
the training sample, so every function takes held-out data as well;
``tree_metrics`` scores a survival ``Tree`` with them.
"""

from __future__ import annotations

import numba
import numpy as np

from solver.survival import censoring_survival, inverse, kaplan_meier, normalizer_value, step_values


def group_estimates(curves, grid):
    """Evaluate step curves on a grid.

    Parameters
    ----------
    curves : list of (array, array)
        ``(time, survival)`` of each curve.
    grid : array of float64, shape (E,)

    Returns
    -------
    estimates : array of float64, shape (len(curves), E)
    """
    return np.array([step_values(t, s, grid) for t, s in curves]).reshape(len(curves), len(grid))


def _rows(estimates, groups, n):
    estimates = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    groups = np.arange(n) if groups is None else np.asarray(groups, dtype=np.int64)
    if len(groups) != n:
        raise ValueError(f"groups has {len(groups)} entries for {n} samples")
    return estimates, groups


def brier_scores(estimates, event, time, *, groups=None, train_event=None, train_time=None, ties="osst"):
    """Return the IPCW Brier score BS(T_k) (Eq. 2) at every unique evaluation time.

    Parameters
    ----------
    estimates : array of float64, shape (n, E) or (H, E)
        Predicted Ŝ at the unique evaluation times, per sample or per group.
    event : array of bool, shape (n,)
    time : array of float64, shape (n,)
    groups : array of int64, shape (n,), optional
        Row of ``estimates`` of each sample (e.g. its leaf); identity if omitted.
    train_event, train_time : arrays, shape (n_train,), optional
        The sample that defines Ĝ (the evaluation sample when omitted).
    ties : str
        See ``solver.survival``.

    Returns
    -------
    grid : array of float64, shape (E,)
    scores : array of float64, shape (E,)
    """
    event = np.asarray(event, dtype=bool)
    time = np.asarray(time, dtype=np.float64)
    grid, kappa = np.unique(time, return_inverse=True)
    estimates, groups = _rows(estimates, groups, len(time))
    if estimates.shape[1] != len(grid):
        raise ValueError(f"estimates have {estimates.shape[1]} columns for {len(grid)} unique times")
    train_event = event if train_event is None else np.asarray(train_event, dtype=bool)
    train_time = time if train_time is None else np.asarray(train_time, dtype=np.float64)
    inv_grid = inverse(censoring_survival(train_event, train_time, grid, ties))
    H, E = estimates.shape
    # Per group: IPCW mass of deaths at each grid time, and samples observed at each grid time.
    deaths = np.zeros((H, E))
    np.add.at(deaths, (groups[event], kappa[event]), inv_grid[kappa[event]])
    seen = np.zeros((H, E))
    np.add.at(seen, (groups, kappa), 1.0)
    cases = deaths.cumsum(axis=1)
    controls = seen[:, ::-1].cumsum(axis=1)[:, ::-1] - seen  # #{y > T_k}
    S = estimates
    scores = (S**2 * cases + (1 - S) ** 2 * controls * inv_grid[None, :]).sum(axis=0) / len(time)
    return grid, scores


def integrated_brier_score(
    estimates, event, time, *, groups=None, train_event=None, train_time=None, ties="osst", normalizer="range"
):
    """Return the IPCW integrated Brier score of curve predictions (Eqs. 1-2).

    The grid is the unique evaluation times; the integral is the exact left
    Riemann sum of BS over it (spec §1.6), divided by ``Z`` of that grid.
    Ĝ comes from the training sample (the evaluation sample when omitted).
    Parameters as ``brier_scores``, plus ``normalizer`` (see ``solver.survival``).
    """
    grid, scores = brier_scores(
        estimates, event, time, groups=groups, train_event=train_event, train_time=train_time, ties=ties
    )
    if len(grid) < 2:
        return 0.0
    return float((scores[:-1] * np.diff(grid)).sum()) / normalizer_value(grid, normalizer)


def ibs_ratio(ibs, root_ibs):
    """Return ``1 - IBS / IBS(root KM)`` (Eq. 14), or None when the root IBS is 0 (spec D5)."""
    return None if root_ibs <= 0 else float(1.0 - ibs / root_ibs)


@numba.njit(cache=True)
def _concordance(est, groups, kappa, event, weight, tol):
    # Pairs (i, j) with i a death and y_i < y_j; est[groups[j], kappa[i]] > est[groups[i], kappa[i]] is concordant.
    H, E = est.shape
    order = np.argsort(kappa)[::-1]
    later = np.zeros(H)  # per group: samples with time > the current time
    num = 0.0
    den = 0.0
    r = 0
    n = kappa.shape[0]
    while r < n:
        k = kappa[order[r]]
        start = r
        while r < n and kappa[order[r]] == k:
            r += 1
        for q in range(start, r):
            i = order[q]
            if event[i] == 0 or weight[i] == 0:
                continue
            mine = est[groups[i], k]
            for h in range(H):
                if later[h] > 0:
                    diff = est[h, k] - mine
                    credit = 0.5 if abs(diff) <= tol else (1.0 if diff > 0 else 0.0)
                    num += weight[i] * later[h] * credit
                    den += weight[i] * later[h]
        for q in range(start, r):
            later[groups[order[q]]] += 1
    return num, den


def concordance_index(
    estimates, event, time, *, groups=None, ipcw=False, train_event=None, train_time=None, ties="osst", tol=1e-8
):
    """Return Harrell's C (Eq. 43) or, with ``ipcw``, Uno's C (Eq. 44) of curve predictions.

    A pair ``(i, j)`` is comparable when ``i`` died and ``y_i < y_j``; both
    curves are read at ``y_i``; the pair is concordant when ``Ŝ_i(y_i) <
    Ŝ_j(y_i)`` and counts ½ when the two are within ``tol``. Uno's C weights
    each pair by ``1/Ĝ(y_i)²`` (Ĝ from the training sample), with no
    truncation time, as the paper does.

    Parameters
    ----------
    estimates : array of float64, shape (n, E) or (H, E)
        Predicted Ŝ at the unique evaluation times.
    event, time : arrays, shape (n,)
    groups : array of int64, shape (n,), optional

    Returns
    -------
    float or None
        None when no pair is comparable.
    """
    event = np.asarray(event, dtype=bool)
    time = np.asarray(time, dtype=np.float64)
    grid, kappa = np.unique(time, return_inverse=True)
    estimates, groups = _rows(estimates, groups, len(time))
    weight = np.ones(len(time))
    if ipcw:
        train_event = event if train_event is None else np.asarray(train_event, dtype=bool)
        train_time = time if train_time is None else np.asarray(train_time, dtype=np.float64)
        weight = inverse(censoring_survival(train_event, train_time, time, ties)) ** 2
    num, den = _concordance(
        np.ascontiguousarray(estimates), groups, kappa.astype(np.int64), event.astype(np.int64), weight, tol
    )
    return None if den == 0 else float(num / den)


def leaf_estimates(model, X, grid):
    """Return each leaf's curve on ``grid`` and the row of every sample of ``X`` in it.

    Returns
    -------
    estimates : array of float64, shape (n_leaves, len(grid))
    groups : array of int64, shape (n,)
    """
    leaves = sorted(model.curves)
    row_of_leaf = np.full(model.n_nodes, -1, dtype=np.int64)
    row_of_leaf[leaves] = np.arange(len(leaves))
    curves = [(model.curves[k]["time"], model.curves[k]["survival"]) for k in leaves]
    return group_estimates(curves, grid), row_of_leaf[model.apply(X)]


def tree_metrics(model, X, event, time, *, train_event=None, train_time=None, ties="osst", normalizer="range"):
    """Return IBS, IBS ratio, Harrell's C and Uno's C of a survival ``Tree`` on any data.

    Parameters
    ----------
    model : solver.models.Tree
        With ``kind == "survival"`` and a KM curve per leaf in ``curves``.
    X : array of uint8, shape (n, n_features), a ``Problem`` or a raw table
        The evaluation rows, as ``Tree.apply`` reads them.
    event : array of bool, shape (n,)
    time : array of float64, shape (n,)
    train_event, train_time : arrays, shape (n_train,), optional
        The training sample: Ĝ and the root KM curve of the IBS ratio come
        from it (from the evaluation rows when omitted).
    ties, normalizer : str
        Conventions of ``solver.survival``.

    Returns
    -------
    dict
        ``n_samples``, ``events``, ``ibs``, ``root_ibs``, ``ibs_ratio``
        (None when the root IBS is 0), ``harrell_c``, ``uno_c`` (None
        without comparable pairs) and the conventions used.
    """
    event = np.asarray(event, dtype=bool)
    time = np.asarray(time, dtype=np.float64)
    train_event = event if train_event is None else np.asarray(train_event, dtype=bool)
    train_time = time if train_time is None else np.asarray(train_time, dtype=np.float64)
    grid = np.unique(time)
    estimates, groups = leaf_estimates(model, X, grid)
    root = kaplan_meier(train_event, train_time)
    root_estimates = group_estimates([(root.time, root.survival)], grid)
    weights = {"train_event": train_event, "train_time": train_time, "ties": ties}
    ibs = integrated_brier_score(estimates, event, time, groups=groups, normalizer=normalizer, **weights)
    root_ibs = integrated_brier_score(
        root_estimates, event, time, groups=np.zeros(len(time), dtype=np.int64), normalizer=normalizer, **weights
    )
    return {
        "n_samples": int(len(time)),
        "events": int(event.sum()),
        "ibs": ibs,
        "root_ibs": root_ibs,
        "ibs_ratio": ibs_ratio(ibs, root_ibs),
        "harrell_c": concordance_index(estimates, event, time, groups=groups),
        "uno_c": concordance_index(estimates, event, time, groups=groups, ipcw=True, **weights),
        "ipcw_ties": ties,
        "time_normalizer": normalizer,
    }
