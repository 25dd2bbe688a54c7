# Check the fair queue with real workers (issue 26, item 3), as scripts/run starts them: a worker of the short queue
# and one of the long queue (which consumes both, long first). Runs start in the order they were sent within their
# class; the short worker, once its own runs are done, takes long-class runs instead of sitting idle; a run past
# the short time limit goes to the long worker only.
import pytest
from django.core.files.base import ContentFile
from django.db import transaction

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import lifecycle, services
from corelsweb.runs.models import Run
from solver import registry
from tests.conftest import WorkerProcess, purge_queue, require_real_services, wait_for_run

pytestmark = pytest.mark.integration

NO_WARMING = {"CORELSWEB_WARM_SOLVERS": "0"}


def send(owner, dataset, algorithm, params, time_limit, queue):
    run = services.new_run(owner, dataset, algorithm, registry.get(algorithm).clean(params), {"time_limit": time_limit})
    run.queue = queue  # the class the estimate would give; the test decides
    run.save()
    lifecycle.send([run])
    return run


def test_runs_start_in_order_and_no_worker_idles_while_a_run_it_may_take_waits(
    transactional_db, media_for_workers, settings
):
    require_real_services()
    purge_queue()
    alice = make_user("alice")
    compas = create_dataset(
        alice, "compas", ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()), "compas.csv"
    )
    corels = {"regularization": 0.001, "antecedents": "given"}  # searches until its 3 s limit
    cart = {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0}
    workers = [
        WorkerProcess("fair-short", queues="short", extra_env=NO_WARMING),
        WorkerProcess("fair-long", queues="long,short", extra_env=NO_WARMING),
    ]
    try:
        for w in workers:
            w.wait_ready()
        with transaction.atomic():  # every message goes once all runs are stored, in the order they were sent
            long_class = [send(alice, compas, "corels", corels, 3, "long") for _ in range(4)]
            short = send(alice, compas, "corels", corels, 3, "short")
            past_short_limit = send(alice, compas, "cart", cart, settings.CORELSWEB_LONG_RUN_SECONDS + 100, "long")
        runs = [wait_for_run(r.pk, timeout=240) for r in [*long_class, short, past_short_limit]]
    finally:
        for w in workers:
            w.stop()
    assert all(r.status in (Run.Status.TIME_LIMIT, Run.Status.HEURISTIC) for r in runs), [r.error for r in runs]
    queues_of = dict(WorkerBeat.objects.values_list("name", "queues"))
    by = {r.pk: queues_of[r.worker] for r in runs}
    long_class = runs[:4] + runs[5:]
    # In the order they were sent, within the class.
    assert sorted(long_class, key=lambda r: r.claimed) == sorted(long_class, key=lambda r: r.created)
    # Each worker first served its own class; the short one then took long-class runs rather than idle.
    assert by[runs[4].pk] == "short" and by[runs[0].pk] == "long,short"
    helped = [r for r in runs[:4] if by[r.pk] == "short"]
    assert helped and all(r.claimed >= runs[4].finished for r in helped)
    # A run past the short time limit is the long worker's alone.
    assert by[past_short_limit.pk] == "long,short"
    assert all(r.attempts == 1 for r in runs)
    print({r.pk: (r.queue, by[r.pk]) for r in runs})
