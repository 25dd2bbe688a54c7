"""A user's file as a stream of column chunks: CSV/TSV or Parquet, in bounded memory.

``open_source(f, limits)`` looks at the first bytes of a binary file object,
decides the format (Parquet by its magic number, else delimited text), the
text encoding (UTF-8 with or without a byte-order mark, UTF-16 with a mark,
else Latin-1) and the delimiter (comma, tab, semicolon or pipe). Its
``chunks()`` then yields the rows a few thousand at a time, as columns:

- ``("raw", cells)``: a tuple of the text cells of a CSV column, as read;
- ``("arrow", cells)``: the same cells as a pyarrow string array (UTF-8 files: pyarrow's CSV reader parses
  them, tens of times faster; a file it cannot parse is read by the csv module from where it stopped, so
  every message about a malformed file is the same);
- ``("num", values)``: float64 array, NaN where missing (Parquet numbers);
- ``("text", values)``: list of str or None (Parquet text).

Every problem with the file is raised as ``DataError`` with one plain
sentence; every limit of ``ReadLimits`` is checked here.
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import re

import numpy as np

from solver.data.table import DataError, ReadLimits

SAMPLE_BYTES = 1 << 16
CHUNK_CELLS = 1 << 18
ARROW_MIN_BYTES = SAMPLE_BYTES  # smaller CSV files are read by the csv module alone
# pyarrow's chunks hold at least this many rows: its strings are compact, and each chunk costs a few calls per
# column (a 2,000-column file in chunks of 131 rows took seconds).
ARROW_CHUNK_ROWS = 1 << 15
DELIMITERS = ",\t;|"
DELIMITER_WORDS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}
PARQUET_MAGIC = b"PAR1"
BINARY = (
    "The file looks binary, not like a text table (CSV or TSV) or a Parquet file; "
    "from a spreadsheet, save it as CSV first."
)


def open_source(f, limits=ReadLimits()):
    """Return a ``CsvSource`` or ``ParquetSource`` over the seekable binary file ``f``.

    Raises
    ------
    DataError
        Empty or binary file, missing or unusable header, too many columns.
    """
    f.seek(0)
    head = f.read(SAMPLE_BYTES)
    f.seek(0)
    if not head.strip():
        raise DataError("The file is empty.")
    if head.startswith(PARQUET_MAGIC):
        return ParquetSource(f, limits)
    return CsvSource(f, head, limits)


def chunk_rows(n_columns):
    """Return how many rows one chunk holds, so that a chunk has about ``CHUNK_CELLS`` cells."""
    return max(64, CHUNK_CELLS // max(1, n_columns))


def detect_encoding(head):
    """Return the codec name of a file that starts with the bytes ``head``."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in head[:8192]:
        raise DataError(BINARY)
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8"


def scan_bytes(f, block=1 << 20):
    """Read the whole binary file ``f`` once; return ``(is_utf8, has_nul, has_quote, has_blank_line)``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8, nul, quote, blank = True, False, False, False
    tail = b"\n"  # the end of the previous block (a file that starts with a line end starts with a blank line)
    f.seek(0)
    try:
        while data := f.read(block):
            nul = nul or b"\x00" in data
            quote = quote or b'"' in data
            blank = blank or blank_line(tail + data[:3]) or blank_line(data)
            tail = data[-3:]
            if utf8:
                try:
                    decoder.decode(data)
                except UnicodeDecodeError:
                    utf8 = False
        if utf8:
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                utf8 = False
    finally:
        f.seek(0)
    return utf8, nul, quote, blank


def blank_line(data):
    """Return True when the bytes hold an empty line (two line ends in a row)."""
    return b"\n\n" in data or b"\r\r" in data or b"\n\r\n" in data


QUOTED = re.compile(rb'"(?:[^"]|"")*+"')


def plain_quoting(data, delimiter):
    """Return True when every quote of the CSV bytes ``data`` belongs to a quoted cell that fills its field.

    Such a file is read alike by every CSV parser; a stray quote (``"ab"c``, ``5"``) is one that
    pyarrow's parser would take and Python's strict one refuses, so such a file goes to the latter.
    """
    ends = {delimiter.encode(), b"\n", b"\r"}
    inside = 0
    for match in QUOTED.finditer(data):
        start, stop = match.span()
        if (start and data[start - 1 : start] not in ends) or (stop < len(data) and data[stop : stop + 1] not in ends):
            return False
        inside += stop - start - len(match.group().replace(b'"', b""))
    return inside == data.count(b'"')


def looks_binary(text):
    """Return True when more than 1 % of the characters are control characters other than tab and newlines."""
    if not text:
        return False
    controls = sum(1 for ch in text if (ord(ch) < 32 and ch not in "\t\r\n") or ord(ch) == 0x7F)
    return controls > 0.01 * len(text)


def sniff_delimiter(text):
    """Return the most plausible delimiter of a text sample among comma, tab, semicolon and pipe.

    A delimiter that splits the sample's records into the same number of
    fields (at least two) wins; quoted fields are respected.
    """
    complete = text[: text.rfind("\n") + 1] or text
    best, best_score = ",", 0
    for delim in DELIMITERS:
        try:
            counts = [len(r) for r, _ in zip(csv.reader(io.StringIO(complete), delimiter=delim), range(50)) if r]
        except csv.Error:
            continue
        if not counts or counts[0] < 2:
            continue
        score = counts.count(counts[0]) * counts[0]
        if score > best_score:
            best, best_score = delim, score
    return best


def clean_header(header, limits):
    """Return the column names of a header row, or raise ``DataError`` if it is unusable."""
    names = [" ".join(str(h).split()) for h in header]
    if len(names) > limits.max_columns:
        raise DataError(f"The file has {len(names):,} columns; we accept at most {limits.max_columns:,}.")
    if len(names) < limits.min_columns:
        raise DataError("The file has a single column; a table needs at least one feature and a label.")
    for j, name in enumerate(names):
        if not name:
            raise DataError(f"Column {j + 1} of the header row has no name; give every column a name.")
        if len(name) > limits.max_name_chars:
            raise DataError(f"Column {j + 1} has a name longer than {limits.max_name_chars} characters.")
    if all(_is_number(h) for h in names):
        raise DataError("The first line holds only numbers; the file needs a header row naming the columns.")
    seen = set()
    for name in names:
        if name in seen:
            raise DataError(f"The column name {name!r} appears twice in the header; column names must be unique.")
        seen.add(name)
    return names


def _is_number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


class CsvSource:
    """Delimited text read in chunks of rows.

    Attributes
    ----------
    names : list of str
    encoding : str
    delimiter : str
    notes : list of str
    n_rows : int
        Data rows read so far (all of them after a full ``chunks()`` pass).
    """

    format = "csv"

    def __init__(self, f, head, limits=ReadLimits()):
        self.f = f
        self.limits = limits
        self.notes = []
        self.encoding = detect_encoding(head)
        quote, blank = b'"' in head, blank_line(b"\n" + head)
        if self.encoding != "utf-16" and len(head) == SAMPLE_BYTES:
            utf8, nul, quote, blank = scan_bytes(f)
            if nul:
                raise DataError(BINARY)
            if self.encoding == "utf-8" and not utf8:
                self.encoding = "latin-1"
                self.notes.append("The file is not valid UTF-8 throughout; it was read as Latin-1.")
        sample = head.decode(self.encoding, errors="replace")
        if looks_binary(sample):
            raise DataError(BINARY)
        self.delimiter = sniff_delimiter(sample)
        # pyarrow parses a large UTF-8 file whose quoting every parser reads alike and that has no blank line
        # (pyarrow reads one as a row of empty cells); the csv module reads the others, and small files as fast.
        self.fast = self.encoding in ("utf-8", "utf-8-sig") and len(head) >= ARROW_MIN_BYTES and not blank
        if self.fast and quote:
            f.seek(0)
            self.fast = plain_quoting(f.read(), self.delimiter)
            f.seek(0)
        self.n_rows = 0
        with self._reader() as (reader, _):
            try:
                header = _first_row(reader)
            except csv.Error as e:
                raise DataError(f"The header row cannot be read as CSV: {csv_words(e)}.") from None
        if header is None:
            raise DataError("The file has no header row.")
        self.names = clean_header(header, limits)
        self._header = header

    def _reader(self):
        return _TextReader(self.f, self.encoding, self.delimiter)

    def chunks(self):
        """Yield lists of ``("arrow", cells)`` or ``("raw", cells)`` columns, ``chunk_rows`` rows at a time.

        Raises
        ------
        DataError
            Ragged rows, overlong cells, too many rows, malformed CSV, or no data rows.
        """
        self.n_rows = 0
        done = 0
        if self.fast:
            done = yield from self._arrow_chunks()
        if done is not None:
            yield from self._python_chunks(done)
        if self.n_rows == 0:
            raise DataError("The file has a header row but no data rows.")

    def _arrow_chunks(self):
        """Yield chunks parsed by pyarrow; return None at the end, or the rows yielded when pyarrow gave up."""
        import pyarrow as pa
        import pyarrow.csv as pacsv

        step = max(chunk_rows(len(self.names)), ARROW_CHUNK_ROWS)
        self.f.seek(0)
        try:
            reader = pacsv.open_csv(
                self.f,
                read_options=pacsv.ReadOptions(block_size=1 << 22),
                parse_options=pacsv.ParseOptions(
                    delimiter=self.delimiter, newlines_in_values=True, ignore_empty_lines=False
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types={name: pa.string() for name in self._header},
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                    null_values=[],
                ),
            )
            if reader.schema.names != self._header:  # blank lines before the header, say
                return 0
            pending = None
            for batch in reader:
                part = pa.Table.from_batches([batch])
                pending = part if pending is None else pa.concat_tables([pending, part])
                while pending.num_rows >= step:
                    yield self._arrow_columns(pending.slice(0, step))
                    pending = pending.slice(step)
            if pending is not None and pending.num_rows:
                yield self._arrow_columns(pending)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            return self.n_rows
        return None

    def _arrow_columns(self, table):
        import pyarrow.compute as pc

        self._count(table.num_rows)
        columns = [table.column(j).combine_chunks() for j in range(table.num_columns)]
        for j, cells in enumerate(columns):
            longest = pc.max(pc.utf8_length(cells)).as_py() or 0
            if longest > self.limits.max_cell_chars:
                raise self._overlong(j)
        return [("arrow", cells) for cells in columns]

    def _python_chunks(self, skip):
        """Yield chunks read by the csv module, after the first ``skip`` data rows."""
        width, step = len(self.names), chunk_rows(len(self.names))
        blank = 0
        with self._reader() as (reader, line_number):
            _first_row(reader)
            rows = []
            try:
                for row in reader:
                    if len(row) != width:
                        if not row or not "".join(row).strip():
                            blank += 1
                            continue
                        raise DataError(
                            f"Line {line_number()} has {len(row)} field{'s' if len(row) != 1 else ''} but the header "
                            f"has {width}; every row needs one value per column."
                        )
                    if skip:
                        skip -= 1
                        continue
                    rows.append(row)
                    if len(rows) == step:
                        yield self._columns(rows)
                        rows = []
                if rows:
                    yield self._columns(rows)
            except csv.Error as e:
                raise DataError(f"The file is not valid CSV near line {line_number()}: {csv_words(e)}.") from None
        note = f"{blank:,} blank lines were skipped."
        if blank and note not in self.notes:
            self.notes.append(note)

    def _columns(self, rows):
        self._count(len(rows))
        columns = list(zip(*rows))
        for j, cells in enumerate(columns):
            if max(map(len, cells)) > self.limits.max_cell_chars:
                raise self._overlong(j)
        return [("raw", cells) for cells in columns]

    def _count(self, rows):
        self.n_rows += rows
        if self.n_rows > self.limits.max_rows:
            raise DataError(f"The file has more than {self.limits.max_rows:,} rows, the most we accept.")

    def _overlong(self, j):
        return DataError(
            f"A cell of column {self.names[j]!r} holds more than {self.limits.max_cell_chars:,} "
            "characters; is this really a table?"
        )


def _first_row(reader):
    """Return the first row with a non-blank cell (the header), or None."""
    for row in reader:
        if "".join(row).strip():
            return row
    return None


def csv_words(error):
    """Return the csv module's error in plain words."""
    text = str(error)
    if "field larger than field limit" in text:
        return f"a cell holds more than {csv.field_size_limit():,} characters"
    if "unexpected end of data" in text:
        return "a quoted cell is never closed"
    if "expected after" in text:
        return 'a quote inside a quoted cell must be doubled ("")'
    return text


class _TextReader:
    """Context manager: a csv reader over the binary file, and a function giving its line number."""

    def __init__(self, f, encoding, delimiter):
        self.f, self.encoding, self.delimiter = f, encoding, delimiter

    def __enter__(self):
        self.f.seek(0)
        self.text = io.TextIOWrapper(self.f, encoding=self.encoding, newline="", errors="strict")
        self.lines = _lines(self.text, self.encoding)
        reader = csv.reader(self.lines, delimiter=self.delimiter, strict=True)
        return reader, lambda: reader.line_num

    def __exit__(self, *exc):
        self.lines.close()
        self.text.detach()
        return False


def _lines(text, encoding):
    """Yield the lines of ``text``; a decoding error becomes ``DataError``."""
    while True:
        try:
            line = next(text)
        except StopIteration:
            return
        except UnicodeDecodeError:
            raise DataError(f"The file is not valid {encoding} text.") from None
        yield line


class ParquetSource:
    """A Parquet file read in record batches (needs ``pyarrow``)."""

    format = "parquet"
    encoding = ""
    delimiter = ""

    def __init__(self, f, limits=ReadLimits()):
        try:
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - pyarrow is a dependency
            raise DataError("Reading Parquet files needs the pyarrow package.") from None
        self.limits = limits
        self.notes = []
        try:
            self.file = pq.ParquetFile(f)
        except Exception as e:  # pyarrow raises several types for a broken file
            raise DataError(f"The file starts like Parquet but cannot be read ({_first_line(e)}).") from None
        schema = self.file.schema_arrow
        self.names = clean_header(schema.names, limits)
        for field in schema:
            _check_flat(field)
        self.n_rows = 0

    def chunks(self):
        """Yield lists of ``("num", float64 array)`` or ``("text", list)`` columns, one per batch."""
        self.n_rows = 0
        non_finite = 0
        try:
            batches = self.file.iter_batches(batch_size=chunk_rows(len(self.names)))
            for batch in batches:
                self.n_rows += batch.num_rows
                if self.n_rows > self.limits.max_rows:
                    raise DataError(f"The file has more than {self.limits.max_rows:,} rows, the most we accept.")
                columns = []
                for array in batch.columns:
                    kind, values = _arrow_column(array, self.limits)
                    if kind == "num":
                        bad = np.isinf(values)
                        non_finite += int(bad.sum())
                        values[bad] = np.nan
                    columns.append((kind, values))
                yield columns
        except DataError:
            raise
        except Exception as e:
            raise DataError(f"The Parquet file cannot be read ({_first_line(e)}).") from None
        if self.n_rows == 0:
            raise DataError("The file has columns but no data rows.")
        if non_finite:
            self.notes.append(f"{non_finite:,} infinite numbers were read as missing values.")


def _first_line(e):
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


def _check_flat(field):
    import pyarrow.types as pt

    t = field.type
    if pt.is_nested(t) or pt.is_map(t):
        raise DataError(f"Column {field.name!r} holds nested values ({t}); only flat columns can be used.")


def _arrow_column(array, limits):
    """Return ``("num", float64 array)`` or ``("text", list of str or None)`` for one Arrow column."""
    import pyarrow as pa
    import pyarrow.types as pt

    t = array.type
    if pt.is_dictionary(t):
        array, t = array.cast(t.value_type), t.value_type
    if pt.is_boolean(t) or pt.is_integer(t) or pt.is_floating(t) or pt.is_decimal(t):
        values = array.cast(pa.float64()).to_numpy(zero_copy_only=False)
        return "num", np.array(values, dtype=np.float64)
    if not (pt.is_string(t) or pt.is_large_string(t)):
        array = array.cast(pa.string())
    cells = array.to_pylist()
    longest = max((len(c) for c in cells if c is not None), default=0)
    if longest > limits.max_cell_chars:
        raise DataError(f"A cell holds more than {limits.max_cell_chars:,} characters; is this really a table?")
    return "text", cells
