# Check a solve that never returns to Python (a kernel holding the GIL): the run stays visibly alive, is never
# taken over while its worker lives, ends by its hard limit as failed with the reason and its best model so far,
# is not retried; a cancel ends it too.
import time

import pytest
from django.core.files.base import ContentFile

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import services
from corelsweb.runs.models import Run
from solver import registry
from tests.conftest import ControlProcess, WorkerProcess, purge_queue, require_real_services, wait_for_run

pytestmark = [pytest.mark.fault, pytest.mark.integration]

# The stuck worker counts as another machine: only its beat can tell the control loop that it lives.
STUCK = {
    "CORELSWEB_TEST_FAULT": "hold-gil",
    "CORELSWEB_HOST_ID": "stuck-host",
    "CORELSWEB_BEAT_SECONDS": "1",
    "CORELSWEB_HARD_LIMIT_GRACE_SECONDS": "8",
    "CORELSWEB_CANCEL_GRACE_SECONDS": "3",
}
WATCHER = {"CORELSWEB_HOST_ID": "watcher-host", "CORELSWEB_STALE_SECONDS": "4"}


@pytest.fixture
def stuck_worker(transactional_db, media_for_workers):
    require_real_services()
    purge_queue()
    worker = WorkerProcess("stuck", extra_env=STUCK).wait_ready()
    control = ControlProcess("watcher", interval=1, extra_env=WATCHER)
    yield worker, control
    control.stop()
    worker.stop(cold=True)


def corels_run(time_limit):
    alice = make_user("alice")
    dataset = create_dataset(
        alice,
        "compas rules",
        ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()),
        "compas-corels-rules.csv",
    )
    params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
    return services.create_run(alice, dataset, "corels", params, {"time_limit": time_limit})


def test_a_stuck_search_is_alive_then_fails_by_its_hard_limit_with_its_best_model(stuck_worker, client):
    worker, control = stuck_worker
    run = wait_for_run(corels_run(time_limit=4).pk, timeout=120, statuses={Run.Status.RUNNING})
    t0 = time.monotonic()
    seen_running = []
    while (run := Run.objects.get(pk=run.pk)).status == Run.Status.RUNNING and time.monotonic() - t0 < 60:
        beat = WorkerBeat.objects.get(name=run.worker)
        seen_running.append((run.attempts, beat.current_run_id, bool(run.progress)))
        time.sleep(0.5)
    passes = control.passes()
    assert run.status == Run.Status.FAILED, run.status
    assert "did not return within 12 s" in run.error and "not retried" in run.error, run.error
    assert "best model so far is kept" in run.error
    # While it hung: one claim, its worker's beat naming it, its first progress shown; the control loop
    # reconciled all along (a stale-looking run would have been queued again) and never took it over.
    assert seen_running and all(a == 1 and current == run.pk for a, current, _ in seen_running)
    assert seen_running[-1][2]
    assert passes >= 5
    assert run.attempts == 1 and run.result["status"] == "time_limit"
    assert run.result["model"]["antecedents"] and run.result["lower_bound"] <= run.result["objective"]
    client.force_login(run.owner)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "did not return within 12 s" in page and 'class="rule-list"' in page  # the reason, and the model
    time.sleep(3)  # a few more reconcile passes: a run killed by its own limit is not retried
    assert Run.objects.get(pk=run.pk).status == Run.Status.FAILED and Run.objects.count() == 1
    print(f"stuck run failed {time.monotonic() - t0:.1f} s after it was seen running")


def test_a_stuck_search_is_cancelled_with_its_best_model(stuck_worker):
    run = wait_for_run(corels_run(time_limit=60).pk, timeout=120, statuses={Run.Status.RUNNING})
    while not Run.objects.get(pk=run.pk).progress:
        time.sleep(0.2)
    t0 = time.monotonic()
    services.cancel_run(run)
    run = wait_for_run(run.pk, timeout=60)
    print(f"cancel of a stuck search took {time.monotonic() - t0:.1f} s")
    assert run.status == Run.Status.CANCELLED and "did not stop within 3 s" in run.error
    assert run.result["status"] == "cancelled" and run.result["model"]["antecedents"]
    assert run.attempts == 1
