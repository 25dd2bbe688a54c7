# Check that a regularization path always ends: every way a cell can end reaches the path's fan-in.
import subprocess
from unittest import mock

from django.urls import reverse

from corelsweb.runs import lifecycle, paths, recovery, services
from corelsweb.runs.models import RegularizationPath, Run
from corelsweb.runs.tasks import execute_run_task
from tests.factories import make_dataset

DATA = b"x1,x2,x3,y\n" + b"".join(
    f"{i % 2},{(i // 2) % 2},{(i * 7) % 5},{int((i % 2) ^ ((i // 2) % 2) or i % 7 == 0)}\n".encode() for i in range(60)
)
PARAMS = {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini"}


def queued_path(alice, folds=2):
    # Cells stay queued: the test decides when each one runs.
    return paths.create_path(alice, make_dataset(alice, DATA), "cart", PARAMS, {"time_limit": 30}, [0.01], folds)


def dead_worker():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return f"{lifecycle.host_id()}:{proc.pid}"


def run_cell(run, capture):
    with capture(execute=True):
        execute_run_task.delay(run.pk)


def test_a_cell_cancelled_while_queued_ends_the_path_and_can_be_retried(
    alice, alice_client, eager_celery, django_capture_on_commit_callbacks
):
    path = queued_path(alice)
    first, second = paths.cells(path)[(0.01, 0)], paths.cells(path)[(0.01, 1)]
    run_cell(first, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        services.cancel_run(second)
    path.refresh_from_db()
    assert path.status == RegularizationPath.Status.INCOMPLETE
    page = alice_client.get(path.get_absolute_url()).content.decode()
    assert reverse("path-retry-cell", args=[path.pk, second.pk]) in page
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("path-retry-cell", args=[path.pk, second.pk]))
    path.refresh_from_db()
    assert path.status == RegularizationPath.Status.COMPLETE and path.refit_run.status == Run.Status.HEURISTIC


def test_a_cell_whose_attempts_are_used_up_ends_the_path(
    alice, eager_celery, settings, django_capture_on_commit_callbacks
):
    path = queued_path(alice)
    first, second = paths.cells(path)[(0.01, 0)], paths.cells(path)[(0.01, 1)]
    run_cell(first, django_capture_on_commit_callbacks)
    Run.objects.filter(pk=second.pk).update(
        status=Run.Status.RUNNING, worker=dead_worker(), attempts=settings.CORELSWEB_MAX_ATTEMPTS
    )
    with django_capture_on_commit_callbacks(execute=True):
        recovery.reconcile()
    second.refresh_from_db()
    path.refresh_from_db()
    assert second.status == Run.Status.FAILED and "not retried again" in second.error
    assert path.status == RegularizationPath.Status.INCOMPLETE


def test_a_redelivered_cell_whose_attempts_are_used_up_ends_the_path(
    alice, eager_celery, settings, django_capture_on_commit_callbacks
):
    path = queued_path(alice)
    first, second = paths.cells(path)[(0.01, 0)], paths.cells(path)[(0.01, 1)]
    run_cell(first, django_capture_on_commit_callbacks)
    Run.objects.filter(pk=second.pk).update(
        status=Run.Status.RUNNING, worker=dead_worker(), attempts=settings.CORELSWEB_MAX_ATTEMPTS
    )
    run_cell(second, django_capture_on_commit_callbacks)  # the broker redelivers it
    path.refresh_from_db()
    assert Run.objects.get(pk=second.pk).status == Run.Status.FAILED
    assert path.status == RegularizationPath.Status.INCOMPLETE


def test_a_cell_stopped_by_the_hard_limit_ends_the_path(
    alice, eager_celery, settings, django_capture_on_commit_callbacks
):
    # The test-only fault makes every solve stop returning to Python (a kernel holding the GIL).
    settings.CORELSWEB_TEST_FAULT = "hold-gil"
    settings.CORELSWEB_HARD_LIMIT_GRACE_SECONDS = 1
    path = paths.create_path(alice, make_dataset(alice, DATA), "cart", PARAMS, {"time_limit": 1}, [0.01], 2)
    for cell in paths.cells(path).values():
        run_cell(cell, django_capture_on_commit_callbacks)
    cell.refresh_from_db()
    path.refresh_from_db()
    assert cell.status == Run.Status.FAILED and "did not return within 2 s" in cell.error, cell.error
    assert path.status == RegularizationPath.Status.INCOMPLETE


def test_the_cart_baseline_runs_as_its_own_task(alice, eager_celery, django_capture_on_commit_callbacks):
    from celery import current_task

    tasks = []
    real = paths.cart_baseline

    def recording(path, grid):
        tasks.append(current_task.name)
        return real(path, grid)

    with (
        mock.patch.object(paths, "cart_baseline", side_effect=recording),
        django_capture_on_commit_callbacks(execute=True),
    ):
        path = paths.create_path(
            alice, make_dataset(alice, DATA), "osdt", {"max_depth": 2}, {"time_limit": 30}, [0.01, 0.05], 2
        )
    path.refresh_from_db()
    assert tasks == ["corelsweb.runs.tasks.path_summary_task"]
    assert path.status == RegularizationPath.Status.COMPLETE
    assert all(row["cart"] is not None for row in path.summary)
