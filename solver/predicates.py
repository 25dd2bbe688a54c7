"""Human-readable binary features and how to evaluate them on raw rows.

Every column of a binarized matrix carries one predicate, a small JSON-able
dict, so that a fitted model explains itself in the original units and can be
applied to a new raw table.

Kinds
-----
``{"kind": "binary", "column": c}``
    true iff the raw value is 1 (also ``true``/``yes``); the column was already 0/1.
``{"kind": "threshold", "column": c, "threshold": t}``
    true iff the numeric value is ``<= t``; a missing value is false.
``{"kind": "equals", "column": c, "value": v}``
    true iff the value (as text) equals ``v``; a missing value is false.
``{"kind": "missing", "column": c}``
    true iff the value is missing.
``{"kind": "ordinal", "column": c, "order": [v1, v2, ...], "value": v}``
    true iff the value (as text) comes at or before ``v`` in the declared
    order of an ordered category; a missing or undeclared value is false.
``{"kind": "other", "column": c, "kept": [v1, v2, ...]}``
    true iff the value is present and none of ``kept`` (the rare values of
    a categorical column grouped together, and any value not seen in training).
``{"kind": "not", "term": p}`` and ``{"kind": "and", "terms": [p, q, ...]}``
    negation and conjunction, for mined rules.
"""

from __future__ import annotations

import math

import numpy as np

TRUE_WORDS = frozenset({"1", "1.0", "true", "yes", "y", "t"})


def binary(column):
    """Return the predicate of a column that is already 0/1."""
    return {"kind": "binary", "column": column}


def threshold(column, value):
    """Return the predicate ``column <= value``."""
    return {"kind": "threshold", "column": column, "threshold": float(value)}


def equals(column, value):
    """Return the predicate ``column == value`` (compared as text)."""
    return {"kind": "equals", "column": column, "value": str(value)}


def missing(column):
    """Return the predicate ``column is missing``."""
    return {"kind": "missing", "column": column}


def ordinal(column, order, value):
    """Return the predicate ``column ≤ value`` in the declared ``order`` of an ordered category."""
    order = [str(v) for v in order]
    if str(value) not in order:
        raise ValueError(f"{value!r} is not in the declared order of {column!r}")
    return {"kind": "ordinal", "column": column, "order": order, "value": str(value)}


def other(column, kept):
    """Return the predicate ``column`` is present and none of ``kept``."""
    return {"kind": "other", "column": column, "kept": sorted(str(v) for v in kept)}


def negate(p):
    """Return the negation of ``p``, removing a double negation."""
    if p["kind"] == "not":
        return p["term"]
    return {"kind": "not", "term": p}


def conjunction(*terms):
    """Return the conjunction of ``terms``."""
    return {"kind": "and", "terms": list(terms)}


def columns_used(p):
    """Return the raw column names that ``p`` reads, in order of first use."""
    if p["kind"] == "not":
        return columns_used(p["term"])
    if p["kind"] == "and":
        seen = []
        for term in p["terms"]:
            seen += [c for c in columns_used(term) if c not in seen]
        return seen
    return [p["column"]]


def format_number(x):
    """Format a threshold compactly: integers without a decimal point."""
    x = float(x)
    if math.isfinite(x) and x == round(x) and abs(x) < 1e15:
        return str(int(round(x)))
    return f"{x:.6g}"


def _looks_like_predicate(name):
    return any(ch in name for ch in ":=<>≤≥")


def text(p):
    """Return the predicate as plain text, e.g. ``age ≤ 23.5`` or ``sex = male``."""
    kind = p["kind"]
    if kind == "binary":
        name = p["column"]
        return name if _looks_like_predicate(name) else f"{name} = 1"
    if kind == "threshold":
        return f"{p['column']} ≤ {format_number(p['threshold'])}"
    if kind == "equals":
        return f"{p['column']} = {p['value']}"
    if kind == "missing":
        return f"{p['column']} is missing"
    if kind == "ordinal":
        return f"{p['column']} ≤ {p['value']}"
    if kind == "other":
        return f"{p['column']} = other ({_kept_text(p['kept'])})"
    if kind == "and":
        return " AND ".join(_text_in_conjunction(t) for t in p["terms"])
    if kind == "not":
        return negation_text(p["term"])
    raise ValueError(f"unknown predicate kind {kind!r}")


def _kept_text(kept):
    shown = ", ".join(kept[:3])
    return f"not {shown}" if len(kept) <= 3 else f"not {shown} or {len(kept) - 3} more common values"


def _text_in_conjunction(p):
    inner = text(p)
    return f"({inner})" if p["kind"] == "and" else inner


def negation_text(p):
    """Return the text of ``not p`` in its most readable form (``age > 23.5``)."""
    kind = p["kind"]
    if kind == "binary":
        name = p["column"]
        return f"not {name}" if _looks_like_predicate(name) else f"{name} = 0"
    if kind == "threshold":
        return f"{p['column']} > {format_number(p['threshold'])}"
    if kind == "equals":
        return f"{p['column']} ≠ {p['value']}"
    if kind == "missing":
        return f"{p['column']} is not missing"
    if kind == "ordinal":
        return f"{p['column']} > {p['value']}"
    if kind == "other":
        return f"{p['column']} ≠ other ({_kept_text(p['kept'])})"
    if kind == "not":
        return text(p["term"])
    return f"not ({text(p)})"


def evaluate(p, table, _cache=None):
    """Evaluate ``p`` on every row of a raw table.

    Parameters
    ----------
    p : dict
        A predicate.
    table : mapping of str to array, shape (n,)
        Raw columns: float64 with NaN for missing numbers, or object arrays
        of str with None for missing text.

    Returns
    -------
    truth : array of bool, shape (n,)
    """
    kind = p["kind"]
    if kind == "not":
        return ~evaluate(p["term"], table, _cache)
    if kind == "and":
        out = evaluate(p["terms"][0], table, _cache)
        for term in p["terms"][1:]:
            out &= evaluate(term, table, _cache)
        return out
    column = p["column"]
    if column not in table:
        raise KeyError(f"the data has no column named {column!r}")
    values = table[column]
    if kind == "missing":
        return _is_missing(values)
    if kind == "threshold":
        numbers = _as_float(values)
        with np.errstate(invalid="ignore"):
            return numbers <= p["threshold"]
    if kind == "binary" and values.dtype.kind in "fiub":
        with np.errstate(invalid="ignore"):
            return np.asarray(values, dtype=np.float64) == 1.0
    if kind not in ("equals", "binary", "ordinal", "other"):
        raise ValueError(f"unknown predicate kind {kind!r}")
    # Text tests: decide once per distinct value, then look the rows up.
    cache = {} if _cache is None else _cache
    if column not in cache:
        cache[column] = _text_codes(values)
    codes, texts = cache[column]
    return _text_truth(p, texts)[codes]


def _text_codes(values):
    """Return ``(codes, texts)``: each row's index into the distinct values' texts (missing = "")."""
    from solver.data.table import text_codes  # solver.data imports this module

    codes, uniques = text_codes(np.asarray(values, dtype=object))
    codes[codes < 0] = len(uniques)
    return codes, [as_text(v) for v in uniques] + [""]


def _text_truth(p, texts):
    kind = p["kind"]
    if kind == "equals":
        truth = [t == p["value"] for t in texts]
    elif kind == "binary":
        truth = [t.lower() in TRUE_WORDS for t in texts]
    elif kind == "ordinal":
        rank = {v: i for i, v in enumerate(p["order"])}
        limit = rank[p["value"]]
        truth = [rank.get(t, limit + 1) <= limit for t in texts]
    else:
        kept = set(p["kept"])
        truth = [t != "" and t not in kept for t in texts]
    return np.array(truth, dtype=bool)


def _is_missing(values):
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind in "iub":
        return np.zeros(len(values), dtype=bool)
    return np.array([v is None for v in values], dtype=bool)


def _as_float(values):
    if values.dtype.kind in "fiub":
        return np.asarray(values, dtype=np.float64)
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            pass
    return out


def as_text(v):
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return ""
        return format_number(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return str(v)


def evaluate_all(features, table):
    """Evaluate a list of predicates on a raw table into a binary matrix.

    Returns
    -------
    X : array of uint8, shape (n, len(features))
    """
    n = len(next(iter(table.values()))) if table else 0
    X = np.zeros((n, len(features)), dtype=np.uint8)
    cache = {}
    for j, p in enumerate(features):
        X[:, j] = evaluate(p, table, cache)
    return X
