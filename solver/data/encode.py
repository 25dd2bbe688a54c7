"""The binary features of one raw column, as predicates.

``column_features(name, values, ...)`` returns the predicates that stand for
a column and plain sentences about anything left out:

- numbers: ``x ≤ t`` at the chosen cuts (0/1 columns as they are);
- text: one-hot ``x = v`` (two values: one feature), the rarest values
  beyond ``max_categories`` grouped as ``x = other``;
- a declared order: ``x ≤ v`` at every present value but the last;
- missing values (policy ``feature``): ``x is missing``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from solver import predicates
from solver.data import thresholds
from solver.data.featurelist import FeatureList
from solver.data.table import DataError, missing_mask, text_codes


def numeric_cuts(name, values, method, histogram=None):
    """Return the cuts of a numeric column (``x ≤ t``) under ``method``.

    Parameters
    ----------
    values : array of float64, shape (n,)
    method : Method
    histogram : (array, array), optional
        ``thresholds.histogram(values)`` when the caller has it.
    """
    uniq, counts = thresholds.histogram(values) if histogram is None else histogram
    if method.name == "quantile":
        return thresholds.quantile_cuts(uniq, counts, method.k)
    if method.name == "gbdt":
        return method.cuts.get(name, np.empty(0))
    return thresholds.exact_cuts(uniq)


def column_features(name, values, method, roles, histogram=None):
    """Return ``(predicates, notes)`` for one feature column.

    Parameters
    ----------
    name : str
    values : array, shape (n,)
        float64 (NaN = missing) or object (None = missing).
    method : Method
        The binarization (see ``solver.data.binarize.parse_method``).
    roles : Roles
    histogram : (array, array), optional
        A numeric column's ``thresholds.histogram``, when the caller has it.

    Raises
    ------
    DataError
        A non-0/1 column under ``none``; a value outside a declared order.
    """
    miss = missing_mask(values)
    present = values[~miss]
    if values.dtype.kind == "f":
        out, notes = _numeric_features(name, present, values, method, histogram)
    else:
        out, notes = _text_features(name, present, method, roles)
    if miss.any() and len(present) and roles.policy(name) == "feature":
        if not out:
            notes = [f"Column {name!r} has one value besides missing ones; only its missingness is a feature."]
        out.append(predicates.missing(name))
    return out, notes


def _numeric_features(name, present, values, method, histogram=None):
    histogram = thresholds.histogram(present) if histogram is None else histogram
    distinct = histogram[0]
    if len(distinct) == 0:
        return [], [f"Column {name!r} has no values; it is left out."]
    if len(distinct) == 1:
        return [], [f"Column {name!r} has a single value; it is left out."]
    if set(distinct.tolist()) <= {0.0, 1.0}:
        return [predicates.binary(name)], []
    if method.name == "none":
        raise DataError(f"Column {name!r} is not 0/1; choose the exact, quantile or boosted binarization.")
    out = FeatureList()
    out.add_thresholds(name, numeric_cuts(name, values, method, histogram))
    return out, []


def _text_features(name, present, method, roles):
    codes, uniques = text_codes(present)
    counts = Counter(dict(zip(uniques, np.bincount(codes, minlength=len(uniques)).tolist())))
    if not counts:
        return [], [f"Column {name!r} has no values; it is left out."]
    if len(counts) == 1:
        return [], [f"Column {name!r} has a single value; it is left out."]
    if method.name == "none":
        raise DataError(f"Column {name!r} holds text; choose the exact binarization to one-hot encode it.")
    if name in roles.ordered:
        return _ordinal_features(name, counts, roles.ordered[name]), []
    if len(counts) == 2:
        return [predicates.equals(name, sorted(counts)[1])], []
    kept, note = roles.kept_levels(name, counts, len(present))
    if not kept:
        return [], [note]
    out = [predicates.equals(name, v) for v in sorted(kept)]
    if len(kept) < len(counts):
        out.append(predicates.other(name, kept))
    return out, [note] if note else []


def _ordinal_features(name, counts, order):
    undeclared = sorted(set(counts) - set(order))
    if undeclared:
        raise DataError(f"Column {name!r} has the value {undeclared[0]!r}, which is not in its declared order.")
    present = [v for v in order if v in counts]
    return [predicates.ordinal(name, order, v) for v in present[:-1]]
