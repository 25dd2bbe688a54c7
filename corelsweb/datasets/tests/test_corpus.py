# Check uploading every file of the hostile corpus: a clear message and a 400, or a dataset whose page escapes
# the file's names; never a 500, and nothing half-written in the database or the file storage.
import html

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from corelsweb.datasets.models import Dataset
from tests.corpus import corpus

CORPUS = corpus()
URL = reverse("dataset-upload")


def stored_files(settings):
    root = settings.MEDIA_ROOT / "datasets"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def upload(client, data, name="data.csv"):
    return client.post(URL, {"file": SimpleUploadedFile(name, data, "text/csv")})


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_corpus_file_gets_a_clear_answer_and_leaves_nothing_half_written(alice_client, alice, settings, name):
    data, fragment = CORPUS[name]
    r = upload(alice_client, data)
    page = r.content.decode()
    if fragment is not None:
        assert r.status_code == 400
        assert html.escape(fragment) in page, page[-3000:]
        assert not Dataset.objects.exists() and stored_files(settings) == []
        return
    assert r.status_code == 302, page[-3000:]
    dataset = Dataset.objects.get()
    assert stored_files(settings) == [settings.MEDIA_ROOT / dataset.file.name]
    detail = alice_client.get(r.url)
    assert detail.status_code == 200
    text = detail.content.decode()
    for column in dataset.column_names:
        assert html.escape(column) in text
    assert "<script>alert(1)" not in text and "<b onmouseover" not in text


def test_a_five_gigabyte_claim_is_refused_before_reading(alice_client, alice, settings):
    # The client claims 5 GB and has sent the first 256 KB; the server must stop reading at the file's start.
    boundary = "BoUnDaRy"
    start = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\n'
        "Content-Type: text/csv\r\n\r\na,b\n"
    ).encode()
    body = start + b"1,2\n" * (64 * 1024)
    r = alice_client.post(
        URL, body, content_type=f"multipart/form-data; boundary={boundary}", CONTENT_LENGTH=str(5 * 2**30)
    )
    assert r.status_code == 400
    assert "The file is 5.0 GB; the limit is 256.0 MB." in r.content.decode()
    assert not Dataset.objects.exists() and stored_files(settings) == []


@pytest.mark.parametrize(
    "setting, value, message",
    [
        ("CORELSWEB_MAX_ROWS", 10, "more than 10 rows, the most we accept"),
        ("CORELSWEB_MAX_COLUMNS", 2, "has 3 columns; we accept at most 2"),
        ("CORELSWEB_MAX_CELL_CHARS", 3, "holds more than 3 characters"),
        ("CORELSWEB_MAX_UPLOAD_BYTES", 50, "the limit is 50 bytes"),
    ],
)
def test_each_limit_is_a_setting_and_is_told_in_plain_words(alice_client, alice, settings, setting, value, message):
    setattr(settings, setting, value)
    r = upload(alice_client, b"a,b,label\n" + b"1,2,yes\n1234,5,no\n" * 10)
    assert r.status_code == 400 and message in r.content.decode()
    assert not Dataset.objects.exists() and stored_files(settings) == []


def test_a_failing_database_write_removes_the_stored_file(alice_client, alice, settings, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("database is down")

    monkeypatch.setattr(Dataset, "save", fail)
    with pytest.raises(RuntimeError):
        upload(alice_client, b"a,label\n1,x\n2,y\n")
    assert stored_files(settings) == []
