# Check the fair queue (issue 26, item 3): a free worker claims runs in the order they were sent, its own class
# first; a short-queue worker takes a long-class run when idle, but never one past the short time limit; a message
# used for another run is handed on, so every queued run keeps one waiting; the run page shows the place in line.
from datetime import timedelta

import pytest
from celery import current_app
from django.utils import timezone

from corelsweb.runs import lifecycle, liveness, queueing
from corelsweb.runs.models import Run
from corelsweb.runs.tasks import execute_run_task
from tests.factories import make_dataset, make_run


@pytest.fixture
def worker_of(monkeypatch):
    """Make this process a worker consuming the given queues (its own first)."""

    def become(*queues):
        monkeypatch.setitem(liveness._beat_state, "queues", queues)

    yield become
    liveness.set_current_run(None)


def queued(owner, dataset, queue, time_limit=60, minutes_ago=0, message=""):
    run = make_run(owner, dataset, message_id=message, created=timezone.now() - timedelta(minutes=minutes_ago))
    Run.objects.filter(pk=run.pk).update(queue=queue, limits={"time_limit": time_limit})
    return Run.objects.get(pk=run.pk)


def test_a_worker_takes_its_own_class_first_in_the_order_the_runs_were_sent(alice, worker_of):
    data = make_dataset(alice)
    late_short = queued(alice, data, "short", minutes_ago=1)
    early_long = queued(alice, data, "long", minutes_ago=9)
    early_short = queued(alice, data, "short", minutes_ago=5)
    later_long = queued(alice, data, "long", minutes_ago=3)
    worker_of("short")
    assert [lifecycle.claim_next("", "s:1") for _ in range(2)] == [early_short.pk, late_short.pk]
    assert lifecycle.claim_next("", "s:1") == early_long.pk  # idle, no short run waits: it helps the long queue
    worker_of("long", "short")
    assert lifecycle.claim_next("", "l:1") == later_long.pk
    assert lifecycle.claim_next("", "l:1") is None


def test_a_short_worker_never_takes_a_run_past_the_short_time_limit_but_a_long_worker_takes_any(
    alice, worker_of, settings
):
    data = make_dataset(alice)
    hour = queued(alice, data, "long", time_limit=settings.CORELSWEB_LONG_RUN_SECONDS + 1, minutes_ago=5)
    quick = queued(alice, data, "short", minutes_ago=1)
    assert queueing.message_queue(hour) == "long" and queueing.message_queue(quick) == "short"
    worker_of("short")
    assert lifecycle.claim_next("", "s:1") == quick.pk
    assert lifecycle.claim_next("", "s:1") is None
    worker_of("long", "short")
    assert lifecycle.claim_next("", "l:1") == hour.pk


def test_a_message_used_for_an_earlier_run_is_handed_on_so_every_queued_run_keeps_one(alice, worker_of):
    data = make_dataset(alice)
    first = queued(alice, data, "short", minutes_ago=5, message="m-first")
    second = queued(alice, data, "short", minutes_ago=1, message="m-second")
    worker_of("short")
    assert lifecycle.claim_next("m-second", "s:1") == first.pk  # the message of the second woke the worker
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == Run.Status.COMPILING or first.status == Run.Status.RUNNING
    assert first.message_id == "m-second"  # the message this worker holds unacknowledged
    assert second.status == Run.Status.QUEUED and second.message_id == "m-first"  # still waiting in the broker
    assert lifecycle.claim_next("m-first", "s:2") == second.pk


def test_a_message_handed_to_a_run_of_the_other_queue_is_sent_anew(
    alice, worker_of, settings, django_capture_on_commit_callbacks
):
    data = make_dataset(alice)
    hour = queued(alice, data, "long", time_limit=settings.CORELSWEB_LONG_RUN_SECONDS + 1, minutes_ago=5, message="L")
    quick = queued(alice, data, "short", minutes_ago=1, message="S")
    worker_of("long", "short")
    with django_capture_on_commit_callbacks() as sent:
        assert lifecycle.claim_next("S", "l:1") == hour.pk
    assert len(sent) == 1  # the quick run's message goes to the short queue, where short workers wait
    quick.refresh_from_db()
    assert quick.message_id == "S"  # until it is sent: then the reconciler would re-send it, too


def test_the_run_page_shows_the_place_in_line(alice_client, alice):
    data = make_dataset(alice)
    runs = [queued(alice, data, "short", minutes_ago=m) for m in (3, 2, 1)]
    queued(alice, data, "long", minutes_ago=4)
    page = alice_client.get(runs[2].get_absolute_url()).content.decode()
    assert "number 3 in line for the short queue (2 runs were sent before it and wait)" in page
    data = alice_client.get(f"/runs/{runs[0].pk}/progress.json").json()
    assert "number 1 in line for the short queue (0 runs were sent before it and wait)" in data["html"]


def test_the_execute_task_has_no_celery_time_limit_that_could_fire_while_it_compiles(alice):
    run = make_run(alice)
    options = queueing.task_options(run)
    assert "time_limit" not in options and "soft_time_limit" not in options
    # What a prefork pool applies: the message's limits, else the task's, else the app's.
    assert execute_run_task.time_limit is None and execute_run_task.soft_time_limit is None
    assert current_app.conf.task_time_limit is None and current_app.conf.task_soft_time_limit is None
