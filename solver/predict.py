"""Applying a fitted model to a new raw table: predictions as CSV rows, safe for spreadsheets.

Used by ``python -m solver predict`` and by the web page that applies a
run's model to an uploaded file, so that both write the same columns:
``row`` (1-based data row), optionally an identifier column copied from the
input, ``prediction`` (the class, treatment or survival leaf), ``leaf`` or
``rule`` (where the row ends up in the model), and ``score`` (the leaf's
training share of the positive class, for two-class models).
"""

from __future__ import annotations

import csv
import io

import numpy as np

from solver import predicates
from solver.data.reader import iter_tables
from solver.data.table import DataError, ReadLimits, missing_mask

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def used_predicates(model):
    """Return the predicates of the features the model tests."""
    if hasattr(model, "antecedents"):
        indices = sorted(set(model.antecedents.tolist()))
    else:
        indices = sorted(set(model.feature[model.feature >= 0].tolist()))
    return [model.features[j] for j in indices]


def needed_columns(model):
    """Return the raw columns the model reads, in order of first use."""
    seen = []
    for p in used_predicates(model):
        seen += [c for c in predicates.columns_used(p) if c not in seen]
    return seen


def check_names(model, names):
    """Raise ``DataError`` when the column ``names`` lack one that the model reads."""
    lacking = [c for c in needed_columns(model) if c not in names]
    if lacking:
        listed = ", ".join(repr(c) for c in lacking)
        raise DataError(
            f"The data lacks {len(lacking)} column{'s' if len(lacking) > 1 else ''} the model needs: {listed}."
        )


def non_numbers(model, table):
    """Return ``{column: count}`` of present values that are not numbers where the model compares numbers.

    Those values count as missing, so every comparison ``x ≤ t`` is false for them.
    """
    out = {}
    for column in sorted({p["column"] for p in _leaves(used_predicates(model)) if p["kind"] == "threshold"}):
        values = table[column]
        if values.dtype.kind != "f":
            present = values[~missing_mask(values)]
            bad = int(np.isnan(predicates._as_float(present)).sum())
            if bad:
                out[column] = bad
    return out


def check_columns(model, table):
    """Raise ``DataError`` when the table lacks a column the model reads; return warning sentences."""
    check_names(model, table.names)
    return _warnings(non_numbers(model, table))


def _warnings(bad):
    return [f"{n:,} values of {c!r} are not numbers; the model treats them as missing." for c, n in bad.items()]


def write_predictions(model, f, out, limits=ReadLimits(min_columns=1), id_column=None):
    """Apply ``model`` to the raw file ``f`` chunk by chunk and write the predictions CSV to ``out``.

    Parameters
    ----------
    model : Tree or RuleList
    f : binary file object, seekable
        CSV, TSV or Parquet.
    out : text file object
    limits : ReadLimits
    id_column : str, optional

    Returns
    -------
    warnings : list of str

    Raises
    ------
    DataError
        The file is unusable or lacks a column the model needs.
    """
    text = {p["column"] for p in _leaves(used_predicates(model)) if p["kind"] in ("equals", "ordinal", "other")}
    chunks = iter_tables(f, limits, text)
    names = next(chunks)
    check_names(model, names)
    if id_column is not None and id_column not in names:
        raise DataError(f"The data has no column named {id_column!r} to copy as an identifier.")
    writer = csv.writer(out)
    bad, first = {}, 1
    for table in chunks:
        header, rows = prediction_rows(model, table, id_column, first)
        if first == 1:
            writer.writerow(header)
        writer.writerows(rows)
        first += table.n_rows
        for column, n in non_numbers(model, table).items():
            bad[column] = bad.get(column, 0) + n
    return _warnings(bad)


def _leaves(ps):
    for p in ps:
        if p["kind"] == "not":
            yield from _leaves([p["term"]])
        elif p["kind"] == "and":
            yield from _leaves(p["terms"])
        else:
            yield p


def prediction_rows(model, table, id_column=None, first_row=1):
    """Return the header and rows of the predictions CSV (cells already neutralized).

    Parameters
    ----------
    model : Tree or RuleList
    table : Table
    id_column : str, optional
        A column of ``table`` copied into every row, to join the predictions back.
    """
    if id_column is not None and id_column not in table:
        raise DataError(f"The data has no column named {id_column!r} to copy as an identifier.")
    position = model.apply(table)
    outputs = model.outputs[position]
    header = (
        ["row"]
        + ([id_column] if id_column else [])
        + ["prediction", "rule" if hasattr(model, "antecedents") else "leaf"]
    )
    names = list(model.classes)
    columns = [np.arange(first_row, first_row + len(position))]
    if id_column:
        columns.append([predicates.as_text(v) for v in table[id_column].tolist()])
    columns.append([names[i] if names else int(i) for i in outputs.tolist()])
    columns.append(position)
    if model.kind == "classification" and model.counts.shape[1] == 2:
        from solver.metrics import leaf_scores

        header.append("score")
        columns.append([f"{s:.6g}" for s in leaf_scores(model)[position]])
    rows = [[neutralize(c) for c in row] for row in zip(*columns)]
    return [neutralize(h) for h in header], rows


def neutralize(cell):
    """Defuse spreadsheet formula injection: prefix text starting with = + - @ tab or CR with a quote."""
    text = predicates.as_text(cell) if not isinstance(cell, str) else cell
    if text[:1] in FORMULA_STARTS and not _is_number(text):
        return "'" + text
    return text


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_text(header, rows):
    """Return CSV text of a header and rows."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()
