# Check the task adapter: claims once, stores results and failures, honours cancellation.
import os
import subprocess
import time
from datetime import timedelta
from unittest import mock

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone

from conftest import shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.ops import warming
from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import lifecycle
from corelsweb.runs.models import Run
from corelsweb.runs.tasks import execute_run_task
from solver import compiling, registry
from tests.factories import make_dataset, make_run


@pytest.fixture
def cold(monkeypatch):
    """This process as a worker that has compiled no kernels yet."""
    monkeypatch.setattr(warming, "_state", {"ready": [], "warming": []})
    monkeypatch.setattr(compiling, "_done", set())


def test_it_claims_a_run_only_once_and_counts_an_attempt_only_when_its_search_starts(alice, cold):
    run = make_run(alice)
    assert lifecycle.claim(run.pk, "w1")
    assert not lifecycle.claim(run.pk, "w2")
    run.refresh_from_db()
    assert run.worker == "w1" and run.status == Run.Status.COMPILING
    assert run.attempts == 0 and run.started is None and run.claimed is not None
    assert lifecycle.start_search(run.pk, "w1") and not lifecycle.start_search(run.pk, "w2")
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and run.attempts == 1 and run.started is not None


def test_a_worker_with_the_kernels_ready_starts_the_search_at_once(alice, monkeypatch):
    monkeypatch.setattr(warming, "_state", {"ready": ["cart"], "warming": []})
    monkeypatch.setattr(compiling, "_done", {"cart"})
    run = make_run(alice)
    assert lifecycle.claim(run.pk, "w1")
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and run.attempts == 1 and run.started is not None


def test_a_run_whose_worker_died_while_compiling_is_queued_again_without_using_an_attempt(
    alice, settings, django_capture_on_commit_callbacks
):
    from corelsweb.runs import recovery

    # Its earlier searches were killed twice more than a compile: the third worker died while compiling.
    attempts = settings.CORELSWEB_MAX_ATTEMPTS
    run = make_run(alice, status=Run.Status.COMPILING, worker=dead_worker(), attempts=attempts)
    with django_capture_on_commit_callbacks():
        assert recovery.requeue_orphans() == 1
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and run.attempts == attempts and not run.error


def live_worker():
    # The parent of this process is alive for as long as the test runs.
    return f"{lifecycle.host_id()}:{os.getppid()}"


def dead_worker():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return f"{lifecycle.host_id()}:{proc.pid}"


def test_a_second_delivery_of_a_run_a_live_worker_holds_does_nothing(alice, eager_celery):
    run = make_run(alice, status=Run.Status.RUNNING, worker=live_worker(), attempts=1)
    execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and run.worker == live_worker() and run.result is None


def test_a_redelivered_run_whose_worker_died_is_taken_over(alice, eager_celery):
    run = make_run(alice, status=Run.Status.RUNNING, worker=dead_worker(), attempts=1)
    execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.HEURISTIC and run.attempts == 2 and run.worker == lifecycle.worker_id()


def test_a_worker_on_another_host_is_presumed_dead_only_when_its_beat_is_stale(alice, settings):
    now = timezone.now()
    WorkerBeat.objects.create(name="elsewhere:1", started=now, last_seen=now)
    fresh = make_run(alice, status=Run.Status.RUNNING, worker="elsewhere:1", attempts=1)
    assert not lifecycle.claim(fresh.pk, "me:1")
    old = now - timedelta(seconds=settings.CORELSWEB_STALE_SECONDS + 1)
    WorkerBeat.objects.create(name="elsewhere:2", started=old, last_seen=old)
    stale = make_run(alice, status=Run.Status.RUNNING, worker="elsewhere:2", attempts=1)
    assert lifecycle.claim(stale.pk, "me:1")
    silent = make_run(alice, status=Run.Status.RUNNING, worker="elsewhere:3", attempts=1)  # never beat at all
    assert lifecycle.claim(silent.pk, "me:1")


def test_a_run_whose_workers_keep_dying_fails_after_max_attempts(alice, settings):
    run = make_run(alice, status=Run.Status.RUNNING, worker=dead_worker(), attempts=settings.CORELSWEB_MAX_ATTEMPTS)
    assert not lifecycle.claim(run.pk, "me:1")
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "started 3 times" in run.error


def test_the_reconciler_requeues_orphans(alice, eager_celery, django_capture_on_commit_callbacks):
    from corelsweb.runs import recovery

    run = make_run(alice, status=Run.Status.RUNNING, worker=dead_worker(), attempts=1)
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
    with mock.patch("solver.pipeline.run", side_effect=RuntimeError("kaboom")):
        execute_run_task.delay(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "internal error (RuntimeError)" in run.error and "kaboom" in run.traceback


def test_progress_reaches_the_row_and_a_cancel_reaches_the_search(alice, eager_celery):
    # A CORELS search long enough to be cancelled: the supervisor writes its progress and passes the cancel on.
    dataset = create_dataset(
        alice, "compas", ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()), "compas.csv"
    )
    params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
    run = Run.objects.create(
        owner=alice,
        dataset=dataset,
        algorithm="corels",
        params=params,
        limits={"time_limit": 60},
        roles=dict(dataset.roles),
    )
    assert lifecycle.claim(run.pk, lifecycle.worker_id())
    warming.ensure("corels")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPILING)  # whether or not this process had them
    assert lifecycle.start_search(run.pk, lifecycle.worker_id())
    job = lifecycle.solving.prepare(run)
    supervisor = lifecycle.Supervisor(run, lifecycle.worker_id(), lifecycle.solving.Child.start(job))
    while not Run.objects.get(pk=run.pk).trace.get("nodes"):
        assert supervisor._receive(0.5) is None and supervisor._check(time.monotonic()) is None
    Run.objects.filter(pk=run.pk).update(cancel_requested=True)
    assert supervisor.watch() is True
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and run.result["status"] == "cancelled"
    assert run.progress == {} and run.result["trace"]["nodes"]
