"""From a raw table and column roles to a binarized ``Problem``.

Binarization methods
--------------------
``exact``
    A threshold ``x ≤ t`` at every midpoint between adjacent distinct values
    of a numeric column (this keeps optimality relative to the raw data),
    one-hot ``col = v`` for text columns, 0/1 columns as they are.
``quantile:K``
    At most K thresholds per numeric column, at midpoints nearest the
    quantiles; approximate (gives up optimality relative to the raw data).
``none``
    Every feature column must already be 0/1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver import predicates
from solver.data.table import DataError, missing_mask
from solver.problem import Problem

MAX_CATEGORIES = 50


@dataclass(frozen=True)
class Roles:
    """Which raw column plays which part; ``features=None`` means every other column."""

    label: str | None = None
    features: tuple | None = None
    weight: str | None = None
    time: str | None = None
    event: str | None = None
    group: str | None = None
    treatment: str | None = None
    outcome: str | None = None
    positive_class: str | None = None
    ignore: tuple = field(default_factory=tuple)

    def role_columns(self):
        named = (self.label, self.weight, self.time, self.event, self.group, self.treatment, self.outcome)
        return [c for c in named if c]

    def feature_columns(self, table):
        if self.features is not None:
            return list(self.features)
        used = set(self.role_columns()) | set(self.ignore)
        return [c for c in table.names if c not in used]

    def to_dict(self):
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}

    @classmethod
    def from_dict(cls, d):
        d = dict(d or {})
        if d.get("features") is not None:
            d["features"] = tuple(d["features"])
        d["ignore"] = tuple(d.get("ignore") or ())
        return cls(**d)


def parse_method(method):
    """Return ``(name, k)`` for ``exact``, ``none`` or ``quantile:K``."""
    if method in ("exact", "none"):
        return method, None
    if method.startswith("quantile:"):
        try:
            k = int(method.split(":", 1)[1])
        except ValueError:
            k = 0
        if k >= 1:
            return "quantile", k
    raise DataError(f"Unknown binarization {method!r}; use exact, none or quantile:K (K ≥ 1).")


def exact_thresholds(values):
    """Return the midpoints between adjacent distinct present values, ascending."""
    distinct = np.unique(values[~np.isnan(values)])
    return (distinct[:-1] + distinct[1:]) / 2.0


def quantile_thresholds(values, k):
    """Return at most ``k`` midpoints nearest the ``i/(k+1)`` quantiles, ascending."""
    mids = exact_thresholds(values)
    if len(mids) <= k:
        return mids
    present = np.sort(values[~np.isnan(values)])
    targets = np.quantile(present, np.arange(1, k + 1) / (k + 1))
    picked = np.unique(mids[np.abs(mids[None, :] - targets[:, None]).argmin(axis=1)])
    return picked


def column_predicates(name, values, method, k=None):
    """Return the predicates that binarize one raw feature column."""
    miss = missing_mask(values)
    out = []
    if values.dtype.kind == "f":
        present = set(np.unique(values[~miss]).tolist())
        if present <= {0.0, 1.0}:
            out = [predicates.binary(name)] if len(present) == 2 else []
        elif method == "none":
            raise DataError(f"Column {name!r} is not 0/1; choose the exact or quantile binarization.")
        else:
            cuts = exact_thresholds(values) if method == "exact" else quantile_thresholds(values, k)
            out = [predicates.threshold(name, t) for t in cuts]
    else:
        if method == "none":
            raise DataError(f"Column {name!r} holds text; choose the exact binarization to one-hot encode it.")
        levels = sorted({str(v) for v in values[~miss]})
        if len(levels) > MAX_CATEGORIES:
            raise DataError(
                f"Column {name!r} has {len(levels)} distinct text values (at most {MAX_CATEGORIES}); "
                "exclude it or group its values."
            )
        if len(levels) == 2 and not miss.any():
            out = [predicates.equals(name, levels[1])]
        elif len(levels) >= 2:
            out = [predicates.equals(name, v) for v in levels]
    if miss.any() and out:
        out.append(predicates.missing(name))
    return out


def label_classes(values, positive_class=None):
    """Return ``(y, classes)``: class indices and their labels, positive class last for two classes."""
    miss = missing_mask(values)
    if miss.any():
        raise DataError(f"The label has {int(miss.sum())} missing values; remove those rows or choose another label.")
    text = np.array([predicates.as_text(v) for v in values], dtype=object)
    classes = sorted(set(text.tolist()), key=_class_sort_key)
    if positive_class is not None and len(classes) == 2:
        if positive_class not in classes:
            raise DataError(f"The positive class {positive_class!r} is not a value of the label.")
        classes = [c for c in classes if c != positive_class] + [positive_class]
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[v] for v in text], dtype=np.int64), classes


def _class_sort_key(c):
    try:
        return (0, float(c), c)
    except ValueError:
        return (1, 0.0, c)


def _numeric_role(table, name, role):
    values = table[name]
    if values.dtype.kind != "f":
        raise DataError(f"The {role} column {name!r} must hold numbers.")
    if np.isnan(values).any():
        raise DataError(f"The {role} column {name!r} has missing values.")
    return values


def make_problem(table, roles, method="exact"):
    """Binarize ``table`` under ``roles`` into a ``Problem``.

    Raises
    ------
    DataError
        With one plain sentence when a role column is missing or unusable.
    """
    method, k = parse_method(method)
    for name in roles.role_columns() + list(roles.features or ()):
        if name not in table:
            raise DataError(f"The data has no column named {name!r}.")
    fields = {"notes": []}
    if roles.label:
        fields["y"], fields["classes"] = label_classes(table[roles.label], roles.positive_class)
        fields["label_name"] = roles.label
    if roles.weight:
        weights = _numeric_role(table, roles.weight, "weight")
        if (weights < 0).any():
            raise DataError(f"The weight column {roles.weight!r} has negative values.")
        fields["sample_weight"] = weights
    if roles.time:
        fields["time"] = _numeric_role(table, roles.time, "time")
        fields["label_name"] = roles.time
    if roles.event:
        event = _numeric_role(table, roles.event, "event")
        if not set(np.unique(event).tolist()) <= {0.0, 1.0}:
            raise DataError(f"The event column {roles.event!r} must be 0 (censored) or 1 (event).")
        fields["event"] = event == 1
    if roles.group:
        group, _ = label_classes(table[roles.group])
        fields["group"] = group
    if roles.treatment:
        fields["treatment"], fields["treatments"] = label_classes(table[roles.treatment])
    if roles.outcome:
        fields["outcome"] = _numeric_role(table, roles.outcome, "outcome")
    features = []
    for name in roles.feature_columns(table):
        features += column_predicates(name, table[name], method, k)
    if not features:
        raise DataError("No usable feature columns remain (every feature column is constant or empty).")
    X = predicates.evaluate_all(features, table.columns)
    return Problem(X=X, features=features, **fields)
