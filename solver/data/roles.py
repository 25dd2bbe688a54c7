"""Column roles: which raw column plays which part, and the per-column choices of the user."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from solver import predicates
from solver.data.table import DataError
from solver.roles import ROLE_NAMES

MISSING_POLICIES = ("feature", "drop")
MAX_CATEGORIES = 50
# A text column with more than ``max_categories`` values keeps, by default, only the values on at least this
# share of its rows ("frequent"), at most ``max_categories``; "top" keeps its ``max_categories`` most frequent.
LEVEL_POLICIES = ("frequent", "top")
MIN_LEVEL_SHARE = 0.01


@dataclass(frozen=True)
class Roles:
    """Which raw column plays which part; ``features=None`` means every other column.

    Attributes
    ----------
    label, weight, time, event, group, treatment, outcome : str or None
        Column names of the roles (``time`` + ``event`` for survival trees,
        ``group`` for fairness constraints, ``treatment`` + ``outcome`` for
        policy trees, ``weight`` for sample weights).
    features : tuple of str or None
    positive_class : str or None
        Label value counted as positive (two classes).
    event_value : tuple of str or None
        Values of the event column that mean an event (every other value is
        censored), for tables coded as R's ``survival`` package does (1 =
        censored, 2 = event; or 0/1/2). None: the column must be 0/1.
    ignore : tuple of str
        Columns left out of the features.
    missing : dict of str to str
        Missing-value policy of a feature column: ``feature`` (missingness
        is a binary feature of its own; the default) or ``drop`` (rows
        missing it are left out, and counted in the problem's notes). Rows
        missing a role column are always left out and counted.
    feature_cost : dict of str to float
        Cost of testing a raw column; every binary feature derived from it
        carries it. Columns not listed cost 1 once any cost is given.
    ordered : dict of str to list of str
        Declared order of an ordered categorical column, lowest first: it
        is binarized as ``col ≤ v`` instead of one-hot.
    max_categories : int
        Most values of a categorical column that get a feature each; the
        rarer ones are grouped as "other".
    levels : dict of str to str
        How a text column with more than ``max_categories`` values is kept
        (``kept_levels``): ``frequent`` (the default: the values on at least
        ``MIN_LEVEL_SHARE`` of its rows) or ``top`` (its most frequent).
    """

    label: str | None = None
    features: tuple | None = None
    weight: str | None = None
    time: str | None = None
    event: str | None = None
    group: str | None = None
    treatment: str | None = None
    outcome: str | None = None
    positive_class: str | None = None
    event_value: tuple | None = None
    ignore: tuple = ()
    missing: dict = field(default_factory=dict)
    feature_cost: dict = field(default_factory=dict)
    ordered: dict = field(default_factory=dict)
    max_categories: int = MAX_CATEGORIES
    levels: dict = field(default_factory=dict)

    def role_columns(self):
        """Return the columns that play a role other than feature."""
        return [c for c in (getattr(self, name) for name in ROLE_NAMES) if c]

    def feature_columns(self, names):
        """Return the feature columns among the table's column ``names``."""
        if self.features is not None:
            return list(self.features)
        used = set(self.role_columns()) | set(self.ignore)
        return [c for c in names if c not in used]

    def policy(self, column):
        """Return the missing-value policy of a feature column."""
        return self.missing.get(column, "feature")

    def kept_levels(self, column, counts, present, distinct=None):
        """Return ``(kept, note)``: the values of a text column that get a feature each, and a sentence or None.

        Parameters
        ----------
        counts : dict of str to int
            Rows per value: every value, or at least the ``max_categories`` most frequent.
        present : int
            Rows with a value.
        distinct : int, optional
            Number of distinct values, when ``counts`` lists only some.
        """
        ranked = sorted(counts.items(), key=lambda vc: (-vc[1], vc[0]))
        distinct = len(ranked) if distinct is None else distinct
        k = int(self.max_categories)
        if distinct <= k:
            return [v for v, _ in ranked], None
        if self.levels.get(column, "frequent") == "top":
            kept = [v for v, _ in ranked[:k]]
            rule = f"its {k} most frequent values are kept"
        else:
            least = MIN_LEVEL_SHARE * present
            kept = [v for v, c in ranked[:k] if c >= least]
            rule = f"the {len(kept):,} on at least {MIN_LEVEL_SHARE:.0%} of its rows are kept"
            if not kept:
                return [], (
                    f"Column {column!r} has {distinct:,} distinct values and none is on {MIN_LEVEL_SHARE:.0%} "
                    f"of its rows, so it is left out; keep its {k} most frequent values on the dataset page to use it."
                )
        return kept, f"Column {column!r} has many distinct values: {rule} and the rest are grouped as 'other'."

    def check(self, names):
        """Raise ``DataError`` unless every named column exists and every choice is valid."""
        named = self.role_columns() + list(self.features or ()) + list(self.missing) + list(self.feature_cost)
        named += list(self.levels)
        for name in named + list(self.ordered):
            if name not in names:
                raise DataError(f"The data has no column named {name!r}.")
        roles = self.role_columns()
        if len(roles) != len(set(roles)):
            raise DataError("One column cannot play two roles.")
        overlap = set(roles) & set(self.features or ())
        if overlap:
            raise DataError(f"Column {sorted(overlap)[0]!r} cannot be both a feature and a role column.")
        for column, policy in self.missing.items():
            if policy not in MISSING_POLICIES:
                raise DataError(f"The missing-value policy of {column!r} must be 'feature' or 'drop', not {policy!r}.")
        for column, cost in self.feature_cost.items():
            if not (isinstance(cost, (int, float)) and math.isfinite(cost) and cost >= 0):
                raise DataError(f"The cost of column {column!r} must be a number ≥ 0, not {cost!r}.")
        for column, order in self.ordered.items():
            if len(order) < 2 or len(set(order)) != len(order):
                raise DataError(f"The declared order of {column!r} needs at least two different values.")
        if int(self.max_categories) < 1:
            raise DataError("The most categories per column must be at least 1.")
        for column, policy in self.levels.items():
            if policy not in LEVEL_POLICIES:
                raise DataError(f"The values kept of {column!r} must be 'frequent' or 'top', not {policy!r}.")

    def to_dict(self):
        """Return a JSON-able dict; ``Roles.from_dict`` inverts it."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, d):
        """Build roles from a dict such as a dataset stores (unknown keys are ignored)."""
        d = {k: v for k, v in dict(d or {}).items() if k in {f.name for f in fields(cls)}}
        if d.get("features") is not None:
            d["features"] = tuple(d["features"])
        d["ignore"] = tuple(d.get("ignore") or ())
        d["event_value"] = event_values(d.get("event_value"))
        for name in ("missing", "feature_cost", "ordered", "levels"):
            d[name] = dict(d.get(name) or {})
        d["feature_cost"] = {k: _cost(k, v) for k, v in d["feature_cost"].items()}
        d["ordered"] = {k: [str(v) for v in vs] for k, vs in d["ordered"].items()}
        if d.get("max_categories") in (None, ""):
            d.pop("max_categories", None)
        else:
            d["max_categories"] = int(d["max_categories"])
        return cls(**d)


def event_values(value):
    """Return the event values as a tuple of texts (``"2"``, ``"1,2"``, ``[2]`` …), or None when none are given."""
    if value is None or value == "":
        return None
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, (list, tuple)) else [value]
    texts = []
    for v in items:
        text = v.strip() if isinstance(v, str) else predicates.as_text(v)
        try:
            text = predicates.as_text(float(text)) if text else text
        except ValueError:
            raise DataError(f"An event value must be a number, not {text!r}.") from None
        if text and text not in texts:
            texts.append(text)
    return tuple(texts) or None


def _cost(column, value):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DataError(f"The cost of column {column!r} must be a number, not {value!r}.") from None
