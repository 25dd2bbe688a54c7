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
    if kind == "and":
        return " AND ".join(_text_in_conjunction(t) for t in p["terms"])
    if kind == "not":
        return negation_text(p["term"])
    raise ValueError(f"unknown predicate kind {kind!r}")


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
    if kind == "not":
        return text(p["term"])
    return f"not ({text(p)})"


def evaluate(p, table):
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
        return ~evaluate(p["term"], table)
    if kind == "and":
        out = evaluate(p["terms"][0], table)
        for term in p["terms"][1:]:
            out &= evaluate(term, table)
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
    if kind == "equals":
        return np.array([as_text(v) == p["value"] for v in values], dtype=bool)
    if kind == "binary":
        if values.dtype.kind in "fiub":
            with np.errstate(invalid="ignore"):
                return np.asarray(values, dtype=np.float64) == 1.0
        return np.array([as_text(v).lower() in TRUE_WORDS for v in values], dtype=bool)
    raise ValueError(f"unknown predicate kind {kind!r}")


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
    for j, p in enumerate(features):
        X[:, j] = evaluate(p, table)
    return X
