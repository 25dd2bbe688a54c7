# Check that a finished result is never lost when the database is away while runs finish (issue 27, item 1): the
# test blocks its own test database (ALLOW_CONNECTIONS false, its sessions terminated; never the shared server),
# lets the searches end, then restores it. A worker keeps its result and stores it when the database is back; a
# worker that must go leaves it spooled, and the control loop makes the run final from the spool.
import os
import shutil
import signal
import time
from contextlib import contextmanager

import psycopg
import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import connection
from psycopg import sql

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.runs import services, storing
from corelsweb.runs.models import Run
from solver import registry
from tests.conftest import ControlProcess, WorkerProcess, purge_queue, require_real_services, wait_for_run

pytestmark = [pytest.mark.fault, pytest.mark.integration]
FAST_CONTROL = {"CORELSWEB_RECONCILE_SECONDS": "1", "CORELSWEB_BEAT_SECONDS": "1"}


@pytest.fixture
def media(media_for_workers):
    # The workers' media folder outlives a test database: no spool file of an earlier session may name a run here.
    shutil.rmtree(media_for_workers / storing.SPOOL, ignore_errors=True)
    return media_for_workers


@contextmanager
def database_blocked():
    """Refuse every connection to this test's own database and end the open ones; allow them again on exit."""
    db = settings.DATABASES["default"]
    name = db["NAME"]
    assert name.startswith("test_"), f"only a test database may be blocked, not {name}"
    connection.close()
    admin = psycopg.connect(
        dbname="postgres", user=db["USER"], host=db["HOST"], port=db["PORT"] or None, autocommit=True
    )
    try:
        admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(sql.Identifier(name)))
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        yield
    finally:
        admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(sql.Identifier(name)))
        admin.close()


def searching_runs(n, time_limit):
    """Send ``n`` CORELS runs that search until their time limit; return them once each has reported progress."""
    alice = make_user("alice")
    dataset = create_dataset(
        alice, "compas", ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()), "compas.csv"
    )
    params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
    runs = [services.create_run(alice, dataset, "corels", params, {"time_limit": time_limit}) for _ in range(n)]
    for run in runs:
        wait_for_run(run.pk, timeout=180, statuses={Run.Status.RUNNING})
        while not (Run.objects.get(pk=run.pk).progress or {}).get("nodes"):
            time.sleep(0.2)
    return runs


def assert_kept(run):
    """The run is final with the result its one search found: time-limited, its model and a valid bound."""
    run = Run.objects.get(pk=run.pk)
    assert run.status == Run.Status.TIME_LIMIT, (run.status, run.error)
    assert run.attempts == 1 and not run.error
    result = run.result
    assert result["model"]["antecedents"] and result["lower_bound"] <= result["objective"]
    assert len(result["trace"]["elapsed"]) > 1


def test_runs_that_finish_while_the_database_is_away_keep_their_results(transactional_db, media):
    require_real_services()
    purge_queue()
    worker = WorkerProcess("outage", concurrency=2, extra_env=FAST_CONTROL).wait_ready()
    control = ControlProcess("outage", interval=1, extra_env=FAST_CONTROL)
    try:
        runs = searching_runs(2, time_limit=5)
        with database_blocked():
            time.sleep(15)  # both searches end at their 5 s limit, with nowhere to store their results
        t0 = time.monotonic()
        for run in runs:
            wait_for_run(run.pk, timeout=120)
        print(f"database back to every run final: {time.monotonic() - t0:.1f} s")
        for run in runs:
            assert_kept(run)
        assert storing.spooled() == []
    finally:
        control.stop()
        worker.stop()


def test_a_result_spooled_by_a_worker_that_went_is_made_final_by_the_control_loop(transactional_db, media):
    require_real_services()
    purge_queue()
    # This worker gives the database 2 s after spooling, then leaves the run to the spool; then it is killed.
    worker = WorkerProcess("spools", extra_env={**FAST_CONTROL, "CORELSWEB_STORE_RETRY_SECONDS": "2"}).wait_ready()
    control = ControlProcess("spool-reader", interval=1, extra_env=FAST_CONTROL)
    try:
        (run,) = searching_runs(1, time_limit=4)
        spool = media / storing.spool_name(run.pk)
        with database_blocked():
            deadline = time.monotonic() + 60
            while not spool.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert spool.exists(), "the worker did not spool the result it could not store"
            time.sleep(4)  # past its retries: it has left the run to the spool
            os.killpg(worker.process.pid, signal.SIGKILL)  # and now it goes, while the database is still away
        t0 = time.monotonic()
        wait_for_run(run.pk, timeout=120)
        print(f"database back to the spooled run final: {time.monotonic() - t0:.1f} s")
        assert_kept(run)
        assert not spool.exists()
    finally:
        control.stop()
        worker.stop(cold=True)
