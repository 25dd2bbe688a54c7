"""Runs solved in the test process on real data, for the page tests of issue 21."""

from corelsweb.datasets.services import create_dataset
from corelsweb.runs import lifecycle
from corelsweb.runs.models import Run
from conftest import shared_dataset as shared


def upload(owner, filename, roles=None, name=None, data=None):
    """Return a dataset made from a file of ../shared/datasets (or ``data``)."""
    body = data if data is not None else shared(filename).read_bytes()
    return create_dataset(owner, name or filename, body, filename, roles)


def solved_run(owner, dataset, algorithm, params=None, evaluation=None, time_limit=60, name=""):
    """Return a run claimed and executed from this process through the lifecycle a worker uses."""
    from solver import registry

    named = {"name": name} if name else {}
    run = Run.objects.create(
        owner=owner,
        dataset=dataset,
        algorithm=algorithm,
        **named,
        params=registry.get(algorithm).clean(params or {}),
        limits={"time_limit": time_limit, "memory_limit": 2**30},
        roles=dict(dataset.roles),
        binarization=dataset.binarization,
        evaluation=evaluation or {},
        status=Run.Status.QUEUED,
    )
    worker = lifecycle.worker_id()
    assert lifecycle.claim(run.pk, worker)
    lifecycle.execute(run.pk, worker)
    run.refresh_from_db()
    assert run.status not in (Run.Status.FAILED, Run.Status.RUNNING), run.error
    return run
