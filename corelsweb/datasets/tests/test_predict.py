# Check applying a run's model to a newly uploaded table: the link on the run page, the CSV download (same as the
# command line, formulas neutralized), clear messages for unusable files, and ownership.
import csv
import io
import subprocess
import sys

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from solver.models import model_from_dict
from tests.factories import make_dataset, make_finished_run

DATA = b"a,b,c,label\n0,1,2.5,=cmd|' /C calc'!A0\n1,0,3.5,no\n1,1,1.0,=cmd|' /C calc'!A0\n0,0,4.0,no\n"
NEW = b"c;a;b;id\n2.0;0;1;=HYPERLINK(x)\n9;1;1;k2\nNA;1;0;k3\n"


def predict(client, run, data, name="new.csv", **fields):
    return client.post(reverse("run-predict", args=[run.pk]), {"file": SimpleUploadedFile(name, data), **fields})


def test_the_run_page_links_to_predictions(alice_client, alice):
    run = make_finished_run(alice)
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert reverse("run-predict", args=[run.pk]) in page
    page = alice_client.get(reverse("run-predict", args=[run.pk])).content.decode()
    assert "Download predictions" in page


def test_it_downloads_predictions_with_formulas_neutralized(alice_client, alice):
    run = make_finished_run(alice, make_dataset(alice, DATA))
    r = predict(alice_client, run, NEW, id_column="id")
    assert r.status_code == 200 and r["Content-Disposition"].startswith("attachment")
    rows = list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))
    assert rows[0][:4] == ["row", "id", "prediction", "leaf"]
    assert [row[0] for row in rows[1:]] == ["1", "2", "3"]
    assert rows[1][1] == "'=HYPERLINK(x)"
    assert all(not cell.startswith("=") for row in rows for cell in row)
    model = model_from_dict(run.result["model"])
    from solver.data import read_table

    expected = [model.classes[i] for i in model.predict(read_table(NEW).columns)]
    assert [row[2].lstrip("'") for row in rows[1:]] == expected


def test_the_web_and_the_command_line_write_the_same_predictions(alice_client, alice, tmp_path):
    import json

    run = make_finished_run(alice, make_dataset(alice, DATA))
    web = b"".join(predict(alice_client, run, NEW).streaming_content).decode()
    (tmp_path / "result.json").write_text(json.dumps(run.result))
    (tmp_path / "new.csv").write_bytes(NEW)
    p = subprocess.run(
        [sys.executable, "-m", "solver", "predict", "result.json", "new.csv", "--out", "-"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.replace("\r\n", "\n") == web.replace("\r\n", "\n")


def test_unusable_files_get_a_clear_message(alice_client, alice):
    run = make_finished_run(alice)
    r = predict(alice_client, run, b"x,y\n1,2\n")
    assert r.status_code == 400 and "The data lacks" in r.content.decode() and "&#x27;c&#x27;" in r.content.decode()
    r = predict(alice_client, run, b"\x00\x01binary")
    assert r.status_code == 400 and "looks binary" in r.content.decode()
    r = predict(alice_client, run, b"a,b,c\n1,2\n")
    assert r.status_code == 400 and "Line 2 has 2 fields" in r.content.decode()


def test_text_where_numbers_are_compared_is_a_warning_not_an_error(alice_client, alice):
    run = make_finished_run(alice)
    r = predict(alice_client, run, b"a,b,c\n1,0,abc\n0,1,2\n")
    assert r.status_code == 200
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert "1 values of &#x27;c&#x27; are not numbers" in page


def test_it_checks_ownership(charlie_client, alice):
    run = make_finished_run(alice)
    assert charlie_client.get(reverse("run-predict", args=[run.pk])).status_code == 404
    assert predict(charlie_client, run, b"a,b,c\n1,2,3\n").status_code == 404
