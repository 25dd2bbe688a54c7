# Check the task adapter: claims once, stores results and failures, honours cancellation.
import os
import socket
import subprocess
from datetime import timedelta
from unittest import mock

from django.utils import timezone

from corelsweb.runs import services
from corelsweb.runs.models import Run
from corelsweb.runs.tasks import execute_run_task
from tests.factories import make_dataset, make_run


def test_it_claims_a_run_only_once(alice):
    run = make_run(alice)
    assert services.claim_run(run.pk, "w1")
    assert not services.claim_run(run.pk, "w2")
    run.refresh_from_db()
    assert run.worker == "w1" and run.attempts == 1 and run.status == Run.Status.RUNNING


def live_worker():
    # The parent of this process is alive for as long as the test runs.
    return f"{socket.gethostname()}:{os.getppid()}"


def dead_worker():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return f"{socket.gethostname()}:{proc.pid}"


def test_a_second_delivery_of_a_run_a_live_worker_holds_does_nothing(alice, eager_celery):
    run = make_run(alice, status=Run.Status.RUNNING, worker=live_worker(), heartbeat=timezone.now(), attempts=1)
    execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and run.worker == live_worker() and run.result is None


def test_a_redelivered_run_whose_worker_died_is_taken_over(alice, eager_celery):
    run = make_run(alice, status=Run.Status.RUNNING, worker=dead_worker(), heartbeat=timezone.now(), attempts=1)
    execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.HEURISTIC and run.attempts == 2 and run.worker == services.worker_id()


def test_a_worker_on_another_host_is_presumed_dead_only_when_its_heartbeat_is_stale(alice, settings):
    fresh = make_run(alice, status=Run.Status.RUNNING, worker="elsewhere:1", heartbeat=timezone.now(), attempts=1)
    assert not services.claim_run(fresh.pk, "me:1")
    old = timezone.now() - timedelta(seconds=settings.CORELSWEB_STALE_SECONDS + 1)
    stale = make_run(alice, status=Run.Status.RUNNING, worker="elsewhere:2", heartbeat=old, attempts=1)
    assert services.claim_run(stale.pk, "me:1")


def test_a_run_whose_workers_keep_dying_fails_after_max_attempts(alice, settings):
    run = make_run(alice, status=Run.Status.RUNNING, worker=dead_worker(), heartbeat=timezone.now(),
                   attempts=settings.CORELSWEB_MAX_ATTEMPTS)
    assert not services.claim_run(run.pk, "me:1")
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "started 3 times" in run.error


def test_the_reconciler_requeues_orphans(alice, eager_celery, django_capture_on_commit_callbacks):
    from corelsweb.runs import recovery

    run = make_run(alice, status=Run.Status.RUNNING, worker=dead_worker(), heartbeat=timezone.now(), attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert recovery.reconcile()["requeued_orphans"] == 1
    run.refresh_from_db()
    assert run.status == Run.Status.HEURISTIC and run.attempts == 2


def test_it_stores_the_result(alice, eager_celery):
    run = make_run(alice)
    execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.HEURISTIC and run.result["status"] == "heuristic"
    assert run.finished is not None and run.progress == {}


def test_a_data_problem_fails_with_a_plain_message(alice, eager_celery):
    run = make_run(alice, dataset=make_dataset(alice))
    Run.objects.filter(pk=run.pk).update(roles={"label": "gone"})
    execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "no column named 'gone'" in run.error
    assert run.dataset.file.read()  # the upload is still there


def test_an_internal_error_keeps_the_traceback_for_staff(alice, eager_celery):
    run = make_run(alice)
    with mock.patch("corelsweb.runs.services.solve", side_effect=RuntimeError("kaboom")):
        execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "internal error (RuntimeError)" in run.error and "kaboom" in run.traceback


def test_the_progress_writer_reads_the_cancel_flag(alice):
    run = make_run(alice, status=Run.Status.RUNNING)
    writer = services.ProgressWriter(run.pk, interval=0)
    point = {"elapsed": 0.1, "lower_bound": 0.1, "upper_bound": 0.3, "nodes": 5, "status": "running"}
    assert writer(point) is True
    run.refresh_from_db()
    assert run.progress["nodes"] == 5 and run.trace["nodes"] == [5]
    Run.objects.filter(pk=run.pk).update(cancel_requested=True)
    assert writer(dict(point, nodes=9)) is False
