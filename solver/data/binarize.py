"""From a raw table and column roles to a binarized ``Problem``.

Binarization methods
--------------------
``exact``
    A cut ``x ≤ t`` at every midpoint between adjacent distinct values of a
    numeric column. This keeps optimality relative to the raw data: any
    split of the raw column equals one of these features on the data.
``quantile:K``
    At most K of the exact cuts per numeric column, nearest the quantiles.
``gbdt`` / ``gbdt:N`` / ``gbdt:N:D``
    The cuts that a gradient-boosted model of N trees of depth D (default
    40 and 1) splits on ("threshold guessing"), snapped to exact cuts.
``none``
    Every feature column must already be 0/1.

Text columns are one-hot encoded (or ``x ≤ v`` for a declared order) under
every method but ``none``. The approximate methods keep a subset of the
exact cuts, so the best model they allow is never better than the best
model on the raw data; ``binarization_report`` measures how much the best
training accuracy that *any* model can reach drops.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver import predicates
from solver.data.encode import column_features
from solver.data.featurelist import FeatureList
from solver.data.ordered import from_table
from solver.data.roles import Roles
from solver.data.table import DataError, factorize, missing_mask, text_codes
from solver.problem import Problem

__all__ = ["Method", "Roles", "binarization_report", "label_classes", "make_problem", "parse_method"]

# Rows × binary features up to which a problem's 0/1 matrix is built at once (1 MB); a larger one is built on
# first use, which the ordered searches (numeric columns with many thresholds) never make.
EAGER_CELLS = 1 << 20


class Method(NamedTuple):
    """A parsed binarization method; ``cuts`` holds guessed cuts once computed."""

    name: str
    k: int | None = None
    n_estimators: int | None = None
    max_depth: int | None = None
    cuts: dict | None = None

    @property
    def text(self):
        if self.name == "quantile":
            return f"quantile:{self.k}"
        if self.name == "gbdt":
            return f"gbdt:{self.n_estimators}:{self.max_depth}"
        return self.name

    @property
    def exact(self):
        """True when the method keeps every cut of the raw data."""
        return self.name in ("exact", "none")


def parse_method(method):
    """Return the ``Method`` of ``exact``, ``none``, ``quantile:K`` or ``gbdt[:N[:D]]``."""
    text = str(method).strip()
    name, _, rest = text.partition(":")
    try:
        numbers = [int(x) for x in rest.split(":")] if rest else []
    except ValueError:
        numbers = [0]
    if name in ("exact", "none") and not rest:
        return Method(name)
    if name == "quantile" and len(numbers) == 1 and numbers[0] >= 1:
        return Method("quantile", k=numbers[0])
    if name == "gbdt" and len(numbers) <= 2 and all(n >= 1 for n in numbers):
        n_estimators, max_depth = (numbers + [40, 1][len(numbers) :])[:2]
        return Method("gbdt", n_estimators=n_estimators, max_depth=max_depth)
    raise DataError(f"Unknown binarization {text!r}; use exact, none, quantile:K or gbdt[:N[:D]] (K, N, D ≥ 1).")


def label_classes(values, positive_class=None, role="label"):
    """Return ``(y, classes)``: class indices and their labels, the positive class last for two classes."""
    text = _texts(values)
    classes = sorted(set(text.tolist()), key=_class_sort_key)
    if positive_class is not None and len(classes) == 2:
        if positive_class not in classes:
            raise DataError(f"The positive class {positive_class!r} is not a value of the {role}.")
        classes = [c for c in classes if c != positive_class] + [positive_class]
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[v] for v in text.tolist()], dtype=np.int64), classes


def _texts(values):
    # The text of each value, computed once per distinct value (labels repeat a few values many times).
    values = np.asarray(values)
    if values.dtype.kind in "fiub" and len(values):
        uniq, inverse = np.unique(values, return_inverse=True)
        return np.array([predicates.as_text(v) for v in uniq.tolist()], dtype=object)[inverse.reshape(-1)]
    codes, uniques = text_codes(values.astype(object))
    return np.array([predicates.as_text(v) for v in uniques] + [""], dtype=object)[codes]


def _class_sort_key(c):
    try:
        return (0, float(c), c)
    except ValueError:
        return (1, 0.0, c)


def _numbers(table, name, role):
    values = table[name]
    if values.dtype.kind != "f":
        raise DataError(f"The {role} column {name!r} must hold numbers.")
    return values


def event_indicator(values, column, event_value=None, strict=True):
    """Return True where ``values`` of the event column mean an event.

    Parameters
    ----------
    values : array of float64, shape (n,)
    event_value : tuple of str or None
        The values that mean an event (``Roles.event_value``); None: the column must be 0/1.
    strict : bool
        Refuse an event value that the column never holds (training data; test rows may lack it).

    Raises
    ------
    DataError
        Naming the remedy (the event value) when the coding is not 0/1 and no event value is given.
    """
    values = np.asarray(values, dtype=np.float64)
    present = [predicates.as_text(v) for v in np.unique(values).tolist()]
    if not event_value:
        if set(present) <= {"0", "1"}:
            return values == 1
        raise DataError(event_coding_error(column, present))
    unknown = [v for v in event_value if v not in present]
    if unknown and strict:
        raise DataError(f"The event value {unknown[0]} is not a value of the event column {column!r}.")
    return np.isin(values, [float(v) for v in event_value])


def event_coding_error(column, present):
    """Return the sentence refusing an event column that is not coded 0/1, with its remedy."""
    shown = ", ".join(present[:5]) + (", …" if len(present) > 5 else "")
    return (
        f"The event column {column!r} holds {shown}: it must be 0 (censored) or 1 (event), or say which value "
        "means an event — the event value on the dataset page, --event-value on the command line, event_value= "
        "in the estimators (R's survival package codes 1 = censored, 2 = event: give 2)."
    )


def rows_to_keep(table, roles, feature_names):
    """Return ``(keep, notes)``: rows that have every role value and every 'drop'-policy feature.

    Returns
    -------
    keep : array of bool, shape (n,)
    notes : list of str
        One sentence per column that removed rows, with the count.
    """
    keep = np.ones(table.n_rows, dtype=bool)
    notes = []
    droppers = [(c, "role") for c in roles.role_columns()]
    droppers += [(c, "policy") for c in feature_names if roles.policy(c) == "drop"]
    for name, why in droppers:
        miss = missing_mask(table[name])
        if miss.any():
            keep &= ~miss
            reason = "left out (missing-value policy: drop rows)" if why == "policy" else "left out"
            notes.append(f"{int(miss.sum()):,} rows without a value in {name!r} are {reason}.")
    if not keep.any():
        raise DataError("No rows are left once the rows with missing values are left out: " + " ".join(notes))
    if not keep.all():
        notes.append(f"{int(keep.sum()):,} of {table.n_rows:,} rows remain.")
    return keep, notes


def role_fields(table, roles):
    """Return the ``Problem`` fields of the role columns (label, weight, time, ...)."""
    out = {}
    if roles.label:
        out["y"], out["classes"] = label_classes(table[roles.label], roles.positive_class)
        out["label_name"] = roles.label
    if roles.weight:
        weights = _numbers(table, roles.weight, "weight")
        if (weights < 0).any() or not np.isfinite(weights).all():
            raise DataError(f"The weight column {roles.weight!r} has negative values.")
        if weights.sum() <= 0:
            raise DataError(f"The weight column {roles.weight!r} is zero everywhere.")
        out["sample_weight"] = weights
    if roles.time:
        out["time"] = _numbers(table, roles.time, "survival time")
        if (out["time"] < 0).any():
            raise DataError(f"The survival time column {roles.time!r} has negative values.")
        out.setdefault("label_name", roles.time)
    if roles.event:
        out["event"] = event_indicator(_numbers(table, roles.event, "event"), roles.event, roles.event_value)
    if roles.group:
        out["group"], groups = label_classes(table[roles.group], role="group")
        if len(groups) != 2:
            raise DataError(
                f"The protected group column {roles.group!r} must have exactly two values, not {len(groups)}."
            )
    if roles.treatment:
        out["treatment"], out["treatments"] = label_classes(table[roles.treatment], role="treatment")
    if roles.outcome:
        out["outcome"] = _numbers(table, roles.outcome, "outcome")
    return out


def make_problem(table, roles, method="exact"):
    """Binarize ``table`` under ``roles`` into a ``Problem``.

    Rows missing a role value, or a feature whose policy is ``drop``, are
    left out and counted in ``Problem.notes``; so are dropped columns.

    Raises
    ------
    DataError
        With one plain sentence when a role column is missing or unusable.
    """
    method = parse_method(method) if isinstance(method, str) else method
    roles.check(table.names)
    feature_names = roles.feature_columns(table.names)
    keep, notes = rows_to_keep(table, roles, feature_names)
    table = table if keep.all() else table.take(keep)
    fields = role_fields(table, roles)
    if method.name == "gbdt":
        method = _with_guessed_cuts(method, table, feature_names, fields)
    features, costs, runs = FeatureList(), [], []
    # Each numeric column sorted once: its distinct values, counts and each row's code (-1: missing) serve the
    # cuts, the ranks and the report alike.
    codes = {name: value_codes(table[name]) for name in feature_names if table[name].dtype.kind == "f"}
    for name in feature_names:
        histogram = codes[name][:2] if name in codes else None
        column, column_notes = column_features(name, table[name], method, roles, histogram)
        runs += column_runs(column, len(features))
        features.extend(column)
        costs += [float(roles.feature_cost.get(name, 1.0))] * len(column)
        notes += column_notes
    if not features:
        raise DataError("No usable feature columns remain (every feature column is constant or empty).")
    ordered = from_table(features, table.columns, runs, {name: (c[0], c[2]) for name, c in codes.items()})
    # The 0/1 matrix only when it is small; the ordered solvers never need it, the others build it on use.
    X = ordered.binary() if ordered.cells() <= EAGER_CELLS else None
    if roles.feature_cost:
        fields["feature_cost"] = np.array(costs)
    report = binarization_report(
        table, feature_names, ordered, fields.get("y"), fields.get("sample_weight"), method, codes
    )
    if report.get("note"):
        notes.append(report["note"])
    return Problem(X=X, features=features, notes=notes, binarization=report, ordered=ordered, **fields)


def column_runs(column, start):
    """Return the families (``solver.data.ordered``) of one column's features placed at ``start``.

    The encoder lists a numeric column's cuts ascending (then its missingness) and a declared order's
    values in order: each such list is one family; any other feature is a family of its own.
    """
    nested = 0
    if column and column[0]["kind"] in ("threshold", "ordinal"):
        nested = len(column) - (1 if column[-1]["kind"] == "missing" else 0)
    runs = [(start, start + nested)] if nested > 1 else [(start + j, start + j + 1) for j in range(nested)]
    return runs + [(start + j, start + j + 1) for j in range(nested, len(column))]


def _with_guessed_cuts(method, table, feature_names, fields):
    from solver.data.guess import guess_cuts

    if "y" not in fields:
        raise DataError("Threshold guessing needs a class label; use the exact or quantile binarization.")
    numeric = {name: table[name] for name in feature_names if table[name].dtype.kind == "f"}
    cuts = guess_cuts(numeric, fields["y"], fields.get("sample_weight"), method.n_estimators, method.max_depth)
    return method._replace(cuts=cuts)


def row_groups(columns, n):
    """Return a group index per row: rows share a group iff they agree on every column.

    Parameters
    ----------
    columns : iterable of array of int64, shape (n,)
        Codes of each column (any integers, -1 allowed).
    n : int

    Returns
    -------
    group : array of int64, shape (n,)
        Groups numbered in the lexicographic order of the rows' codes.
    """
    # The codes are combined as digits of one number, renumbered (one sort) only when it would overflow.
    group, size = np.zeros(n, dtype=np.int64), 1
    for codes in columns:
        codes = np.asarray(codes, dtype=np.int64)
        low = int(codes.min()) if n else 0
        width = int(codes.max()) - low + 1 if n else 1
        if size * width >= 1 << 62:
            group, size = _renumber(group)
            if size == n:  # every row apart already: no later column changes the groups or their order
                return group
        group = group * width + (codes - low)
        size *= width
    return _renumber(group)[0]


def _renumber(group):
    uniques, inverse = np.unique(group, return_inverse=True)
    return np.asarray(inverse, dtype=np.int64).reshape(-1), max(len(uniques), 1)


def best_accuracy(group, y, weights, n_classes):
    """Return the highest weighted training accuracy any classifier can reach.

    Rows of one ``group`` cannot be told apart; the best a model can do is
    predict each group's (weighted) majority class.

    Parameters
    ----------
    group : array of int64, shape (n,)
    y : array of int64, shape (n,)
    weights : array of float64, shape (n,)
    n_classes : int
    """
    groups = int(group.max()) + 1 if len(group) else 0
    mass = np.bincount(group * n_classes + y, weights=weights, minlength=groups * n_classes).reshape(groups, n_classes)
    return float(mass.max(axis=1).sum() / weights.sum())


def value_codes(values):
    """Return ``(uniq, counts, codes)`` of a float column: distinct present values ascending, their rows, and
    each row's index into them (-1 where missing), from one sort."""
    present = ~np.isnan(values)
    uniq, inverse, counts = np.unique(values[present], return_inverse=True, return_counts=True)
    codes = np.full(len(values), -1, dtype=np.int64)
    codes[present] = inverse.reshape(-1)
    return uniq, counts.astype(np.int64), codes


def binarization_report(table, feature_names, ordered, y, weights, method, codes=None):
    """Describe a binarization and, with a label, what it costs in reachable accuracy.

    ``ordered``: the features as ``OrderedColumns`` (rows agree on every binary feature iff they agree
    on every family's rank).

    Returns
    -------
    report : dict
        ``method``, ``exact`` (keeps every cut), ``n_features``; with a
        label also ``best_accuracy_raw`` (distinct raw feature rows) and
        ``best_accuracy`` (distinct binary rows), and a ``note`` sentence.
    """
    report = {
        "method": method.text,
        "exact": method.exact,
        "n_features": int(ordered.n_features),
        "n_ordered": int(len(ordered.size)),
    }
    if y is None or len(y) == 0:
        return report
    weights = np.ones(len(y)) if weights is None else weights
    n_classes = int(y.max()) + 1
    n = len(y)
    codes = codes or {}
    raw = row_groups((codes[name][2] if name in codes else factorize(table[name])[0] for name in feature_names), n)
    binary = row_groups(ordered.rank, n)
    report["best_accuracy_raw"] = best_accuracy(raw, y, weights, n_classes)
    report["best_accuracy"] = best_accuracy(binary, y, weights, n_classes)
    lost = report["best_accuracy_raw"] - report["best_accuracy"]
    if lost > 1e-12:
        report["note"] = (
            f"This binarization merges rows that the raw values tell apart: the best training accuracy any model "
            f"can reach falls from {report['best_accuracy_raw']:.2%} on the raw values to "
            f"{report['best_accuracy']:.2%} on these features."
        )
    elif not method.exact:
        report["note"] = (
            "This binarization keeps a subset of the exact thresholds; here it merges no rows that the raw "
            "values tell apart, but an optimal model on it is optimal only among models on these thresholds."
        )
    return report
