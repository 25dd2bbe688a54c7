# Check that a worker process killed with SIGKILL mid-run loses nothing: the run is taken over and completes.
import os
import signal
import socket
import time

import pytest
from django.core.files.base import ContentFile

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.runs import services
from corelsweb.runs.models import Run
from solver import registry
from solver.testing import assert_bound_trace_valid
from tests.conftest import WorkerProcess, purge_queue, require_real_services, wait_for_run

pytestmark = [pytest.mark.fault, pytest.mark.integration]


def test_a_run_whose_worker_is_killed_mid_search_completes_on_another(transactional_db, media_for_workers):
    require_real_services()
    purge_queue()
    workers = [WorkerProcess("victim"), WorkerProcess("survivor")]
    try:
        for w in workers:
            w.wait_ready()
        alice = make_user("alice")
        dataset = create_dataset(
            alice,
            "compas rules",
            ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()),
            "compas-corels-rules.csv",
        )
        params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
        run = services.create_run(alice, dataset, "corels", params, {"time_limit": 12})
        run = wait_for_run(run.pk, timeout=180, statuses={Run.Status.RUNNING})
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not (run.progress or {}).get("nodes"):
            time.sleep(0.2)
            run.refresh_from_db()
        assert (run.progress or {}).get("nodes"), "the search never reported progress"
        host, _, pid = run.worker.rpartition(":")
        assert host == socket.gethostname()
        os.kill(int(pid), signal.SIGKILL)  # the pool process solving the run dies mid-search
        killed = time.monotonic()
        while Run.objects.get(pk=run.pk).worker == run.worker and time.monotonic() - killed < 240:
            time.sleep(0.1)
        print(f"pool process killed to run re-claimed: {time.monotonic() - killed:.1f} s")

        done = wait_for_run(run.pk, timeout=240)
        assert done.status in (Run.Status.TIME_LIMIT, Run.Status.OPTIMAL), done.error
        assert done.attempts == 2 and done.worker != run.worker
        result = done.result
        assert result["lower_bound"] <= result["objective"] + 1e-12
        assert_bound_trace_valid(result["trace"], result["status"])
        assert len(result["model"]["antecedents"]) >= 1
    finally:
        for w in workers:
            w.stop()
