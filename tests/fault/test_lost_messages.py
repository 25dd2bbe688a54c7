# Check lost and leftover messages: a submission with the broker down, a lost message among other traffic,
# and the unacknowledged leftovers of a killed worker.
import os
import signal
import time

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from django.core.files.base import ContentFile

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.runs import lifecycle, recovery, services
from corelsweb.runs.models import Run
from tests.conftest import ControlProcess, WorkerProcess, require_real_services, wait_for_run
from solver import registry
from tests.factories import make_dataset, run_form_data

pytestmark = [pytest.mark.fault, pytest.mark.integration]
CART = {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0}


def on(redis):
    return {"CELERY_BROKER_URL": redis.url, "REDIS_URL": redis.url}


def test_a_submission_while_the_broker_is_down_is_queued_and_starts_when_it_is_back(
    client, transactional_db, media_for_workers, private_redis
):
    require_real_services()
    alice = make_user("alice")
    client.force_login(alice)
    dataset = make_dataset(alice)
    private_redis.stop()
    t0 = time.monotonic()
    r = client.post(reverse("run-new", args=[dataset.pk, "cart"]), run_form_data("cart", max_depth=2))
    print(f"submission with the broker down answered in {time.monotonic() - t0:.1f} s")
    run = Run.objects.get()
    assert r.status_code == 302 and r.url == run.get_absolute_url()
    assert run.status == Run.Status.QUEUED and not run.message_id
    assert "starts when it is back" in client.get(run.get_absolute_url()).content.decode()
    # Workers and the control loop start while the broker is still down, then it comes back.
    worker = WorkerProcess("reconnects", extra_env=on(private_redis))
    control = ControlProcess(
        "resender", interval=1, extra_env={**on(private_redis), "CORELSWEB_RECONCILE_SECONDS": "1"}
    )
    try:
        time.sleep(5)
        private_redis.start()
        back = time.monotonic()
        run = wait_for_run(run.pk, timeout=120, statuses={Run.Status.RUNNING, Run.Status.HEURISTIC})
        print(f"broker back to run started: {time.monotonic() - back:.1f} s")
        run = wait_for_run(run.pk, timeout=60)
        assert run.status == Run.Status.HEURISTIC and run.attempts == 1 and run.message_id
    finally:
        control.stop()
        worker.stop()


def test_a_lost_message_is_resent_whatever_else_the_broker_holds(
    transactional_db, media_for_workers, private_redis, settings
):
    require_real_services()
    alice = make_user("alice")
    dataset = make_dataset(alice)
    queued = [services.create_run(alice, dataset, "cart", CART, {"time_limit": 30}) for _ in range(3)]
    # Other traffic: messages of runs that are already final (a retry's duplicate, say); their claims are no-ops.
    for _ in range(4):
        done = Run.objects.create(owner=alice, dataset=dataset, algorithm="cart", params=CART, status=Run.Status.FAILED)
        lifecycle.send_task(lifecycle.EXECUTE_TASK, (done.pk,), queue="short")
    lost = Run.objects.get(pk=queued[1].pk)
    with recovery.redis_client() as client:
        raw = next(m for m in client.lrange("short", 0, -1) if lost.message_id.encode() in m)
        assert client.lrem("short", 1, raw) == 1  # the broker lost this one message
    settings.CORELSWEB_RECONCILE_SECONDS = 0
    assert recovery.reconcile() == {"finished_spooled": 0, "requeued_orphans": 0, "resent_lost": 1}
    assert recovery.reconcile() == {
        "finished_spooled": 0,
        "requeued_orphans": 0,
        "resent_lost": 0,
    }  # re-sent once, now it waits
    worker = WorkerProcess("drains", extra_env=on(private_redis)).wait_ready()
    try:
        for run in queued:
            run = wait_for_run(run.pk, timeout=90)
            assert run.status == Run.Status.HEURISTIC and run.attempts == 1
    finally:
        worker.stop()


def test_a_killed_workers_unacknowledged_leftover_is_not_counted_as_work(
    client, transactional_db, media_for_workers, private_redis, settings
):
    require_real_services()
    alice = make_user("alice")
    dataset = create_dataset(
        alice,
        "compas rules",
        ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()),
        "compas-corels-rules.csv",
    )
    params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
    run = services.create_run(alice, dataset, "corels", params, {"time_limit": 6})
    victim = WorkerProcess("main-killed", extra_env=on(private_redis)).wait_ready()
    survivor = WorkerProcess("survivor", extra_env=on(private_redis))
    control = ControlProcess(
        "leftovers", interval=1, extra_env={**on(private_redis), "CORELSWEB_RECONCILE_SECONDS": "1"}
    )
    try:
        wait_for_run(run.pk, timeout=120, statuses={Run.Status.RUNNING})
        os.kill(victim.process.pid, signal.SIGKILL)  # the main process dies holding the message, unacknowledged
        run = wait_for_run(run.pk, timeout=180)
        assert run.status in (Run.Status.TIME_LIMIT, Run.Status.OPTIMAL), run.error
        assert run.attempts <= 2
        time.sleep(3)  # a few reconcile passes more
        broker = recovery.broker_overview()
        assert broker == {"waiting": {"short": 0, "long": 0}, "held": 0, "leftovers": 1}, broker
        settings.CORELSWEB_RECONCILE_SECONDS = 0
        assert recovery.reconcile() == {"finished_spooled": 0, "requeued_orphans": 0, "resent_lost": 0}
        assert Run.objects.get(pk=run.pk).attempts == run.attempts  # it ran to its end exactly once
        staff = get_user_model().objects.create_user("sam", password="sam-password-123", is_staff=True)
        client.force_login(staff)
        page = client.get(reverse("ops-queue")).content.decode()
        assert 'id="broker-held">0 ' in page and 'id="broker-leftovers">1 ' in page
    finally:
        control.stop()
        survivor.stop()
        victim.stop(cold=True)
