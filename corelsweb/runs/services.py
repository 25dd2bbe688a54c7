"""The life of a run: create, enqueue, claim, execute, cancel, retry."""

import logging
import time
import traceback as tb

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corelsweb.datasets.models import Dataset
from corelsweb.datasets.services import load_table
from corelsweb.runs.models import Run
from solver import export, metrics, registry
from solver.api import Limits, ProblemError, solve
from solver.data import DataError, Roles, make_problem
from solver.data.evaluation import problem_like, split_table
from solver.estimate import estimate, features_from_profile
from solver.registry import ParameterError
from solver.regularization import root_loss

log = logging.getLogger(__name__)

LIVE_TRACE_POINTS = 600


def get_run_for_user(request, pk):
    """Return run ``pk`` if the signed-in user owns it, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(Run.objects.select_related("dataset"), pk=pk, owner=request.user)


def new_run(owner, dataset, algorithm, params, limits, evaluation=None, note="", path=None):
    """Return an unsaved queued run with a snapshot of the dataset's roles and binarization."""
    return Run(owner=owner, dataset=dataset, algorithm=algorithm, params=params, limits=limits,
               roles=dict(dataset.roles), binarization=dataset.binarization, evaluation=evaluation or {},
               note=note, path=path)


def enqueue(runs):
    """Send the runs' tasks once the transaction commits (a group when there are several)."""
    from celery import group

    from corelsweb.runs.tasks import execute_run_task

    pks = [r.pk for r in runs]
    if len(pks) == 1:
        execute_run_task.delay_on_commit(pks[0])
    elif pks:
        transaction.on_commit(lambda: group(execute_run_task.s(pk) for pk in pks).apply_async())


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


def claim_run(pk, worker):
    """Mark a queued run as running for ``worker``; return False if someone else has it."""
    now = timezone.now()
    claimed = Run.objects.filter(pk=pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, worker=worker, started=now, heartbeat=now, attempts=F("attempts") + 1,
        version=F("version") + 1,
    )
    return claimed == 1


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
                "metrics": metrics.evaluate(model, problem_like(problem, test, roles))}
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
    """Return the rough pre-run estimate of ``algorithm`` with ``params`` on ``dataset`` (from its profile)."""
    roles = dataset.roles
    excluded = {v for k, v in roles.items() if k not in ("ignore", "positive_class", "features") and v}
    excluded |= set(roles.get("ignore") or [])
    n_features = features_from_profile(dataset.columns, excluded, dataset.binarization)
    counts = list((dataset.label_counts() or {}).values())
    loss0 = root_loss(counts, params.get("objective", "accuracy")) if counts else 1.0
    out = estimate(n_features, dataset.n_rows, loss0, params.get("regularization") or 0.0, params.get("max_depth"),
                   rule_list=registry.get(algorithm).model_type == "rule_list")
    out["n_features"] = n_features
    return out
