# Check the whole path through a real Celery worker process, real Redis and real PostgreSQL.
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from conftest import make_user, shared_dataset
from corelsweb.datasets.models import Dataset
from corelsweb.runs.models import Run
from tests.conftest import wait_for_run

pytestmark = pytest.mark.integration


def test_a_cart_run_goes_through_the_queue_and_stores_its_result(client, celery_worker_process):
    alice = make_user("alice")
    client.force_login(alice)
    data = shared_dataset("compas-gosdt.csv").read_bytes()
    client.post(reverse("dataset-upload"), {"file": SimpleUploadedFile("compas.csv", data, "text/csv")})
    dataset = Dataset.objects.get(owner=alice)
    assert dataset.roles == {"label": "two_year_recid"}
    r = client.post(
        reverse("run-new", args=[dataset.pk, "cart"]),
        {
            "time_limit": 60,
            "memory_limit_mb": 2048,
            "p_max_depth": 3,
            "p_min_samples_leaf": 5,
            "p_criterion": "gini",
            "p_regularization": 0.001,
        },
    )
    run = Run.objects.get()
    assert r.url == run.get_absolute_url()
    run = wait_for_run(run.pk)
    assert run.status == Run.Status.HEURISTIC, run.error
    assert run.worker and run.attempts == 1
    result = run.result
    assert result["problem"]["n_samples"] == 6907
    assert 0.6 < result["metrics"]["accuracy"] < 0.8
    assert result["model"]["type"] == "tree"
    texts = [f"{p['column']}" for p in result["model"]["features"].values()]
    assert set(texts) <= {
        "age",
        "priors_count",
        "juv_fel_count",
        "juv_misd_count",
        "juvenile_crimes",
        "sex=female",
        "current_charge_degree=felony",
    }
    page = client.get(run.get_absolute_url()).content.decode()
    assert 'data-figure="fig-model"' in page


def test_a_run_cancelled_while_queued_is_never_executed(client, celery_worker_process):
    alice = make_user("alice")
    client.force_login(alice)
    client.post(reverse("dataset-sample"), {"sample": "monk1"})
    dataset = Dataset.objects.get(owner=alice)
    run = Run.objects.create(
        owner=alice,
        dataset=dataset,
        algorithm="cart",
        params={"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0},
        limits={"time_limit": 30},
        roles=dataset.roles,
        status=Run.Status.QUEUED,
    )
    client.post(reverse("run-cancel", args=[run.pk]))
    from corelsweb.runs.tasks import execute_run_task

    execute_run_task.delay(run.pk)  # delivered to a cancelled run: the claim refuses it
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    other = Run.objects.create(
        owner=alice,
        dataset=dataset,
        algorithm="cart",
        params=run.params,
        limits={"time_limit": 30},
        roles=dataset.roles,
    )
    execute_run_task.delay(other.pk)
    assert wait_for_run(other.pk).status == Run.Status.HEURISTIC
    assert Run.objects.get(pk=run.pk).status == Run.Status.CANCELLED


def test_a_cv_path_is_shared_by_two_worker_processes_and_every_cell_is_accounted_for(
    client, transactional_db, media_for_workers
):
    import time

    from corelsweb.runs import paths
    from corelsweb.runs.models import RegularizationPath
    from tests.conftest import WorkerProcess, purge_queue, require_real_services

    require_real_services()
    purge_queue()
    workers = [WorkerProcess("cv1"), WorkerProcess("cv2")]
    try:
        for w in workers:
            w.wait_ready()
        alice = make_user("alice")
        client.force_login(alice)
        client.post(reverse("dataset-sample"), {"sample": "tic-tac-toe"})
        dataset = Dataset.objects.get(owner=alice)
        client.post(
            reverse("path-new", args=[dataset.pk, "cart"]),
            {
                "lambdas": "0.001, 0.005, 0.01, 0.02, 0.05",
                "folds": 4,
                "seed": 1,
                "time_limit": 60,
                "memory_limit_mb": 1024,
                "p_max_depth": 4,
                "p_min_samples_leaf": 1,
                "p_criterion": "gini",
            },
        )
        path = RegularizationPath.objects.get()
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            path.refresh_from_db()
            if path.status in (RegularizationPath.Status.COMPLETE, RegularizationPath.Status.INCOMPLETE):
                break
            time.sleep(0.5)
        assert path.status == RegularizationPath.Status.COMPLETE
        cells = paths.cells(path)
        assert len(cells) == 20 and all(r.status == Run.Status.HEURISTIC for r in cells.values())
        assert len({r.worker for r in cells.values()}) == 2  # both worker processes took cells
        assert all(r.attempts == 1 for r in cells.values())
        assert sum(r.result["holdout"]["n_samples"] for r in cells.values()) == 5 * 958
        assert path.refit_run.status == Run.Status.HEURISTIC
        assert path.refit_run.params["regularization"] == path.chosen_lambda
    finally:
        for w in workers:
            w.stop()
