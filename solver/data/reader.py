"""Reading a whole file into a ``Table`` of typed columns (for the solver side).

A CSV column is numeric when every present cell in the whole file is a
number; that needs a first pass unless the caller already knows (the web
side stores it in the dataset's profile). The second pass keeps float64
arrays for numbers and object arrays of shared str objects for text.
"""

from __future__ import annotations

import io

import numpy as np

from solver.data.columns import (
    arrow_numbers,
    arrow_parse,
    coded_numbers,
    coded_texts,
    fast_numbers,
    numbers_of,
    parse_cells,
    parse_key,
    texts_of,
)
from solver.data.source import open_source
from solver.data.table import DataError, ReadLimits, Table


def read_table(data, limits=ReadLimits(), numeric=None):
    """Read CSV/TSV/Parquet bytes or a seekable binary file into a ``Table``.

    Parameters
    ----------
    data : bytes or binary file object
    limits : ReadLimits
    numeric : set of str, optional
        Names of the columns to read as numbers (all others as text); found
        by a first pass over the file when not given.

    Raises
    ------
    DataError
        With one plain sentence when the file cannot be used.
    """
    f = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data
    source = open_source(f, limits)
    if numeric is None and source.format == "csv":
        numeric = numeric_columns(source)
    parts = [[] for _ in source.names]
    canonical = [{} for _ in source.names]
    for chunk in source.chunks():
        for j, (kind, values) in enumerate(chunk):
            parts[j].append(_typed(source.names[j], kind, values, numeric, canonical[j]))
    columns = {name: _concatenate(p) for name, p in zip(source.names, parts)}
    return Table(columns, source.delimiter, source.encoding, list(source.notes), source.format)


def iter_tables(f, limits=ReadLimits(), text=frozenset()):
    """Yield the file as a sequence of ``Table`` chunks, each column typed within its chunk.

    Predicates evaluate value by value, so chunk-local types predict the same
    as the whole table would; memory stays at one chunk. Columns in ``text``
    are always kept as text, so that a category ``01`` stays ``01`` in a
    chunk where every value looks like a number.

    Yields
    ------
    names : list of str
        First, the column names (before any rows are read).
    table : Table
        Then one table per chunk.
    """
    source = open_source(f, limits)
    yield source.names
    for chunk in source.chunks():
        canonical = {}
        columns = {}
        for name, (kind, values) in zip(source.names, chunk):
            numeric = {name} if name not in text and _all_numbers(kind, values) else set()
            columns[name] = _typed(name, kind, values, numeric, canonical)
        yield Table(columns, source.delimiter, source.encoding, list(source.notes), source.format)


def read_file(path, limits=ReadLimits(), numeric=None):
    """Read the CSV/TSV/Parquet file at ``path`` into a ``Table``."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise DataError(f"Cannot read {path}: {e.strerror}.") from None
    with f:
        return read_table(f, limits, numeric)


def numeric_columns(source):
    """Return the names of the columns of a CSV source whose every present cell is a number."""
    numeric = set(source.names)
    for chunk in source.chunks():
        for name, (kind, cells) in zip(source.names, chunk):
            if name in numeric and not _all_numbers(kind, cells):
                numeric.discard(name)
    return numeric


def _all_numbers(kind, cells):
    """Return True when every present cell of a chunk of raw cells is a number."""
    if kind == "raw":
        return fast_numbers(cells) is not None or parse_cells(cells)[2]
    if kind == "arrow":
        return arrow_numbers(cells) is not None or arrow_parse(cells)[4]
    return False


def _typed(name, kind, values, numeric, canonical):
    if kind == "num":
        return values
    if kind == "text":
        texts = [None if v is None or parse_key(v)[0] == "missing" else v.strip() for v in values]
        out = np.empty(len(texts), dtype=object)
        out[:] = [None if t is None else canonical.setdefault(t, t) for t in texts]
        return out
    if kind == "arrow":
        return _typed_arrow(name, values, numeric, canonical)
    if name in numeric:
        numbers = fast_numbers(values)
        if numbers is not None:
            return numbers
    _, parsed, all_numbers = parse_cells(values)
    if name in numeric:
        _check_numbers(name, all_numbers)
        return numbers_of(values, parsed)
    return texts_of(values, parsed, canonical)


def _typed_arrow(name, cells, numeric, canonical):
    if name in numeric:
        numbers = arrow_numbers(cells)
        if numbers is not None:
            return numbers
    distinct, codes, _, parsed, all_numbers = arrow_parse(cells)
    if name in numeric:
        _check_numbers(name, all_numbers)
        return coded_numbers(distinct, codes, parsed)
    return coded_texts(distinct, codes, parsed, canonical)


def _check_numbers(name, all_numbers):
    if not all_numbers:
        raise DataError(f"Column {name!r} holds text where numbers were expected; upload the file again.")


def _concatenate(parts):
    if len(parts) == 1:
        return parts[0]
    if all(p.dtype.kind == "f" for p in parts):
        return np.concatenate(parts)
    out = np.empty(sum(len(p) for p in parts), dtype=object)
    start = 0
    for p in parts:
        out[start : start + len(p)] = p
        start += len(p)
    return out
