"""Typed raw columns (``Table``), read limits, and the one error users see.

A ``Table`` is an ordered mapping from column name to a numpy array: float64
with NaN for missing numbers, or an object array of str with None for
missing text. Nothing here imports pandas.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "?", "null", "none", "-"})


class DataError(ValueError):
    """The file cannot be used; the message is one plain sentence for users."""


@dataclass(frozen=True)
class ReadLimits:
    """Upper limits on what a read accepts; each refusal names the limit in plain words.

    Attributes
    ----------
    max_rows : int
        Data rows (the header not counted).
    max_columns : int
    max_cell_chars : int
        Characters in one cell.
    max_name_chars : int
        Characters in one column name.
    min_columns : int
        A table to learn from needs a feature and a label; one to predict on may have one column.
    """

    max_rows: int = 2_000_000
    max_columns: int = 5_000
    max_cell_chars: int = 10_000
    max_name_chars: int = 200
    min_columns: int = 2


@dataclass(eq=False)
class Table:
    """Typed columns of a parsed file.

    Attributes
    ----------
    columns : dict of str to array, shape (n,)
        float64 (NaN = missing) or object arrays of str (None = missing).
    delimiter : str
        CSV delimiter, empty for Parquet.
    encoding : str
    notes : list of str
        Plain sentences about how the file was read.
    format : {"csv", "parquet"}
    """

    columns: dict
    delimiter: str = ","
    encoding: str = "utf-8"
    notes: list = field(default_factory=list)
    format: str = "csv"

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
        """Return the table of the given rows (indices or boolean mask)."""
        columns = {k: v[rows] for k, v in self.columns.items()}
        return Table(columns, self.delimiter, self.encoding, list(self.notes), self.format)


def is_missing_token(cell):
    """Return True if a text cell stands for a missing value (``NA``, ``?``, empty, ...)."""
    return cell.strip().lower() in MISSING_TOKENS


def missing_mask(values):
    """Return True where ``values`` is missing.

    Parameters
    ----------
    values : array, shape (n,)

    Returns
    -------
    mask : array of bool, shape (n,)
    """
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind in "iub":
        return np.zeros(len(values), dtype=bool)
    return np.equal(values, None)


def text_codes(values):
    """Return ``(codes, uniques)`` of an object array of str (None = missing), factorized by pyarrow.

    Returns
    -------
    codes : array of int64, shape (n,)
        Index of each value into ``uniques``; -1 where missing.
    uniques : list
        The distinct values in order of first appearance.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        encoded = pc.dictionary_encode(pa.array(values, type=pa.string()))
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # not all str: a table built in Python
        index = {}
        codes = np.fromiter(
            (-1 if v is None else index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values)
        )
        return codes, list(index)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return codes, encoded.dictionary.to_pylist()


def factorize(values):
    """Return integer codes of a column's values and the distinct values.

    Missing values get code -1. Numbers are ordered ascending; text in order
    of first appearance.

    Returns
    -------
    codes : array of int64, shape (n,)
    uniques : array, shape (k,)
    """
    if values.dtype.kind in "fiub":
        values = np.asarray(values, dtype=np.float64)
        present = ~np.isnan(values)
        uniques, inverse = np.unique(values[present], return_inverse=True)
        codes = np.full(len(values), -1, dtype=np.int64)
        codes[present] = inverse
        return codes, uniques
    codes, distinct = text_codes(values)
    uniques = np.empty(len(distinct), dtype=object)
    uniques[:] = distinct
    return codes, uniques
