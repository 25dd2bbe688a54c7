"""λ in the terms analysts think in: "at most L leaves" and "at least k rows per leaf".

Both conversions come from the papers' bounds, so they are guarantees about
the *optimal* model, not rules of thumb:

* at most L leaves (or L rules + default): an optimal model has
  ``λ·H ≤ R* ≤ R(one leaf) = ℓ₀ + λ``, so ``H ≤ ℓ₀/λ + 1`` (OSDT Theorem C.1,
  CORELS Theorem 4/Corollary 5, GOSDT Theorem B.4). ``λ = ℓ₀ / (L − 1)``
  therefore guarantees ``H ≤ L``.
* at least k rows: with ``λ = k/N``, every rule of an optimal rule list
  captures at least k rows (CORELS Theorem 10), and in an optimal tree any
  two sibling leaves together hold at least 2k rows (OSDT Theorem 3.3).

``ℓ₀`` is the loss of the one-leaf model under the run's own objective
(``single_leaf_loss``): the minority share for accuracy, 1 − 1/K for balanced
accuracy, min(W⁻, ωW⁺)/(ωW⁺ + W⁻) for weighted accuracy, N⁻/(2N⁺ + N⁻) or 1
for F1, ½ for AUC, 1 − θ²/2 for pAUC, and the integrated Brier score of one
Kaplan-Meier curve for every row for survival trees.
"""

from __future__ import annotations

import numpy as np

MODES = ("lambda", "max_leaves", "min_rows")


def single_leaf_loss(objective, class_weights=None, params=None, survival=None):
    """Return ℓ₀, the objective's loss of the best one-leaf model (None when the data to compute it is missing).

    Parameters
    ----------
    objective : str
        ``accuracy``, ``balanced_accuracy``, ``weighted_accuracy``, ``f1``,
        ``auc``, ``pauc`` or ``ibs`` (survival).
    class_weights : list of float, optional
        Total (weighted) rows of each class; the positive class last for two classes.
    params : dict, optional
        ``cost_weight`` (ω) and ``pauc_theta`` (θ) where the objective has them.
    survival : tuple of (array of bool, array of float64), shape (n,) each, optional
        ``(event, time)`` for ``ibs``; also reads ``ipcw_ties`` and ``time_normalizer`` from ``params``.
    """
    params = params or {}
    if objective == "ibs":
        if survival is None:
            return None
        from solver.survival import kaplan_meier
        from solver.survival_metrics import group_estimates, integrated_brier_score

        event, time = (np.asarray(survival[0], dtype=bool), np.asarray(survival[1], dtype=np.float64))
        if len(time) == 0:
            return None
        root = kaplan_meier(event, time)
        estimates = group_estimates([(root.time, root.survival)], np.unique(time))
        return float(
            integrated_brier_score(
                estimates,
                event,
                time,
                groups=np.zeros(len(time), dtype=np.int64),
                ties=params.get("ipcw_ties", "osst"),
                normalizer=params.get("time_normalizer", "range"),
            )
        )
    if objective == "auc":
        return 0.5
    if objective == "pauc":
        theta = float(params.get("pauc_theta", 1.0))
        return 1.0 - theta * theta / 2.0
    weights = [float(w) for w in (class_weights or [])]
    total = sum(weights)
    if total <= 0 or len(weights) < 2:
        return None
    if objective == "balanced_accuracy":
        return 1.0 - 1.0 / sum(1 for w in weights if w > 0)
    negative, positive = weights[0], weights[-1]
    omega = float(params.get("cost_weight", 1.0))
    if objective == "weighted_accuracy":
        return min(negative, omega * positive) / (omega * positive + negative)
    if objective == "f1":
        # The leaf predicts positive iff ω·N⁺ > N⁻ (GOSDT's rule); then FP = N⁻ and FN = 0, else F1 = 0.
        return negative / (2 * positive + negative) if omega * positive > negative else 1.0
    return 1.0 - max(weights) / total


DEFAULT_SHARE = 0.01  # a data-chosen λ: this share of ℓ₀, or ℓ₀ / N on tables of fewer than 1 / DEFAULT_SHARE rows


def scaled_default(loss0, n_rows, objective_words):
    """Return ``(λ, sentence)``: the default λ of a table, ``ℓ₀ · max(DEFAULT_SHARE, 1/N)``.

    Scaled to the single-leaf loss, a split pays when it removes more than that share of it (the fixed
    λ = 0.01 of the integrated Brier score was more than the best split gained on two of the three OSST
    tables); on a small table each leaf must also pay for one row's share.
    """
    share = max(DEFAULT_SHARE, 1.0 / max(1, n_rows))
    lam = float(loss0) * share
    rule = f"{share:.0%} of ℓ₀" if share == DEFAULT_SHARE else f"ℓ₀ / N (N = {n_rows:,} rows)"
    return lam, (
        f"λ = {lam:.4g}, chosen from the data: {rule}, where ℓ₀ = {loss0:.4g} is the {objective_words} of a single "
        "leaf; a split is kept when it lowers the loss by more than λ."
    )


MAX_SURVIVAL_SPLITS = 400  # features scored for a survival stump (each costs two Kaplan-Meier curves)


def _class_costs(objective, class_weights, params):
    """Return the cost of misclassifying one unit of weight of each class (GOSDT's additive losses), or None."""
    weights = np.asarray(class_weights, dtype=np.float64)
    total = weights.sum()
    if objective == "accuracy":
        return np.full(len(weights), 1.0 / total)
    if objective == "balanced_accuracy":
        present = (weights > 0).sum()
        return np.divide(1.0, present * weights, out=np.zeros(len(weights)), where=weights > 0)
    if objective == "weighted_accuracy" and len(weights) == 2:
        omega = float(params.get("cost_weight", 1.0))
        scale = omega * weights[1] + weights[0]
        return np.array([1.0 / scale, omega / scale])
    return None


GAIN_BLOCK = 512  # features per block of ``best_split_gain``


def best_split_gain(problem, objective, params=None):
    """Return how much the best single split lowers ``objective``'s loss below ℓ₀ (None where not computed).

    A tree with that split has objective ``ℓ₀ − gain + 2λ`` against ``ℓ₀ + λ``
    for the single leaf, so any λ below the gain makes an optimal tree split.
    Additive classification losses and the integrated Brier score are scored;
    for F1 and (p)AUC it returns None. Survival splits respect
    ``min_samples_leaf``.
    """
    params = params or {}
    if problem.n_features == 0 or problem.n_samples == 0:
        return None
    if objective == "ibs":
        return _best_survival_split_gain(problem, params)
    if problem.y is None:
        return None
    K = problem.n_classes
    class_weights = np.bincount(problem.y, weights=problem.weights, minlength=K)
    costs = _class_costs(objective, class_weights, params)
    if costs is None:
        return None
    # mass[k] of a leaf: its rows of class k, weighted by their cost; a leaf's loss is total − max_k mass[k].
    onehot = np.zeros((problem.n_samples, K))
    onehot[np.arange(problem.n_samples), problem.y] = problem.weights * costs[problem.y]
    total = onehot.sum(axis=0)
    loss0 = total.sum() - total.max()
    if problem.has_binary:
        X = problem.X
        ones = np.empty((X.shape[1], K))
        for start in range(0, X.shape[1], GAIN_BLOCK):  # in blocks: a float copy of all of X can take gigabytes
            ones[start : start + GAIN_BLOCK] = X[:, start : start + GAIN_BLOCK].T.astype(np.float64) @ onehot
        zeros = total - ones
        loss = (ones.sum(axis=1) - ones.max(axis=1)) + (zeros.sum(axis=1) - zeros.max(axis=1))
        return max(0.0, float(loss0 - loss.min()))
    # Raw numeric columns kept as ranks (no 0/1 matrix): sweep each column's thresholds in its sorted order.
    best = loss0
    for rank in problem.ordered_columns().rank:
        order = np.argsort(rank, kind="stable")
        below = np.cumsum(onehot[order], axis=0)[:-1]
        cuts = np.flatnonzero(rank[order][1:] != rank[order][:-1])  # a threshold between rows i and i + 1
        if len(cuts) == 0:
            continue
        below = below[cuts]
        above = total - below
        loss = (below.sum(axis=1) - below.max(axis=1)) + (above.sum(axis=1) - above.max(axis=1))
        best = min(best, float(loss.min()))
    return max(0.0, float(loss0 - best))


def _best_survival_split_gain(problem, params):
    from solver.survival import kaplan_meier
    from solver.survival_metrics import group_estimates, integrated_brier_score

    event, time = problem.event, problem.time
    if event is None or time is None:
        return None
    grid = np.unique(time)
    conventions = {"ties": params.get("ipcw_ties", "osst"), "normalizer": params.get("time_normalizer", "range")}
    loss0 = single_leaf_loss("ibs", params=params, survival=(event, time))
    smallest = int(params.get("min_samples_leaf") or 1)
    best = None
    for j in range(min(problem.n_features, MAX_SURVIVAL_SPLITS)):
        side = problem.column(j).astype(np.int64)
        ones = int(side.sum())
        if ones < smallest or problem.n_samples - ones < smallest:
            continue
        curves = [kaplan_meier(event[side == g], time[side == g]) for g in (0, 1)]
        estimates = group_estimates([(c.time, c.survival) for c in curves], grid)
        loss = integrated_brier_score(estimates, event, time, groups=side, **conventions)
        best = loss if best is None else min(best, loss)
    return None if best is None or loss0 is None else max(0.0, float(loss0 - best))


def regularization_for(mode, target, n_rows, loss0):
    """Return ``(λ, explanation)`` for "at most ``target`` leaves" or "at least ``target`` rows".

    Raises
    ------
    ValueError
        With a plain sentence when the target cannot be met.
    """
    if mode == "max_leaves":
        if target < 2:
            raise ValueError("At most 1 leaf is a single prediction; ask for at least 2 leaves.")
        lam = loss0 / (target - 1)
        return lam, (
            f"λ = ℓ₀ / (L − 1) = {loss0:.6g} / {target - 1} = {lam:.6g}: an optimal model then has at most "
            f"{target} leaves (λ·H ≤ R* ≤ ℓ₀ + λ); often far fewer."
        )
    if mode == "min_rows":
        if not 1 <= target <= n_rows:
            raise ValueError(f"At least {target} rows per leaf is impossible with {n_rows} rows.")
        lam = target / n_rows
        return lam, (
            f"λ = k / N = {target} / {n_rows} = {lam:.6g}: every rule of an optimal rule list captures at "
            f"least {target} rows, and any two sibling leaves of an optimal tree hold at least "
            f"{2 * target} rows together."
        )
    raise ValueError(f"unknown mode {mode!r}")
