# Check that runs queued when Redis restarts (losing every message) all complete once the reconciler runs.
import time

import pytest

from conftest import make_user
from corelsweb.runs import recovery, services
from corelsweb.runs.models import Run
from tests.conftest import WorkerProcess, require_real_services, wait_for_run
from tests.factories import make_dataset

pytestmark = [pytest.mark.fault, pytest.mark.integration]


def test_runs_queued_across_a_redis_restart_are_not_lost(transactional_db, media_for_workers, private_redis, settings):
    require_real_services()
    alice = make_user("alice")
    dataset = make_dataset(alice)
    runs = [
        services.create_run(
            alice,
            dataset,
            "cart",
            {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0},
            {"time_limit": 30},
        )
        for _ in range(3)
    ]
    assert recovery.broker_overview()["waiting"]["short"] == 3
    private_redis.restart()
    assert recovery.broker_overview()["waiting"]["short"] == 0  # Redis kept nothing: every message is gone
    worker = WorkerProcess(
        "after-restart", extra_env={"CELERY_BROKER_URL": private_redis.url, "REDIS_URL": private_redis.url}
    ).wait_ready()
    try:
        time.sleep(2)
        assert all(Run.objects.get(pk=r.pk).status == Run.Status.QUEUED for r in runs)
        settings.CORELSWEB_RECONCILE_SECONDS = 0  # no grace period in the test
        assert recovery.reconcile()["resent_lost"] == 3
        for r in runs:
            done = wait_for_run(r.pk, timeout=60)
            assert done.status == Run.Status.HEURISTIC and done.attempts == 1
        assert recovery.reconcile() == {"finished_spooled": 0, "requeued_orphans": 0, "resent_lost": 0}
    finally:
        worker.stop()
