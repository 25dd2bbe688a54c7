"""Profiling a file in one streaming pass: column types, missing counts, histograms.

``profile_file(f)`` reads a CSV/TSV/Parquet file chunk by chunk and returns
a ``Profile``: a JSON-able description of every column that the dataset page
shows and from which it previews the binary features, without ever holding
the whole table. Its memory is bounded by ``ENTRY_BUDGET`` histogram entries
and one chunk of rows, whatever the number of rows.

Column types
------------
``binary``      two distinct values;
``numeric``     numbers with more than two values;
``categorical`` text (more than ``max_categories`` values: the rarest are
                grouped as "other" when binarized);
``identifier``  a distinct value in (nearly) every row: text, or the integers
                of a row counter; left out of the features by default;
``constant``    one value; dropped;
``empty``       no value at all; dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from solver.data import thresholds
from solver.data.roles import Roles
from solver.data.columns import COUNTS_STORE, HIST_STORE, QUANTILE_KS, ColumnSummary
from solver.data.source import open_source
from solver.data.table import ReadLimits
from solver.predicates import as_text

ENTRY_BUDGET = 500_000
PREVIEW_ROWS = 20
PREVIEW_CHARS = 80
MAX_CATEGORIES = 50
IDENTIFIER_SHARE = 0.9
DROPPED_TYPES = ("constant", "empty")


@dataclass
class Profile:
    """What one pass over a file learned.

    Attributes
    ----------
    format : {"csv", "parquet"}
    encoding, delimiter : str
    n_rows : int
    columns : list of dict
        One JSON-able entry per column (see ``column_entry``).
    preview : list of list of str
        The first rows, as text.
    notes : list of str
        Plain sentences about the file and its columns.
    """

    format: str
    encoding: str
    delimiter: str
    n_rows: int
    columns: list
    preview: list
    notes: list = field(default_factory=list)

    @property
    def names(self):
        return [c["name"] for c in self.columns]

    def column(self, name):
        """Return the entry of column ``name``, or None."""
        return next((c for c in self.columns if c["name"] == name), None)

    def numeric_columns(self):
        """Return the names of the columns whose every present value is a number."""
        return {c["name"] for c in self.columns if c["numeric"]}


def caps(n_columns):
    """Return ``(numbers, texts)``: the distinct values one column's summary keeps."""
    per_column = ENTRY_BUDGET // max(1, n_columns)
    cap = int(np.clip(per_column, 200, 100_000))
    return cap, min(cap, 5_000)


def profile_file(f, limits=ReadLimits(), max_categories=MAX_CATEGORIES):
    """Profile the seekable binary file ``f`` in one streaming pass.

    Raises
    ------
    DataError
        With one plain sentence when the file cannot be used.
    """
    source = open_source(f, limits)
    cap, text_cap = caps(len(source.names))
    summaries = [ColumnSummary(name, cap, text_cap, seed=j) for j, name in enumerate(source.names)]
    preview = []
    for chunk in source.chunks():
        if len(preview) < PREVIEW_ROWS:
            preview += preview_rows(chunk, PREVIEW_ROWS - len(preview))
        for summary, (kind, values) in zip(summaries, chunk):
            if kind == "raw":
                summary.add_raw(values)
            elif kind == "arrow":
                summary.add_arrow(values)
            elif kind == "num":
                summary.add_numbers(values)
            else:
                summary.add_texts(values)
    columns = [column_entry(s, max_categories) for s in summaries]
    notes = list(source.notes) + [c["note"] for c in columns if c.get("note")]
    return Profile(source.format, source.encoding, source.delimiter, source.n_rows, columns, preview, notes)


def profile_table(table, max_categories=MAX_CATEGORIES):
    """Return the profile entries of the columns of a ``Table`` already in memory."""
    cap, text_cap = caps(len(table.names))
    entries = []
    for j, (name, values) in enumerate(table.columns.items()):
        summary = ColumnSummary(name, cap, text_cap, seed=j)
        if values.dtype.kind == "f":
            summary.add_numbers(values)
        else:
            summary.add_texts(values.tolist())
        entries.append(column_entry(summary, max_categories))
    return entries


def identifier_columns(table):
    """Return the columns of a ``Table`` that look like row identifiers."""
    return [c["name"] for c in profile_table(table) if c["type"] == "identifier"]


def preview_rows(chunk, n=PREVIEW_ROWS):
    """Return the first ``n`` rows of a chunk as short texts."""
    rows = min(n, len(chunk[0][1]))
    chunk = [(kind, values.slice(0, rows).to_pylist() if kind == "arrow" else values) for kind, values in chunk]
    out = []
    for i in range(rows):
        cells = []
        for kind, values in chunk:
            v = values[i]
            text = v.strip() if kind in ("raw", "arrow") else as_text(v)
            cells.append(text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…")
        out.append(cells)
    return out


def column_kind(summary, max_categories=MAX_CATEGORIES):
    """Return the type of a summarized column (see the module docstring)."""
    present = summary.n_rows - summary.missing
    distinct = summary.distinct
    if present == 0:
        return "empty"
    if distinct == 1 and not summary.more:
        return "constant"
    if distinct == 2 and not summary.more:
        return "binary"
    if summary.numeric:
        if summary.n_rows >= 20 and summary.counter and summary.missing == 0:
            return "identifier"
        permutation = summary.integer and not summary.more and distinct == summary.n_rows >= 20
        if permutation and summary.high - summary.low + 1 == summary.n_rows:
            return "identifier"
        return "numeric"
    if distinct > max_categories:
        covered = sum(summary.texts.values())
        if (not summary.more and distinct >= IDENTIFIER_SHARE * present) or (summary.more and covered < present / 2):
            return "identifier"
    return "categorical"


def column_entry(summary, max_categories=MAX_CATEGORIES):
    """Return the JSON-able profile entry of a summarized column."""
    kind = column_kind(summary, max_categories)
    entry = {
        "name": summary.name,
        "type": kind,
        "numeric": bool(summary.numeric),
        "missing": int(summary.missing),
        "distinct": int(summary.distinct),
        "distinct_more": bool(summary.more),
    }
    if summary.numeric and summary.n_rows > summary.missing:
        entry.update(minimum=summary.low, maximum=summary.high, integer=bool(summary.integer))
        entry.update(numeric_cuts(summary))
    if summary.numeric and not summary.more and summary.distinct <= COUNTS_STORE:
        uniq, counts = summary.hist
        entry["counts"] = {as_text(v): int(c) for v, c in zip(uniq.tolist(), counts.tolist())}
    elif not summary.numeric:
        top = summary.texts.most_common(COUNTS_STORE)
        entry["counts"] = dict(top)
        entry["other_rows"] = int(summary.other_rows + sum(summary.texts.values()) - sum(c for _, c in top))
        entry["examples"] = sorted(v for v, _ in top[:5])
    note = column_note(entry, max_categories)
    if note:
        entry["note"] = note
    return entry


def numeric_cuts(summary):
    """Return the histogram (small columns) or the quantile cuts with their supports (large ones)."""
    if not summary.more and summary.distinct <= HIST_STORE:
        uniq, counts = summary.hist
        return {"hist": {"values": uniq.tolist(), "counts": counts.tolist()}}
    if summary.more:
        # Cuts and supports from the random sample, scaled to the whole column.
        uniq, counts = thresholds.histogram(summary.sample)
        scale = (summary.n_rows - summary.missing) / max(1, len(summary.sample))
    else:
        (uniq, counts), scale = summary.hist, 1.0
    out = {}
    for k in QUANTILE_KS:
        cuts = thresholds.quantile_cuts(uniq, counts, k)
        rows = np.round(thresholds.rows_at_or_below(uniq, counts, cuts) * scale).astype(np.int64)
        out[str(k)] = {"cuts": cuts.tolist(), "rows": rows.tolist()}
    return {"quantile_cuts": out, "sampled": bool(summary.more)}


def column_note(entry, max_categories=MAX_CATEGORIES):
    """Return a plain sentence about a column that will not be used as it is, or None."""
    name, kind = entry["name"], entry["type"]
    if kind == "empty":
        return f"Column {name!r} has no values; it is left out."
    if kind == "constant":
        return f"Column {name!r} has a single value; it is left out."
    if kind == "identifier":
        return (
            f"Column {name!r} looks like a row identifier (a different value in almost every row); "
            "it is left out of the features unless you include it."
        )
    if kind == "categorical" and (entry["distinct"] > max_categories or entry["distinct_more"]):
        counts = entry.get("counts", {})
        present = sum(counts.values()) + entry.get("other_rows", 0)
        distinct = entry["distinct"] + (1 if entry["distinct_more"] else 0)
        return Roles(max_categories=max_categories).kept_levels(name, counts, present, distinct)[1]
    if kind == "numeric" and entry.get("integer") and entry["distinct"] >= CODE_MIN_DISTINCT and looks_like_code(name):
        return (
            f"Column {name!r} holds {entry['distinct']:,}{'+' if entry['distinct_more'] else ''} different whole "
            "numbers and its name suggests a code (an identifier, an account or institution number): if so, their "
            "order means nothing and thresholds on them do not either; leave it out, or keep it knowing that."
        )
    return None


CODE_MIN_DISTINCT = 100
CODE_WORDS = frozenset(
    "id ids code codes number num nr no zip zipcode postcode postal phone account acct ssn flight tail icd fips".split()
)


def looks_like_code(name):
    """Return True when a column name says it holds codes: a word such as id, code, number or zip."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    words = re.split(r"[^A-Za-z]+", spaced.lower())
    return any(w in CODE_WORDS for w in words)
