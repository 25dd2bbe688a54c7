"""Train/test splits and evaluating a model on rows it was not fitted on."""

from __future__ import annotations

import numpy as np

from solver import predicates
from solver.data.binarize import EAGER_CELLS, event_indicator, label_classes, rows_to_keep
from solver.data.ordered import from_table
from solver.data.table import DataError
from solver.problem import Problem


def _strata(labels, n):
    return np.zeros(n, dtype=np.int64) if labels is None else np.asarray(labels)


def holdout_rows(n, fraction, seed=0, labels=None):
    """Return ``(train, test)`` row indices: a stratified random ``fraction`` held out.

    Every class keeps at least one training row.
    """
    if not 0 < fraction < 1:
        raise DataError("The holdout fraction must be between 0 and 1.")
    strata = _strata(labels, n)
    rng = np.random.default_rng(seed)
    test = []
    for value in np.unique(strata):
        rows = rng.permutation(np.flatnonzero(strata == value))
        take = min(len(rows) - 1, int(round(fraction * len(rows))))
        test.append(rows[:take])
    test = np.sort(np.concatenate(test)) if test else np.zeros(0, dtype=np.int64)
    train = np.setdiff1d(np.arange(n), test)
    return train, test


def kfold_rows(n, k, fold, seed=0, labels=None):
    """Return ``(train, test)`` row indices of fold ``fold`` of a stratified ``k``-fold split."""
    if not 2 <= k <= n:
        raise DataError(f"Cross-validation needs between 2 and {n} folds, not {k}.")
    if not 0 <= fold < k:
        raise DataError(f"Fold {fold} does not exist in a {k}-fold split.")
    strata = _strata(labels, n)
    rng = np.random.default_rng(seed)
    assignment = np.empty(n, dtype=np.int64)
    offset = 0
    for value in np.unique(strata):
        rows = rng.permutation(np.flatnonzero(strata == value))
        assignment[rows] = (np.arange(len(rows)) + offset) % k
        offset += len(rows)
    test = np.flatnonzero(assignment == fold)
    return np.flatnonzero(assignment != fold), test


def problem_like(problem, table, roles, features=None):
    """Return the rows of a raw ``table`` as a ``Problem`` with ``problem``'s classes.

    The binary features are ``features`` (predicates; by default ``problem``'s), evaluated on the new rows
    with no new thresholds and kept as ranks (``solver.data.ordered``), the 0/1 matrix built only if read;
    to score a model, pass the features of its ``narrowed()`` copy. Labels map onto the training classes.
    """
    # The rows training would leave out (a missing label, a 'drop'-policy feature) cannot be scored either.
    keep, _ = rows_to_keep(table, roles, roles.feature_columns(table.names))
    table = table if keep.all() else table.take(keep)
    features = problem.features if features is None else features
    ordered = from_table(features, table.columns)
    fields = {}
    if roles.label:
        values = [predicates.as_text(v) for v in table[roles.label]]
        index = {c: i for i, c in enumerate(problem.classes)}
        unknown = sorted({v for v in values if v not in index})
        if unknown:
            raise DataError(f"The test data has label values the training data never had: {', '.join(unknown[:5])}.")
        fields["y"] = np.array([index[v] for v in values], dtype=np.int64)
        fields["classes"] = problem.classes
    for name in ("time", "outcome"):
        column = getattr(roles, name)
        if column:
            fields[name] = np.asarray(table[column], dtype=np.float64)
    if roles.event:
        fields["event"] = event_indicator(table[roles.event], roles.event, roles.event_value, strict=False)
    if roles.weight:
        fields["sample_weight"] = np.asarray(table[roles.weight], dtype=np.float64)
    if roles.group:
        fields["group"], _ = label_classes(table[roles.group])
    if roles.treatment:
        index = {c: i for i, c in enumerate(problem.treatments)}
        fields["treatment"] = np.array([index.get(predicates.as_text(v), -1) for v in table[roles.treatment]])
        fields["treatments"] = problem.treatments
    X = ordered.binary() if ordered.cells() <= EAGER_CELLS else None
    return Problem(X=X, features=features, label_name=problem.label_name, ordered=ordered, **fields)


def stratify_by(table, roles):
    """Return the labels (or events) a split stratifies by, as text; None without either."""
    column = roles.label or roles.event
    if not column:
        return None
    if column not in table:
        raise DataError(f"The data has no column named {column!r}.")
    return np.array([predicates.as_text(v) for v in table[column]], dtype=object)
