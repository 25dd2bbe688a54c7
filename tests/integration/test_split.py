# One run's ordered search split into pieces across two real Celery worker processes (corelsweb.runs.splitting).
import os
import signal
import time

import pytest

from conftest import make_user, shared_dataset
from corelsweb.runs import lifecycle, queueing, services, solving
from corelsweb.runs.models import Piece, Run
from solver import pipeline
from solver.api import Limits
from tests.conftest import WorkerProcess, purge_queue, require_real_services, wait_for_run
from tests.factories import make_dataset

pytestmark = pytest.mark.integration
SPLIT = {"CORELSWEB_SPLIT": "force"}


@pytest.fixture
def two_split_workers(transactional_db, media_for_workers):
    require_real_services()
    purge_queue()
    workers = [WorkerProcess(f"split-{k}", extra_env=SPLIT) for k in "ab"]
    for w in workers:
        w.wait_ready()
    yield workers
    for w in workers:
        w.stop()


def numeric_run(name, depth, time_limit=120, pieces_owner="alice"):
    owner = make_user(pieces_owner)
    dataset = make_dataset(owner, shared_dataset(f"{name}.csv").read_bytes(), name, {"label": "label"})
    params = {"objective": "accuracy", "max_depth": depth, "threshold_search": "ordered"}
    from solver import registry

    run = Run.objects.create(
        owner=owner,
        dataset=dataset,
        algorithm="streed",
        params=registry.get("streed").clean(params),
        limits={"time_limit": time_limit},
        roles=dict(dataset.roles),
        status=Run.Status.QUEUED,
    )
    lifecycle.send_now(run.pk, queueing.task_options(run))
    return run


def one_process_result(run):
    job = solving.prepare(run)
    return pipeline.run(job.prepared, run.params, Limits())


def test_a_split_run_gives_the_one_process_result(client, two_split_workers):
    # Check the split run (pieces on both workers) against the one-process search: same optimum, same tree.
    run = numeric_run("raisin", 3)
    run = wait_for_run(run.pk, timeout=300)
    assert run.status == Run.Status.OPTIMAL, run.error
    pieces = list(Piece.objects.filter(run=run))
    assert len(pieces) == 7  # raisin's seven columns, one piece each
    assert all(p.status == Piece.Status.DONE and p.attempts == 1 for p in pieces), [
        (p.index, p.status, p.attempts, p.worker) for p in pieces
    ]
    expected = one_process_result(run)
    assert run.result["objective"] == expected.objective
    assert run.result["lower_bound"] == run.result["objective"]
    assert run.result["model"] == expected.to_dict()["model"]
    assert run.result["extras"]["split"]["pieces"] == 7
    trace = run.result["trace"]
    assert trace["upper_bound"][-1] == run.result["objective"]
    assert all(lo is None or up is None or lo <= up for lo, up in zip(trace["lower_bound"], trace["upper_bound"]))
    client.force_login(run.owner)
    page = client.get(run.get_absolute_url()).content.decode()
    assert 'id="pieces"' in page  # the run page shows its pieces: which worker, bound, state
    section = page.split('id="pieces"')[1].split("</section>")[0]
    assert section.count("<tr><td>") == 7 and section.count("Searched to its end") == 7
    assert all(p.worker in section for p in pieces)


def test_a_split_run_stops_at_its_time_limit_and_on_cancel(two_split_workers):
    # Check the anytime contract across pieces: a stop keeps the best combined tree and a valid combined bound.
    timed = numeric_run("segment", 4, time_limit=4)
    timed = wait_for_run(timed.pk, timeout=300)
    assert timed.status == Run.Status.TIME_LIMIT, timed.error
    assert timed.result["lower_bound"] <= timed.result["objective"]
    assert not Piece.objects.filter(run=timed).exclude(status__in=Piece.FINAL).exists()

    cancelled = numeric_run("segment", 4, time_limit=600, pieces_owner="bob")
    wait_for_run(cancelled.pk, timeout=300, statuses=[Run.Status.RUNNING])
    while not Piece.objects.filter(run=cancelled, status=Piece.Status.RUNNING).exists():
        time.sleep(0.1)
    services.cancel_run(Run.objects.get(pk=cancelled.pk))
    cancelled = wait_for_run(cancelled.pk, timeout=60)
    assert cancelled.status == Run.Status.CANCELLED, cancelled.error
    assert cancelled.result["lower_bound"] <= cancelled.result["objective"]
    assert not Piece.objects.filter(run=cancelled).exclude(status__in=Piece.FINAL).exists()


def test_a_piece_whose_worker_dies_is_run_again(two_split_workers):
    # Kill the process searching a piece other than the parent's: the piece runs again, once at a time, and the
    # run's result is the one-process result.
    run = numeric_run("segment", 3)
    victim = None
    deadline = time.monotonic() + 300
    while victim is None and time.monotonic() < deadline:
        run.refresh_from_db()
        for piece in Piece.objects.filter(run=run, status=Piece.Status.RUNNING).exclude(worker=run.worker):
            os.kill(int(piece.worker.rpartition(":")[2]), signal.SIGKILL)
            time.sleep(0.5)  # a write the process sent before it died reaches the database
            piece.refresh_from_db()
            if piece.status != Piece.Status.DONE:  # killed while searching it (else: it had just ended; try another)
                victim = piece
            break
        time.sleep(0.05)
    assert victim is not None, "no piece was killed while its process searched it"
    run = wait_for_run(run.pk, timeout=300)
    assert run.status == Run.Status.OPTIMAL, run.error
    victim.refresh_from_db()
    assert victim.status == Piece.Status.DONE and victim.attempts >= 2
    expected = one_process_result(run)
    assert run.result["objective"] == expected.objective
    assert run.result["lower_bound"] == run.result["objective"]
