"""Malformed and hostile files, each with what reading it must say.

``CORPUS`` maps a name to ``(bytes, fragment)``: ``fragment`` is a piece of
the one-sentence ``DataError`` message, or None when the file must be
accepted (and then made harmless where it is shown or exported).
"""

import gzip
import io
import random
import zipfile


def _parquet(columns):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table(columns), out)
    return out.getvalue()


def _zip():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("sheet.xml", "<sheet/>" * 100)
    return out.getvalue()


def _junk(seed, n=4096):
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


ROWS = b"".join(b"%d,%d,%s\n" % (i, i % 7, b"yes" if i % 3 else b"no") for i in range(40))

CORPUS = {
    # Not a table at all.
    "empty": (b"", "empty"),
    "whitespace only": (b"  \n\t\n   ", "empty"),
    "png image": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + _junk(1, 200), "looks binary"),
    "random junk": (_junk(2), "looks binary"),
    "control characters": (bytes(range(1, 32)) * 50, "looks binary"),
    "gzip of a csv": (gzip.compress(b"a,b\n1,2\n" * 100), "looks binary"),
    "xlsx-like zip": (_zip(), "save it as CSV"),
    "nul byte late in the file": (b"a,b\n" + b"1,2\n" * 20_000 + b"3,\x004\n", "looks binary"),
    "truncated parquet": (b"PAR1" + _junk(3, 100), "starts like Parquet but cannot be read"),
    # Broken structure.
    "header only": (b"a,b,c\n", "no data rows"),
    "numbers as header": (b"1,2,3\n4,5,6\n", "needs a header row"),
    "single column": (b"only\n1\n2\n3\n", "single column"),
    "ragged row, too many": (b"a,b\n1,2\n1,2,3\n", "Line 3 has 3 fields but the header has 2"),
    "ragged row, too few": (b"a,b,c\n1,2,3\n4\n", "Line 3 has 1 field but the header has 3"),
    "unclosed quote": (b'a,b\n1,"abc\n2,3\n', "a quoted cell is never closed"),
    "stray quote in quoted cell": (b'a,b\n"ab"c,d\n', "must be doubled"),
    "10,000 columns": (
        b",".join(b"c%d" % j for j in range(10_000)) + b"\n" + b",".join(b"1" for _ in range(10_000)) + b"\n",
        "10,000 columns; we accept at most 5,000",
    ),
    "duplicated header names": (b"a,b,a\n1,2,3\n", "'a' appears twice"),
    "empty header name": (b"a,,c\n1,2,3\n", "Column 2 of the header row has no name"),
    "overlong header name": (b"a," + b"n" * 300 + b"\n1,2\n", "name longer than 200 characters"),
    "overlong cell": (b"a,b\n1," + b"x" * 20_000 + b"\n", "more than 10,000 characters"),
    "cell beyond the csv field limit": (b'a,b\n1,"' + b"x" * 200_000 + b'"\n', "holds more than"),
    "json instead of csv": (b'{"a": 1, "b": [1, 2, 3]}\n', "no data rows"),
    "nested parquet column": (None, "nested values"),
    # Accepted, and made harmless where shown or exported.
    "formula injection cells": (b"x,label\n0,=cmd|' /C calc'!A0\n1,ok\n0,=cmd|' /C calc'!A0\n1,ok\n", None),
    "html and script in header names": (b"<script>alert(1)</script>,<b onmouseover=x>y</b>\n1,a\n0,b\n1,a\n", None),
    "mixed types in a column": (b"x,label\n1,a\n2,b\nthree,a\n4.5,b\n", None),
    "all-missing column": (b"x,empty,label\n1,,a\n2,NA,b\n3,?,a\n", None),
    "missing labels": (b"x,label\n1,a\n2,\n3,b\n4,NA\n5,a\n", None),
    "a label with one class": (b"x,label\n1,a\n2,a\n3,a\n", None),
    "blank lines everywhere": (b"\n\na,label\n\n1,x\n\n\n2,y\n\n", None),
    "crlf line endings": (b"a,label\r\n1,x\r\n2,y\r\n", None),
    "utf-16 with bom": ("a,label\n1,é\n2,ü\n".encode("utf-16"), None),
    "latin-1": ("ville,label\nSão Paulo,a\nZürich,b\n".encode("latin-1"), None),
    "semicolons and decimal points": (b"a;b;label\n1.5;x;y\n2.5;z;n\n", None),
    "infinity and nan spelled out": (b"x,label\ninf,a\nnan,b\n-inf,a\n", None),
    "identifier column": (b"id,x,label\n" + ROWS, None),
    "parquet": (None, None),
}


def corpus():
    """Return ``{name: (bytes, fragment)}`` with the Parquet entries built (needs pyarrow)."""
    out = dict(CORPUS)
    out["nested parquet column"] = (_parquet({"a": [[1, 2], [3]], "b": [1, 2]}), "nested values")
    out["parquet"] = (_parquet({"age": [20.5, None, 40.0], "city": ["x", "y", None], "label": ["a", "b", "a"]}), None)
    return out
