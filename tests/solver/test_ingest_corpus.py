# Check every malformed or hostile file of the corpus: one plain-sentence DataError, or a clean read.
import io

import pytest

from solver.data import DataError, profile_file, read_table
from tests.corpus import corpus

CORPUS = corpus()


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_file_is_refused_with_a_clear_sentence_or_read_cleanly(name):
    data, fragment = CORPUS[name]
    if fragment is None:
        profile = profile_file(io.BytesIO(data))
        table = read_table(data)
        assert table.n_rows == profile.n_rows > 0 and table.names == profile.names
        return
    for read in (lambda: profile_file(io.BytesIO(data)), lambda: read_table(data)):
        with pytest.raises(DataError) as caught:
            read()
        message = str(caught.value)
        assert fragment in message, message
        assert message[-1] in ".?" and "\n" not in message and "Traceback" not in message


def test_the_corpus_has_at_least_thirty_files():
    assert len(CORPUS) >= 30


def test_hostile_names_and_values_are_kept_as_text():
    table = read_table(CORPUS["html and script in header names"][0])
    assert table.names == ["<script>alert(1)</script>", "<b onmouseover=x>y</b>"]
    table = read_table(CORPUS["formula injection cells"][0])
    assert table["label"][0] == "=cmd|' /C calc'!A0"
    table = read_table(CORPUS["infinity and nan spelled out"][0])
    assert table["x"].tolist() == ["inf", None, "-inf"]  # not numbers: 'nan' is a missing value
