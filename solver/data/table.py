"""Reading a user's CSV/TSV into typed columns, with plain-sentence errors.

A ``Table`` is an ordered mapping from column name to a numpy array: float64
with NaN for missing numbers, or an object array of str with None for
missing text. Nothing here imports pandas.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from solver.predicates import as_text

MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "?", "null", "none", "-"})
DELIMITERS = ",\t;|"


class DataError(ValueError):
    """The file cannot be used; the message is one plain sentence for users."""


@dataclass(frozen=True)
class ReadLimits:
    """Upper limits on what a read accepts."""

    max_rows: int = 2_000_000
    max_columns: int = 5_000
    max_cell_chars: int = 10_000


@dataclass(eq=False)
class Table:
    """Typed columns of a parsed file.

    Attributes
    ----------
    columns : dict of str to array, shape (n,)
    delimiter : str
    encoding : str
    notes : list of str
    """

    columns: dict
    delimiter: str = ","
    encoding: str = "utf-8"
    notes: list = field(default_factory=list)

    @property
    def names(self):
        return list(self.columns)

    @property
    def n_rows(self):
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, name):
        return self.columns[name]

    def __contains__(self, name):
        return name in self.columns

    def take(self, rows):
        return Table({k: v[rows] for k, v in self.columns.items()}, self.delimiter, self.encoding, list(self.notes))


def decode(data):
    """Decode bytes as UTF-8 (with or without a BOM), else Latin-1.

    Returns
    -------
    text : str
    encoding : str
    """
    if b"\x00" in data[:8192]:
        raise DataError("The file looks binary, not like a text table (CSV or TSV).")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def sniff_delimiter(text):
    """Return the most plausible delimiter among comma, tab, semicolon and pipe."""
    sample = text[:65536]
    lines = [line for line in sample.splitlines()[:50] if line.strip()]
    if not lines:
        raise DataError("The file is empty.")
    best, best_score = ",", -1
    for delim in DELIMITERS:
        counts = [len(next(csv.reader([line], delimiter=delim))) for line in lines]
        if counts[0] < 2:
            continue
        # A delimiter that splits every line into the same number of fields wins.
        score = counts.count(counts[0]) * counts[0]
        if score > best_score:
            best, best_score = delim, score
    return best


def read_table(data, limits=ReadLimits()):
    """Parse CSV/TSV bytes into a ``Table``.

    Raises
    ------
    DataError
        With one plain sentence: empty file, binary content, no header, ragged
        rows, too many rows or columns, duplicated or empty header names.
    """
    if not data or not data.strip():
        raise DataError("The file is empty.")
    text, encoding = decode(data)
    delimiter = sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as e:
        raise DataError(f"The first line cannot be read as a header row ({e}).") from None
    header = [h.strip() for h in header]
    check_header(header, limits)
    rows = []
    try:
        for line_number, row in enumerate(reader, start=2):
            if not row or all(not cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise DataError(
                    f"Line {line_number} has {len(row)} fields but the header has {len(header)}; "
                    "every row needs one value per column."
                )
            rows.append(row)
            if len(rows) > limits.max_rows:
                raise DataError(f"The file has more than {limits.max_rows:,} rows, the most we accept.")
    except csv.Error as e:
        raise DataError(f"The file is not valid CSV near line {reader.line_num}: {e}.") from None
    if not rows:
        raise DataError("The file has a header row but no data rows.")
    columns = {name: column_from_cells([row[j] for row in rows], limits) for j, name in enumerate(header)}
    return Table(columns, delimiter, encoding)


def check_header(header, limits):
    """Raise ``DataError`` unless ``header`` is a usable header row."""
    if len(header) > limits.max_columns:
        raise DataError(f"The file has {len(header):,} columns; we accept at most {limits.max_columns:,}.")
    if len(header) < 2:
        raise DataError("The file has a single column; a table needs at least one feature and a label.")
    if any(not h for h in header):
        raise DataError("The header row has an empty column name; give every column a name.")
    if all(_parse_number(h) is not None for h in header):
        raise DataError("The first line holds only numbers; the file needs a header row naming the columns.")
    seen = set()
    for h in header:
        if h in seen:
            raise DataError(f"The column name {h!r} appears twice in the header; column names must be unique.")
        seen.add(h)


def _parse_number(cell):
    try:
        x = float(cell)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def is_missing_token(cell):
    return cell.strip().lower() in MISSING_TOKENS


def column_from_cells(cells, limits=ReadLimits()):
    """Turn one column of text cells into float64 (all numbers) or object (text) values."""
    present = [c.strip() for c in cells]
    numbers = np.full(len(cells), np.nan)
    numeric = True
    for i, cell in enumerate(present):
        if is_missing_token(cell):
            continue
        x = _parse_number(cell)
        if x is None:
            numeric = False
            break
        numbers[i] = x
    if numeric:
        return numbers
    out = np.empty(len(cells), dtype=object)
    for i, cell in enumerate(present):
        if len(cell) > limits.max_cell_chars:
            raise DataError(f"A cell holds more than {limits.max_cell_chars:,} characters; is this really a table?")
        out[i] = None if is_missing_token(cell) else cell
    return out


def missing_mask(values):
    """Return True where ``values`` is missing."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    return np.array([v is None for v in values], dtype=bool)


def profile(table, max_categories=50):
    """Describe every column: type, missing count, distinct values.

    Types: ``binary`` (two values 0/1), ``numeric``, ``categorical`` (text
    with at most ``max_categories`` values), ``identifier`` (text with a
    distinct value in nearly every row), ``constant`` (one value) and
    ``empty`` (all missing).

    Returns
    -------
    list of dict
    """
    out = []
    for name, values in table.columns.items():
        miss = missing_mask(values)
        present = values[~miss]
        distinct = np.unique(present) if values.dtype.kind == "f" else np.unique(present.astype(str))
        kind = column_kind(values, distinct, len(present), max_categories)
        entry = {"name": name, "type": kind, "missing": int(miss.sum()), "distinct": int(len(distinct))}
        if values.dtype.kind == "f" and len(present):
            entry.update(minimum=float(present.min()), maximum=float(present.max()))
        else:
            entry["examples"] = [str(v) for v in distinct[:5]]
        if 0 < len(distinct) <= max_categories:
            entry["counts"] = value_counts(present)
        out.append(entry)
    return out


def value_counts(present):
    """Return ``{value as text: rows}`` in the order of the sorted values."""
    values, counts = np.unique(present if present.dtype.kind == "f" else present.astype(str), return_counts=True)
    return {as_text(v): int(c) for v, c in zip(values.tolist(), counts.tolist())}


def column_kind(values, distinct, n_present, max_categories=50):
    """Classify a column from its distinct present values."""
    if len(distinct) == 0:
        return "empty"
    if len(distinct) == 1:
        return "constant"
    if values.dtype.kind == "f":
        if len(distinct) == 2 and set(distinct.tolist()) <= {0.0, 1.0}:
            return "binary"
        return "numeric"
    if len(distinct) > max_categories and len(distinct) >= 0.9 * n_present:
        return "identifier"
    return "categorical"
