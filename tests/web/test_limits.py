# Check rate limits and quotas: sign-in lockout, upload rate, storage and active-run quotas, stored names.
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from corelsweb.datasets.models import Dataset
from corelsweb.runs.models import Run
from tests.factories import SMALL_CSV, make_dataset, make_run

pytestmark = pytest.mark.security


def test_repeated_failed_sign_ins_are_locked_out(client, alice, settings):
    settings.CORELSWEB_LOGIN_FAILURES = 3
    for _ in range(2):
        assert client.post(reverse("login"), {"username": "alice", "password": "wrong"}).status_code == 200
    assert client.post(reverse("login"), {"username": "alice", "password": "wrong"}).status_code == 429
    r = client.post(reverse("login"), {"username": "alice", "password": "alice-password-123"})
    assert r.status_code == 429 and "Too many failed sign-ins" in r.content.decode()
    assert r["Retry-After"]


def test_a_successful_sign_in_is_not_counted(client, alice, settings):
    settings.CORELSWEB_LOGIN_FAILURES = 2
    for _ in range(5):
        assert client.post(reverse("login"), {"username": "alice", "password": "alice-password-123"}).status_code == 302
        client.logout()


def test_uploads_are_rate_limited(alice_client, alice, settings):
    settings.CORELSWEB_UPLOADS_PER_HOUR = 2
    # Three different files: the same file again would open its first copy, not count as an upload.
    codes = [
        alice_client.post(
            reverse("dataset-upload"),
            {"file": SimpleUploadedFile("a.csv", SMALL_CSV.replace(b"label", f"label{k}".encode()), "text/csv")},
        ).status_code
        for k in range(3)
    ]
    assert codes == [302, 302, 400]
    assert Dataset.objects.count() == 2


def test_the_storage_quota_holds(alice_client, alice, settings):
    settings.CORELSWEB_MAX_STORAGE_BYTES = len(SMALL_CSV) + 10
    make_dataset(alice)
    other = SMALL_CSV.replace(b"a,b", b"x,b")  # another file (the same one would open its first copy)
    r = alice_client.post(reverse("dataset-upload"), {"file": SimpleUploadedFile("a.csv", other, "text/csv")})
    assert r.status_code == 400 and "delete some" in r.content.decode()


def test_the_active_run_quota_holds(alice_client, alice, settings):
    settings.CORELSWEB_MAX_ACTIVE_RUNS = 1
    dataset = make_dataset(alice)
    make_run(alice, dataset)
    r = alice_client.post(
        reverse("run-new", args=[dataset.pk, "cart"]),
        {
            "time_limit": 30,
            "memory_limit_mb": 512,
            "p_max_depth": 2,
            "p_min_samples_leaf": 1,
            "p_criterion": "gini",
            "p_regularization": 0.0,
        },
    )
    assert r.status_code == 400 and "at most 1" in r.content.decode()
    assert Run.objects.count() == 1


def test_stored_file_names_never_come_from_the_upload(alice_client, alice):
    alice_client.post(
        reverse("dataset-upload"), {"file": SimpleUploadedFile("../../etc/passwd.csv", SMALL_CSV, "text/csv")}
    )
    dataset = Dataset.objects.get()
    assert ".." not in dataset.file.name and "passwd" not in dataset.file.name
    assert dataset.original_filename == "passwd.csv"  # Django keeps only the base name
