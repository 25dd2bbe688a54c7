"""Threshold guessing: the cuts a gradient-boosted reference model uses.

McTavish et al. (AAAI 2022, "Fast Sparse Decision Tree Optimization via
Reference Ensembles") binarize numeric columns with only the thresholds
that a boosted ensemble of small trees splits on; the ``gosdt`` package
ships this as ``ThresholdGuessBinarizer``. Here the boosted model is
scikit-learn's ``GradientBoostingClassifier`` (imported lazily, so that
``solver.data`` stays importable without it), and every threshold is snapped
to the exact midpoint that splits the training values the same way. The
guessed cuts are therefore a subset of the exact ones: the best tree over
them can be worse than the best tree over the raw data, never better.
"""

from __future__ import annotations

import numpy as np

from solver.data import thresholds
from solver.data.table import DataError

DEFAULT_ESTIMATORS = 40
DEFAULT_DEPTH = 1


def guess_cuts(columns, y, weights=None, n_estimators=DEFAULT_ESTIMATORS, max_depth=DEFAULT_DEPTH, seed=0):
    """Return the cuts of every numeric column that a boosted model splits on.

    Parameters
    ----------
    columns : dict of str to array of float64, shape (n,)
        The numeric feature columns (NaN = missing; the model sees missing
        values as the column's median).
    y : array of int64, shape (n,)
        Class index of every row.
    weights : array of float64, shape (n,), optional
    n_estimators : int
        Boosting rounds.
    max_depth : int
        Depth of each boosted tree.
    seed : int

    Returns
    -------
    cuts : dict of str to array of float64
        Ascending exact midpoints per column (empty if the model never split on it).
    """
    from sklearn.ensemble import GradientBoostingClassifier

    names = list(columns)
    if not names:
        return {}
    if len(np.unique(y)) < 2:
        raise DataError("Threshold guessing needs a label with at least two classes.")
    X = np.column_stack([_filled(columns[name]) for name in names])
    model = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=max_depth, random_state=seed)
    model.fit(X, y, sample_weight=weights)
    used = {j: [] for j in range(len(names))}
    for tree in model.estimators_.ravel():
        inner = tree.tree_.feature >= 0
        for j, t in zip(tree.tree_.feature[inner], tree.tree_.threshold[inner]):
            used[int(j)].append(float(t))
    out = {}
    for j, name in enumerate(names):
        uniq, _ = thresholds.histogram(columns[name])
        # scikit-learn's trees compare float32 copies of the values against the threshold.
        seen = uniq.astype(np.float32).astype(np.float64)
        out[name] = thresholds.snap_to_exact(uniq, np.array(used[j]), seen)
    return out


def _filled(values):
    values = np.asarray(values, dtype=np.float64)
    missing = np.isnan(values)
    if not missing.any():
        return values
    fill = np.median(values[~missing]) if (~missing).any() else 0.0
    return np.where(missing, fill, values)
