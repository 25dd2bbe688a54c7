# Fuzz the ingest path with generated files: only plain-sentence DataErrors, never another exception, never a 500.
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corelsweb.datasets.models import Dataset
from solver.data import DataError, Roles, make_problem
from solver.data.profile import profile_file
from solver.data.reader import read_table

pytestmark = pytest.mark.security

cells = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "",
            "NA",
            "?",
            "nan",
            "-",
            "null",
            "=cmd|' /C calc'!A0",
            "<script>x</script>",
            "a,b",
            '"quoted ""x"""',
            "1e309",
            "0x1F",
            " 3 ",
            "é",
            "\u202e",
            "\x00",
        ]
    ),
    st.text(max_size=12),
)
delimiters = st.sampled_from([",", "\t", ";", "|"])
encodings = st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16"])


@st.composite
def tables(draw):
    n_cols = draw(st.integers(0, 8))
    n_rows = draw(st.integers(0, 12))
    delim = draw(delimiters)
    header = [draw(st.text(max_size=10)) for _ in range(n_cols)]
    rows = [[draw(cells) for _ in range(n_cols + draw(st.sampled_from([0, 0, 0, 1, -1])))] for _ in range(n_rows)]
    text = "\n".join(delim.join(r) for r in [header] + rows)
    if draw(st.booleans()):
        text += "\n"
    try:
        data = text.encode(draw(encodings))
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] + draw(st.binary(max_size=20)) + data[cut:]
    return data


files = st.one_of(tables(), st.binary(max_size=300), st.text(max_size=300).map(str.encode))


def ingest(data):
    """Profile, read and binarize ``data`` as the web and the worker do; return the problem or raise DataError."""
    profile = profile_file(io.BytesIO(data))
    table = read_table(io.BytesIO(data))
    names = [c["name"] for c in profile.columns]
    return make_problem(table, Roles(label=names[-1]), "exact")


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(files)
def test_ten_thousand_generated_files_only_ever_raise_data_errors(data):
    try:
        ingest(data)
    except DataError as e:
        message = str(e)
        assert message and "\n" not in message.strip() and "Traceback" not in message


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(files)
def test_generated_uploads_never_give_a_500(alice_client, alice, settings, data):
    settings.CORELSWEB_UPLOADS_PER_HOUR = 10**6  # the rate limit is tested elsewhere; here every upload is read
    before = Dataset.objects.count()
    response = alice_client.post(reverse("dataset-upload"), {"file": SimpleUploadedFile("f.csv", data, "text/csv")})
    assert response.status_code in (302, 400)
    assert Dataset.objects.count() == before + (response.status_code == 302)
    if response.status_code == 302:
        dataset = Dataset.objects.latest("pk")
        assert alice_client.get(dataset.get_absolute_url()).status_code == 200
