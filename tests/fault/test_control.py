# Check the control lane: reconciling goes on while every worker slot is solving, and exactly one control
# process acts at a time, whichever was killed and restarted.
import os
import signal
import subprocess
import time

import pytest

from conftest import make_user
from corelsweb.runs import lifecycle, services
from corelsweb.runs.models import Run
from tests.conftest import ControlProcess, WorkerProcess, purge_queue, require_real_services, wait_for_run
from tests.factories import make_dataset, make_run

pytestmark = [pytest.mark.fault, pytest.mark.integration]


def dead_worker():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return f"{lifecycle.host_id()}:{proc.pid}"


def wait_until(condition, timeout, step=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def test_reconciling_goes_on_while_every_worker_slot_is_solving(transactional_db, media_for_workers):
    require_real_services()
    purge_queue()
    # The only worker slot holds a search that never returns (until its hard limit, long after this test looks).
    worker = WorkerProcess(
        "busy", extra_env={"CORELSWEB_TEST_FAULT": "hold-gil", "CORELSWEB_HARD_LIMIT_GRACE_SECONDS": "60"}
    ).wait_ready()
    control = ControlProcess("lane", interval=1)
    try:
        alice = make_user("alice")
        dataset = make_dataset(alice)
        busy = services.create_run(
            alice,
            dataset,
            "cart",
            {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0},
            {"time_limit": 30},
        )
        wait_for_run(busy.pk, timeout=60, statuses={Run.Status.RUNNING})
        orphan = make_run(alice, dataset, status=Run.Status.RUNNING, worker=dead_worker(), attempts=1)
        t0 = time.monotonic()
        assert wait_until(lambda: Run.objects.get(pk=orphan.pk).status == Run.Status.QUEUED, timeout=30), (
            "the orphan was not reconciled while the worker slot was busy"
        )
        print(f"orphan requeued {time.monotonic() - t0:.1f} s after it appeared, with the only slot busy")
        orphan.refresh_from_db()
        assert orphan.message_id and Run.objects.get(pk=busy.pk).status == Run.Status.RUNNING
    finally:
        control.stop()
        worker.stop(cold=True)


def test_exactly_one_control_process_acts_even_after_its_leader_is_killed(transactional_db):
    require_real_services()
    first, second = ControlProcess("one", interval=0.5), ControlProcess("two", interval=0.5)
    restarted = None
    try:
        assert wait_until(lambda: first.passes() + second.passes() >= 4, timeout=60)
        leader, standby = (first, second) if first.passes() else (second, first)
        assert standby.passes() == 0, "two control processes reconciled at once"
        os.kill(leader.process.pid, signal.SIGKILL)  # whatever dies, the lock goes with it
        t0 = time.monotonic()
        assert wait_until(lambda: standby.passes() > 0, timeout=30), "no control process took over"
        print(f"standby took over {time.monotonic() - t0:.1f} s after the leader was killed")
        restarted = ControlProcess("three", interval=0.5)  # the operator starts the killed one again
        time.sleep(3)
        before = (standby.passes(), restarted.passes())
        time.sleep(3)
        assert standby.passes() > before[0] and restarted.passes() == before[1] == 0
    finally:
        for process in (first, second, restarted):
            if process is not None:
                process.stop()
