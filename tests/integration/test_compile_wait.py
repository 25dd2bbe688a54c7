# Check that compiling never fails a run nor counts against it (issue 26, item 1), with a real worker whose
# compiles are slow (a test-only start-up hook, tests/hooks/slow_compile, wraps solver.api.warm from outside): a
# run sent at once waits as "compiling", never "running"; its pool process is killed while it compiles; the
# next one compiles again and the run finishes optimal with one attempt, its search's.
import os
import signal
import time

import pytest
from django.core.files.base import ContentFile

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.runs import services
from corelsweb.runs.models import Run
from solver import registry
from tests.conftest import ROOT, WorkerProcess, purge_queue, require_real_services

pytestmark = pytest.mark.integration

SLOW_COMPILE = {
    "PYTHONPATH": f"{ROOT / 'tests' / 'hooks' / 'slow_compile'}:{ROOT}",
    "CORELSWEB_TEST_SLOW_COMPILE_SECONDS": "8",
    "CORELSWEB_WARM_SOLVERS": "0",  # no background warming: the run's own task compiles
}


def quick_corels_run(owner, time_limit):
    """Return a queued CORELS run on COMPAS that proves its optimum in well under a second once it searches."""
    dataset = create_dataset(
        owner,
        "compas rules",
        ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()),
        "compas-corels-rules.csv",
    )
    params = registry.get("corels").clean({"regularization": 0.02, "antecedents": "given"})
    return services.create_run(owner, dataset, "corels", params, {"time_limit": time_limit})


def watch(pk, until, timeout=180):
    """Poll run ``pk`` until ``until(run)``; return the statuses seen, in order, without repeats."""
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=pk)
        if not seen or seen[-1] != run.status:
            seen.append(run.status)
        if until(run):
            return seen, run
        time.sleep(0.1)
    raise TimeoutError(f"run {pk} still {seen[-1]} after {timeout} s")


def test_a_run_waits_while_its_worker_compiles_and_a_kill_then_uses_no_attempt(transactional_db, media_for_workers):
    require_real_services()
    purge_queue()
    worker = WorkerProcess("slow-compile", extra_env=SLOW_COMPILE).wait_ready()
    try:
        run = quick_corels_run(make_user("alice"), time_limit=5)
        seen, run = watch(run.pk, lambda r: r.status != Run.Status.QUEUED)
        assert run.status == Run.Status.COMPILING and run.attempts == 0 and run.started is None, seen
        victim = run.worker
        os.kill(int(victim.rpartition(":")[2]), signal.SIGKILL)  # the pool process dies while it compiles
        more, run = watch(run.pk, lambda r: not r.is_active)
        seen += more[1:] if more[0] == seen[-1] else more
        assert run.status == Run.Status.OPTIMAL, run.error
        assert run.attempts == 1 and run.worker != victim  # the search that ran, on the pool process that replaced it
        # It waited as compiling (twice: each pool process compiles), and was running only once its search started.
        assert seen[0] == Run.Status.QUEUED and Run.Status.COMPILING in seen and seen[-1] == Run.Status.OPTIMAL
        assert seen.index(Run.Status.COMPILING) < seen.index(Run.Status.RUNNING), seen
        assert run.claimed <= run.started <= run.finished
        assert run.result["stats"]["compile_seconds"] > 0 and run.result["lower_bound"] == run.result["objective"]
        # The time split (item 4): the compile that finished is its own stage (at least the hook's 8 s); the one
        # killed is part of the wait before this worker took the run; the stages sum to the total.
        stages = run.timing["stages"]
        assert stages["compiling"] >= float(SLOW_COMPILE["CORELSWEB_TEST_SLOW_COMPILE_SECONDS"])
        assert stages["queued"] > 0 and stages["searching"] > 0
        assert sum(stages.values()) == pytest.approx(run.timing["total_seconds"], rel=1e-12, abs=1e-12)
        print(f"statuses seen: {seen}; compile {run.result['stats']['compile_seconds']:.1f} s; split {run.timing}")
    finally:
        worker.stop()
