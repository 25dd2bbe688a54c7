# Check uploading: good files become datasets; bad files get a clear message, a 400, and store nothing.
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from corelsweb.datasets.models import Dataset
from tests.factories import SMALL_CSV, make_dataset

URL = reverse("dataset-upload")


def upload(client, data, name="data.csv"):
    return client.post(URL, {"file": SimpleUploadedFile(name, data, "text/csv")})


def test_it_uploads_a_csv_and_profiles_it(alice_client, alice):
    r = upload(alice_client, SMALL_CSV)
    dataset = Dataset.objects.get(owner=alice)
    assert r.status_code == 302 and r.url == dataset.get_absolute_url()
    assert (dataset.n_rows, dataset.n_columns) == (6, 4)
    assert dataset.roles == {"label": "label"}
    assert dataset.label_counts() == {"no": 3, "yes": 3}
    assert dataset.file.read() == SMALL_CSV
    assert "label" not in dataset.file.name and dataset.file.name.startswith(f"datasets/{alice.pk}/")


def test_the_dataset_page_shows_preview_types_and_balance(alice_client, alice):
    dataset = make_dataset(alice)
    r = alice_client.get(dataset.get_absolute_url())
    assert r.status_code == 200
    page = r.content.decode()
    assert "Label balance" in page and "binary" in page and "2.5" in page


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "looks binary"),
        (b"", "The submitted file is empty"),
        (b"1,2,3\n4,5,6\n", "needs a header row"),
        (b"a,b\n1,2\n1,2,3\n", "Line 3 has 3 fields"),
    ],
)
def test_bad_files_get_a_clear_message_and_store_nothing(alice_client, alice, data, message):
    existing = make_dataset(alice, name="kept")
    r = upload(alice_client, data)
    assert r.status_code == 400
    assert message in r.content.decode()
    assert list(Dataset.objects.filter(owner=alice)) == [existing]
    assert existing.file.read() == SMALL_CSV


def test_a_file_over_the_size_limit_is_refused(alice_client, alice, settings):
    settings.CORELSWEB_MAX_UPLOAD_BYTES = 100
    r = upload(alice_client, SMALL_CSV * 10)
    assert r.status_code == 400
    assert "the limit is" in r.content.decode()
    assert not Dataset.objects.exists()


def test_a_label_with_one_class_is_not_chosen_and_the_user_is_told(alice_client, alice):
    r = upload(alice_client, b"x,y\n1,same\n2,same\n3,same\n")
    dataset = Dataset.objects.get(owner=alice)
    assert dataset.roles == {}
    page = alice_client.get(r.url).content.decode()
    assert "cannot be the label" in page


def test_choosing_a_one_class_label_is_refused(alice_client, alice):
    dataset = make_dataset(alice, b"x,y,z\n1,a,k\n2,b,k\n3,a,k\n")
    r = alice_client.post(dataset.get_absolute_url(), {"label": "z", "binarization": "exact"})
    assert r.status_code == 400
    assert "only one class" in r.content.decode()
    dataset.refresh_from_db()
    assert dataset.roles == {}  # unchanged: the upload could not pick the constant last column either


def test_names_from_the_file_are_escaped(alice_client, alice):
    dataset = make_dataset(alice, b"<script>alert(1)</script>,label\n1,a\n0,b\n")
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_it_adds_a_sample(alice_client, alice):
    r = alice_client.post(reverse("dataset-sample"), {"sample": "monk1"})
    dataset = Dataset.objects.get(owner=alice)
    assert r.url == dataset.get_absolute_url()
    assert dataset.n_rows == 124 and dataset.roles == {"label": "class_1"}


def test_it_requires_sign_in(client):
    r = client.get(URL)
    assert r.status_code == 302 and "/accounts/login/" in r.url
