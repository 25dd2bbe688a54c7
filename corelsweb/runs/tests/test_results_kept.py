# Check that a finished result is never lost (issue 27, item 1): a held run whose live worker has moved on is
# queued again, a live search never is, and a result spooled through a database outage is made final by the
# reconciler. (tests/fault/test_database_outage.py blocks the real database while runs finish.)
import os
from datetime import timedelta

from django.db.models.functions import Now
from django.utils import timezone

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import lifecycle, recovery, storing
from corelsweb.runs.models import Run
from tests.factories import make_finished_run, make_run


def live_worker():
    return f"{lifecycle.host_id()}:{os.getppid()}"  # this test's parent process lives as long as the test


def held(owner, worker, claimed_ago=10, **fields):
    return make_run(
        owner,
        status=Run.Status.RUNNING,
        worker=worker,
        attempts=1,
        claimed=timezone.now() - timedelta(seconds=claimed_ago),
        **fields,
    )


def test_a_running_run_whose_live_worker_has_moved_on_is_queued_again(
    alice, eager_celery, django_capture_on_commit_callbacks
):
    # Its task ended without storing the result (the database was away): the worker lives, beats, and runs nothing.
    run = held(alice, live_worker())
    WorkerBeat.objects.create(name=run.worker, started=timezone.now(), last_seen=Now(), current_run=None)
    with django_capture_on_commit_callbacks(execute=True):
        assert recovery.reconcile()["requeued_orphans"] == 1
    run.refresh_from_db()
    assert run.status == Run.Status.HEURISTIC and run.attempts == 2 and run.result["model"]


def test_a_live_search_is_never_queued_again(alice):
    searching = held(alice, live_worker())
    WorkerBeat.objects.create(name=searching.worker, started=timezone.now(), last_seen=Now(), current_run=searching)
    # A beat from before the claim says nothing about it yet.
    just_claimed = held(alice, "elsewhere:9", claimed_ago=-60)
    WorkerBeat.objects.create(name="elsewhere:9", started=timezone.now(), last_seen=Now(), current_run=None)
    assert recovery.requeue_orphans() == 0
    assert Run.objects.filter(status=Run.Status.RUNNING).count() == 2
    assert not lifecycle.search_is_gone(searching) and not lifecycle.search_is_gone(just_claimed)


def test_a_spooled_result_is_made_final_by_the_reconciler(alice):
    done = make_finished_run(alice)
    run = held(alice, live_worker(), dataset=done.dataset)
    record = {"pk": run.pk, "holder": run.worker, "status": done.status, "result": done.result}
    assert storing.spool(run.pk, {**record, "error": "", "traceback": ""})
    assert storing.spool(done.pk, {**record, "pk": done.pk, "status": "failed", "result": None})
    assert storing.spooled() == sorted([run.pk, done.pk])
    assert recovery.reconcile()["finished_spooled"] == 1
    run.refresh_from_db()
    assert run.status == done.status and run.result == done.result and run.finished is not None
    assert Run.objects.get(pk=done.pk).status == done.status  # a final run keeps its own result
    assert storing.spooled() == []
