# Check the staff queue page: counts, running runs with worker and bounds, worker heartbeats, failures, actions.
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import lifecycle
from corelsweb.runs.models import Run
from tests.factories import make_run


def staff_client(client):
    staff = get_user_model().objects.create_user("sam", password="sam-password-123", is_staff=True)
    client.force_login(staff)
    return client


def test_it_shows_queued_running_and_failed_runs_and_workers(client, alice):
    running = make_run(
        alice,
        status=Run.Status.RUNNING,
        worker="host:123",
        started=timezone.now(),
        progress={"lower_bound": 0.25, "upper_bound": 0.3125, "memory": 2**20},
    )
    make_run(alice, status=Run.Status.QUEUED)
    make_run(alice, status=Run.Status.FAILED, error="The label has only one class.", finished=timezone.now())
    lifecycle.set_current_run(running.pk)
    lifecycle.beat("host:123", "short,long", timezone.now())
    lifecycle.set_current_run(None)
    page = staff_client(client).get(reverse("ops-queue")).content.decode()
    assert f"#{running.pk} cart" in page and "host:123" in page and "0.250000" in page and "0.312500" in page
    assert f"run #{running.pk}" in page  # the worker's current run
    assert "The label has only one class." in page
    fragment = client.get(reverse("ops-queue-fragment")).json()["html"]
    assert 'id="count-queued">1<' in fragment and 'id="count-running">1<' in fragment
    assert WorkerBeat.objects.get(name="host:123").queues == "short,long"


def test_staff_can_cancel_and_requeue(client, alice, eager_celery, django_capture_on_commit_callbacks):
    failed = make_run(alice, status=Run.Status.FAILED, error="boom")
    queued = make_run(alice, status=Run.Status.QUEUED)
    client = staff_client(client)
    client.post(reverse("ops-cancel", args=[queued.pk]))
    assert Run.objects.get(pk=queued.pk).status == Run.Status.CANCELLED
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("ops-requeue", args=[failed.pk]))
    new = Run.objects.exclude(pk__in=[failed.pk, queued.pk]).get()
    assert new.status == Run.Status.HEURISTIC and new.params == failed.params


def test_the_queue_counts_agree_whatever_messages_the_broker_holds(client, alice, settings):
    # Found by trying the app: "long 5 waiting" (messages in the broker) beside "queued runs 4" (the database).
    from tests.conftest import purge_queue

    purge_queue()
    try:
        for queue in ("short", "long", "long"):
            make_run(alice, status=Run.Status.QUEUED, queue=queue)
        make_run(alice, status=Run.Status.COMPILING, queue="long", worker="host:5", claimed=timezone.now())
        final = make_run(alice, status=Run.Status.FAILED, queue="long")
        # A message for a run that is no longer queued (a retry's duplicate, a cancelled run's message).
        lifecycle.send_task(lifecycle.EXECUTE_TASK, (final.pk,), queue="long")
        page = staff_client(client).get(reverse("ops-queue")).content.decode()
        assert 'id="count-queued">3<' in page and 'id="count-compiling">1 ' in page and 'id="count-running">0<' in page
        assert 'id="queue-short">1 run waiting' in page and 'id="queue-long">2 runs waiting' in page
        assert "(1 message in the broker)" in page  # the long queue's one message, told apart from its runs
    finally:
        purge_queue()
