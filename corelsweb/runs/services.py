"""The life of a run: create, enqueue, claim, execute, cancel, retry."""

import logging
import os
import socket
import threading
import time
import traceback as tb

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corelsweb.datasets.models import Dataset
from corelsweb.datasets.services import features_preview, load_table
from corelsweb.runs.models import Run
from solver import export, metrics, registry
from solver.api import Limits, ProblemError, solve
from solver.data import DataError, Roles, make_problem
from solver.data.evaluation import problem_like, split_table
from solver.registry import ParameterError

log = logging.getLogger(__name__)

LIVE_TRACE_POINTS = 600


def get_run_for_user(request, pk):
    """Return run ``pk`` if the signed-in user owns it, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(Run.objects.select_related("dataset"), pk=pk, owner=request.user)


def new_run(owner, dataset, algorithm, params, limits, evaluation=None, note="", path=None):
    """Return an unsaved queued run with a snapshot of the dataset's roles and binarization, routed to a queue."""
    run = Run(owner=owner, dataset=dataset, algorithm=algorithm, params=params, limits=limits,
              roles=dict(dataset.roles), binarization=dataset.binarization, evaluation=evaluation or {},
              note=note, path=path)
    run.queue = queue_for(run)
    return run


def queue_for(run):
    """Return the queue of a run: ``long`` for hard searches or long time limits, else ``short``."""
    if (run.limits or {}).get("time_limit", 0) > settings.CORELSWEB_LONG_RUN_SECONDS:
        return "long"
    try:
        guess = estimate_for(run.dataset, run.algorithm, run.params)
    except (KeyError, TypeError, ValueError, ParameterError):
        return "short"
    hard = guess is not None and guess["level"] in ("hard", "very hard")
    return "long" if registry.get(run.algorithm).proves_optimality and hard else "short"


def task_options(run):
    """Return apply_async options: the run's queue, and Celery time limits as a backstop.

    The solver enforces the run's own time limit between steps; Celery's soft
    and hard limits only catch a run that stopped returning to Python.
    """
    budget = float((run.limits or {}).get("time_limit") or settings.CORELSWEB_MAX_TIME_LIMIT)
    return {"queue": run.queue, "soft_time_limit": budget + 300, "time_limit": budget + 420}


def enqueue(runs):
    """Send the runs' tasks once the transaction commits (a Celery group when there are several)."""
    from celery import group

    from corelsweb.runs.tasks import execute_run_task

    signatures = [execute_run_task.signature((r.pk,), options=task_options(r)) for r in runs]
    if len(signatures) == 1:
        transaction.on_commit(signatures[0].apply_async)
    elif signatures:
        transaction.on_commit(group(signatures).apply_async)


def create_run(owner, dataset, algorithm, params, limits, evaluation=None, note=""):
    """Store a queued run and enqueue it once the transaction commits."""
    run = new_run(owner, dataset, algorithm, params, limits, evaluation, note)
    run.save()
    enqueue([run])
    return run


def retry_run(run):
    """Queue a fresh run with the same settings and evaluation (and path cell), under the dataset's current roles."""
    copy = new_run(run.owner, run.dataset, run.algorithm, run.params, run.limits, run.evaluation, run.note,
                   run.path)
    copy.save()
    enqueue([copy])
    return copy


def cancel_run(run):
    """Cancel a queued run at once; ask a running one to stop (it keeps its best model)."""
    if Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.CANCELLED, finished=timezone.now(), error="Cancelled before it started.",
        version=F("version") + 1,
    ):
        return
    Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(cancel_requested=True, version=F("version") + 1)


def worker_id():
    """Return this process's identity as recorded on the runs it claims: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def worker_is_gone(worker, heartbeat, now=None):
    """Return True when the process that claimed a run can no longer be running it.

    On this host we ask the kernel whether its pid lives; elsewhere we go by
    the heartbeat, which a running run refreshes every few seconds.
    """
    host, _, pid = (worker or "").rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False
    now = now or timezone.now()
    return heartbeat is None or (now - heartbeat).total_seconds() > settings.CORELSWEB_STALE_SECONDS


def claim_run(pk, worker):
    """Mark run ``pk`` as running for ``worker``; return False if someone else has it.

    A queued run is claimed at once. A running run is taken over only when
    the process that claimed it is gone (a redelivery after that worker died),
    and only by one claimant: the UPDATE is conditional on the row unchanged.
    """
    now = timezone.now()
    fields = dict(status=Run.Status.RUNNING, worker=worker, started=now, heartbeat=now,
                  attempts=F("attempts") + 1, version=F("version") + 1, cancel_requested=False)
    if Run.objects.filter(pk=pk, status=Run.Status.QUEUED).update(**fields):
        return True
    held = Run.objects.filter(pk=pk, status=Run.Status.RUNNING).values("worker", "heartbeat", "attempts").first()
    if held is None or held["worker"] == worker or not worker_is_gone(held["worker"], held["heartbeat"], now):
        return False
    if held["attempts"] >= settings.CORELSWEB_MAX_ATTEMPTS:
        finish_failed(pk, f"The run was started {held['attempts']} times and its worker stopped each time "
                          "(killed, or out of memory); it is not retried again.", "")
        return False
    return Run.objects.filter(pk=pk, status=Run.Status.RUNNING, worker=held["worker"],
                              heartbeat=held["heartbeat"]).update(**fields) == 1


class Heartbeat:
    """Refresh a running run's heartbeat from a thread, also while kernels compile."""

    def __init__(self, run_pk, seconds=5.0):
        self.run_pk, self.seconds = run_pk, seconds
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_pk}", daemon=True)

    def _beat(self):
        from django.db import connection

        try:
            while not self.stop.wait(self.seconds):
                Run.objects.filter(pk=self.run_pk, status=Run.Status.RUNNING).update(heartbeat=timezone.now())
        finally:
            connection.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=self.seconds + 5)


class ProgressWriter:
    """``on_progress`` for ``solve``: throttled writes of progress and trace, and the cancel flag."""

    def __init__(self, run_pk, interval=None):
        self.run_pk = run_pk
        self.interval = settings.CORELSWEB_PROGRESS_WRITE_SECONDS if interval is None else interval
        self.last_write = 0.0
        self.trace = {}
        self.cancelled = False

    def __call__(self, point):
        self._append(point)
        now = time.monotonic()
        if now - self.last_write < self.interval and point.get("status") == "running":
            return not self.cancelled
        self.last_write = now
        Run.objects.filter(pk=self.run_pk).update(
            progress=point, trace=self.trace, heartbeat=timezone.now(), version=F("version") + 1
        )
        self.cancelled = Run.objects.filter(pk=self.run_pk, cancel_requested=True).exists()
        return not self.cancelled

    def _append(self, point):
        n = len(self.trace.get("elapsed", ()))
        for key, value in point.items():
            if key != "status":
                self.trace.setdefault(key, [None] * n).append(value)
        if n + 1 > LIVE_TRACE_POINTS:
            self.trace = {k: v[::2] + ([v[-1]] if len(v) % 2 == 0 else []) for k, v in self.trace.items()}


def evaluation_split(run, table, roles):
    """Return ``(train, test, description)`` for the run's evaluation setting."""
    ev = run.evaluation or {}
    if ev.get("test_dataset"):
        other = Dataset.objects.filter(pk=ev["test_dataset"], owner=run.owner).first()
        if other is None:
            raise DataError("The test dataset chosen for this run no longer exists.")
        return table, load_table(other), f"test file {other.name}"
    return split_table(table, roles, holdout=ev.get("holdout"), kfold=ev.get("kfold"), fold=ev.get("fold"),
                       seed=ev.get("seed", 0))


def holdout_report(model, problem, test, roles, description):
    """Score ``model`` on the test rows; a problem with the test data is reported, not fatal."""
    try:
        return {"description": description, "n_samples": test.n_rows,
                "metrics": metrics.evaluate(model, problem_like(problem, test, roles, model))}
    except (DataError, KeyError) as e:
        return {"description": description, "error": str(e).strip("'\"")}


def execute_run(pk):
    """Solve a claimed run and store its result or its failure on the row."""
    run = Run.objects.select_related("dataset").get(pk=pk)
    try:
        table = load_table(run.dataset)
        roles = Roles.from_dict(run.roles)
        train, test, description = evaluation_split(run, table, roles)
        problem = make_problem(train, roles, run.binarization)
        limits = Limits.from_dict(run.limits)
        result = solve(problem, run.algorithm, run.params, limits, ProgressWriter(run.pk))
        result.test_vectors = export.test_vectors(result.model, train)
        if test is not None:
            result.holdout = holdout_report(result.model, problem, test, roles, description)
    except (DataError, ParameterError, ProblemError) as e:
        finish_failed(run.pk, str(e), "")
    except SoftTimeLimitExceeded:
        raise
    except MemoryError:
        finish_failed(run.pk, "The solver ran out of memory; try a larger λ, a smaller depth or coarser thresholds.",
                      tb.format_exc())
    except Exception as e:
        log.exception("run %s failed", pk)
        finish_failed(run.pk, f"The solver stopped with an internal error ({type(e).__name__}).", tb.format_exc())
    else:
        finish_with_result(run.pk, result)
    if run.path_id:
        from corelsweb.runs import paths

        paths.cell_finished(run.path_id)


def finish_with_result(pk, result):
    Run.objects.filter(pk=pk).update(
        status=result.status, result=result.to_dict(), trace=result.trace, finished=timezone.now(),
        progress={}, version=F("version") + 1,
    )


def finish_failed(pk, message, trace_text):
    Run.objects.filter(pk=pk).update(
        status=Run.Status.FAILED, error=message, traceback=trace_text, finished=timezone.now(),
        version=F("version") + 1,
    )


def algorithm_for(name):
    """Return the registry entry of ``name`` or 404 (a URL named an unknown algorithm)."""
    try:
        return registry.get(name)
    except ParameterError:
        raise Http404 from None


def missing_roles(dataset, algorithm, config):
    """Return the plain-words roles ``algorithm`` needs that ``dataset`` has not been given."""
    have = {k for k, v in dataset.roles.items() if v}
    return [registry.ROLE_WORDS.get(r, r) for r in algorithm.required_roles(config) if r not in have]


def estimate_for(dataset, algorithm, params):
    """Return the rough pre-run estimate of ``algorithm`` with ``params`` on ``dataset``, or None.

    The binary features come from the dataset page's (cached) preview; the
    algorithm says how many candidates the search makes of them (mined rules).
    None when the roles do not make a problem yet.
    """
    from corelsweb.runs.objectives import dataset_loss0
    from solver.estimate import estimate_for as algorithm_estimate

    preview = features_preview(dataset)
    if "n_features" not in preview:
        return None
    spec = registry.get(algorithm)
    n_features = spec.searched_features(preview["n_features"], params)
    return algorithm_estimate(spec, n_features, dataset.n_rows, dataset_loss0(dataset, algorithm, params, preview),
                              params, binarization=dataset.binarization)


def quota_problem(owner, new_runs=1):
    """Return a plain sentence when ``owner`` would pass the limit on queued and running runs, else None."""
    active = Run.objects.filter(owner=owner, status__in=Run.ACTIVE).count()
    limit = settings.CORELSWEB_MAX_ACTIVE_RUNS
    if active + new_runs > limit:
        return (f"You have {active} runs queued or running and may have at most {limit}; wait for some to finish "
                "or cancel them.")
    return None
