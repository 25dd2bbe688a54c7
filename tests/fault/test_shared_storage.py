# Check that uploads live in the S3-compatible store that every host reads: under names of our own, within the
# quota, gone with their dataset, and solved by a worker process that has no local copy of anything.
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from conftest import make_user, shared_dataset
from corelsweb.datasets.models import Dataset
from corelsweb.runs.models import Run
from tests.conftest import WorkerProcess, purge_queue, require_real_services, wait_for_run
from tests.factories import run_form_data

pytestmark = [pytest.mark.fault, pytest.mark.integration]


def test_uploads_live_in_shared_storage_that_a_worker_elsewhere_reads(client, transactional_db, s3, tmp_path, settings):
    require_real_services()
    purge_queue()
    server, bucket, env = s3
    settings.MEDIA_ROOT = tmp_path / "web-media"
    alice = make_user("alice")
    client.force_login(alice)
    data = shared_dataset("monk1.csv").read_bytes()
    r = client.post(reverse("dataset-upload"), {"file": SimpleUploadedFile("../../etc/passwd.csv", data, "text/csv")})
    dataset = Dataset.objects.get()
    assert r.status_code == 302 and dataset.size_bytes == len(data)
    assert server.keys(bucket) == [dataset.file.name]
    assert "passwd" not in dataset.file.name and ".." not in dataset.file.name
    assert not (tmp_path / "web-media").exists()  # nothing on this machine's disk
    worker = WorkerProcess("elsewhere", extra_env={**env, "MEDIA_ROOT": str(tmp_path / "worker-media")}).wait_ready()
    try:
        client.post(reverse("run-new", args=[dataset.pk, "cart"]), run_form_data("cart", max_depth=3))
        run = wait_for_run(Run.objects.get().pk, timeout=120)
        assert run.status == Run.Status.HEURISTIC, run.error
        assert run.result["problem"]["n_samples"] == dataset.n_rows
    finally:
        worker.stop()
    assert not (tmp_path / "worker-media").exists()
    # The same file again opens the first copy, read back from the bucket to compare; nothing is stored twice.
    r = client.post(reverse("dataset-upload"), {"file": SimpleUploadedFile("again.csv", data, "text/csv")})
    assert r.status_code == 302 and r["Location"] == dataset.get_absolute_url()
    settings.CORELSWEB_MAX_STORAGE_BYTES = len(data) + 10  # the quota counts what is stored in the bucket
    other = data.replace(b"class_1", b"class_one")
    r = client.post(reverse("dataset-upload"), {"file": SimpleUploadedFile("other.csv", other, "text/csv")})
    assert r.status_code == 400 and "delete some" in r.content.decode()
    assert server.keys(bucket) == [dataset.file.name]
    client.post(reverse("dataset-delete", args=[dataset.pk]))
    assert server.keys(bucket) == [] and not Dataset.objects.exists()
