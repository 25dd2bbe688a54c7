"""The pyarrow CSV path reads every file as the csv module does: same table, same notes, same refusal."""

import io

import numpy as np
import pytest

from solver.data import DataError, profile_file, read_table
from solver.data import source as source_module
from tests.corpus import corpus

CORPUS = corpus()

EXTRA = {
    "quoted cells with delimiters and newlines": b'a,b,c\n"x, y",1,"two\nlines"\n"say ""hi""",2,z\n',
    "an inch mark in an unquoted cell": b'a,b\n5",1\n6",2\n',
    "blank lines between rows": b"a,b\n1,2\n\n3,4\n\n",
    "blank lines before the header": b"\n\na,b\n1,x\n2,y\n",
    "numbers Python reads and pyarrow does not": b"a,b\n1_000,x\n\xef\xbc\x91\xef\xbc\x92,y\n 3 ,z\n",
    "infinity and nan spellings": b"a,b,c\ninf,-nan,1\n2,NaN,x\n3,4,5\n",
    "a byte-order mark": b"\xef\xbb\xbfa,b\n1,x\n2,y\n",
    "semicolons": b"a;b;c\n1,5;x;NA\n2,5;y;3\n",
    "crlf line ends": b"a,b\r\n1,x\r\n2,y\r\n",
    "a trailing blank line": b"a,b\n1,x\n2,y\n\n",
}


def read(data, arrow):
    source_module.ARROW_MIN_BYTES = 0 if arrow else 1 << 62
    try:
        table = read_table(data)
        profile = profile_file(io.BytesIO(data))
    except DataError as e:
        return ("error", str(e))
    finally:
        source_module.ARROW_MIN_BYTES = source_module.SAMPLE_BYTES
    columns = {
        name: [None if v is None or v != v else v for v in values.tolist()] for name, values in table.columns.items()
    }
    kinds = {name: values.dtype.kind for name, values in table.columns.items()}
    return (columns, kinds, table.notes, profile.columns, profile.preview, profile.notes, profile.n_rows)


# The csv module stops at its own field limit (131,072 characters) with its words; pyarrow reads the cell and
# the size check names the column and our limit. Both refuse the file.
CLEARER = {"cell beyond the csv field limit"}


# Check the two CSV paths agree on the malformed-file corpus and on quoting and typing corner cases.
@pytest.mark.parametrize("name", sorted((set(CORPUS) | set(EXTRA)) - CLEARER))
def test_it_reads_each_file_as_the_csv_module_does(name):
    data = EXTRA[name] if name in EXTRA else CORPUS[name][0]
    assert read(data, arrow=True) == read(data, arrow=False)


# Check the one file where the paths' words differ is refused by both, pyarrow's naming the column.
@pytest.mark.parametrize("name", sorted(CLEARER))
def test_it_refuses_an_enormous_cell_either_way(name):
    data, fragment = CORPUS[name]
    arrow, python = read(data, arrow=True), read(data, arrow=False)
    assert arrow[0] == python[0] == "error"
    assert fragment in arrow[1] and "column 'b'" in arrow[1]


# Check a large file with a stray quote far down still gets the csv module's refusal, not pyarrow's leniency.
def test_it_refuses_a_stray_quote_in_a_large_file():
    data = b"a,b\n" + b"1,x\n" * 30_000 + b'"ab"c,d\n'
    with pytest.raises(DataError, match="must be doubled"):
        read_table(data)


# Check a large well-formed file goes through pyarrow and keeps the csv module's typing rules.
def test_it_types_a_large_file_like_the_csv_module(monkeypatch):
    rows = [b"%d,%s,%s\n" % (i, b"NA" if i % 7 == 0 else b"%d.5" % i, b"01" if i % 2 else b"x") for i in range(30_000)]
    data = b"n,v,t\n" + b"".join(rows)
    calls = []
    original = source_module.CsvSource._arrow_chunks

    def spy(self):
        calls.append(1)
        return (yield from original(self))

    monkeypatch.setattr(source_module.CsvSource, "_arrow_chunks", spy)
    table = read_table(data)
    assert calls
    assert table["n"].dtype.kind == "f" and table["t"].dtype.kind == "O"
    assert np.isnan(table["v"][0]) and table["v"][1] == 1.5
    assert table["t"][1] == "01"
