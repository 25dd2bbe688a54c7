"""Regularization paths with cross-validation: fan out λ × folds as Celery runs, collect, refit.

Fan-out is ordinary runs (one per cell), so any number of workers on any
number of machines share them. Fan-in needs no result backend: the database
is the source of truth. Every way a cell ends goes through
``lifecycle.finish``, which sends ``path_summary_task``; the task that finds
every cell final summarises the path (with a CART baseline on the same
folds, for classification, under the task's own time limit), chooses λ and
queues the refit on all rows (a conditional UPDATE, so that happens once).
"""

import logging
import math

from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corelsweb.datasets.services import load_table
from corelsweb.runs import lifecycle, services, solving
from corelsweb.runs.models import RegularizationPath, Run
from solver import api, pipeline
from solver.api import ProblemError
from solver.data import DataError, Roles
from solver.registry import ParameterError

log = logging.getLogger(__name__)

# metric key in Result.metrics -> (title, higher is better)
METRICS = {
    "accuracy": ("accuracy", True),
    "balanced_accuracy": ("balanced accuracy", True),
    "f1": ("F1", True),
    "auc": ("AUC", True),
    "ibs": ("integrated Brier score", False),
}


def selection_metric(algorithm, params):
    """Return the validation metric a path chooses λ by, from the algorithm's objective."""
    if algorithm == "osst":
        return "ibs"
    objective = params.get("objective") or "accuracy"
    return objective if objective in METRICS else "accuracy"


def get_path_for_user(request, pk):
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(RegularizationPath.objects.select_related("dataset"), pk=pk, owner=request.user)


@transaction.atomic
def create_path(owner, dataset, algorithm, params, limits, lambdas, folds, seed=0):
    """Store a path and one queued run per (λ, fold); enqueue them as a group on commit."""
    path = RegularizationPath.objects.create(
        owner=owner,
        dataset=dataset,
        algorithm=algorithm,
        params=params,
        limits=limits,
        lambdas=sorted(set(lambdas), reverse=True),
        folds=folds,
        seed=seed,
        metric=selection_metric(algorithm, params),
    )
    runs = [
        services.new_run(
            owner,
            dataset,
            algorithm,
            {**params, "regularization": lam},
            limits,
            {"kfold": folds, "fold": fold, "seed": seed},
            f"path #{path.pk}: λ={lam:g}, fold {fold + 1}",
            path,
        )
        for lam in path.lambdas
        for fold in range(folds)
    ]
    Run.objects.bulk_create(runs)
    lifecycle.send(runs)
    return path


def cells(path):
    """Return ``{(λ, fold): latest run}`` of the path's cross-validation cells."""
    out = {}
    for run in path.runs.filter(evaluation__has_key="kfold").order_by("created", "pk"):
        out[(run.params["regularization"], run.evaluation["fold"])] = run
    return out


def summarize(path, grid, baseline=None):
    """Return one row per λ: mean and spread of train/validation metric, leaves, statuses, CART's scores."""
    baseline = baseline or {}
    rows = []
    for lam in path.lambdas:
        runs = [grid.get((lam, f)) for f in range(path.folds)]
        done = [r for r in runs if r is not None and r.result is not None]
        train = [r.result["metrics"].get(path.metric) for r in done]
        valid = [(r.result.get("holdout") or {}).get("metrics", {}).get(path.metric) for r in done]
        leaves = [
            len([f for f in r.result["model"].get("feature", []) if f == -1])
            or len(r.result["model"].get("antecedents", [])) + 1
            for r in done
        ]
        rows.append(
            {
                "lambda": lam,
                "folds_done": len(done),
                "failed": sum(1 for r in runs if r is not None and r.status == Run.Status.FAILED),
                "optimal": sum(1 for r in done if r.status == Run.Status.OPTIMAL),
                "train_mean": _mean(train),
                "valid_mean": _mean(valid),
                "valid_std": _std(valid),
                "leaves_mean": _mean(leaves),
                "complete": len(done) == path.folds and None not in valid,
                "cart": baseline.get(lam),
            }
        )
    return rows


def is_classification(path):
    """Return whether the path scores classifiers (an osst path scores survival curves)."""
    return path.metric != "ibs"


def cart_baseline(path, grid):
    """Return ``{λ: {"train_mean", "valid_mean", "leaves_mean"}}`` of CART on the path's own folds, or ``{}``.

    For every fold, CART is grown on exactly the rows and binary features the
    fold's cells used, to the path's max_depth, pruned for misclassification
    + λ × leaves at each λ of the grid, and scored like the cells. A problem
    with the data is logged and leaves the path without a baseline.
    """
    try:
        table = load_table(path.dataset)
        scores = {lam: [] for lam in path.lambdas}
        for fold in range(path.folds):
            cell = grid[(path.lambdas[0], fold)]
            # The fold's own rows and binary features (the cell's binarization), grown by CART.
            prepared = pipeline.prepare(
                table, Roles.from_dict(cell.roles), "cart", cell.binarization, solving.evaluation(cell)
            )
            for lam in path.lambdas:
                result = api.solve(
                    prepared.problem, "cart", {"max_depth": path.params.get("max_depth"), "regularization": lam}
                )
                holdout = pipeline.score(result.model, prepared)
                scores[lam].append(
                    (
                        result.metrics.get(path.metric),
                        holdout.get("metrics", {}).get(path.metric),
                        result.model.n_leaves,
                    )
                )
    except (DataError, ParameterError, ProblemError):
        log.exception("CART baseline of path %s failed", path.pk)
        return {}
    return {
        lam: {
            "train_mean": _mean([s[0] for s in rows]),
            "valid_mean": _mean([s[1] for s in rows]),
            "leaves_mean": _mean([s[2] for s in rows]),
        }
        for lam, rows in scores.items()
    }


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _std(values):
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return 0.0 if values else None
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def choose_lambda(rows, higher_is_better):
    """Return the λ with the best mean validation score among complete rows; ties go to the larger λ."""
    eligible = [r for r in rows if r["complete"] and r["valid_mean"] is not None]
    if not eligible:
        return None
    sign = 1 if higher_is_better else -1
    return max(eligible, key=lambda r: (sign * round(r["valid_mean"], 12), r["lambda"]))["lambda"]


def cell_finished(path_pk):
    """Called after every run of the path ends: once all cells are final, summarise, choose λ, refit.

    A cell without a model (failed, or cancelled before it started) leaves the
    path incomplete (shown per cell, retried by the user), never silently
    dropped; cells stopped by a limit or cancelled mid-search keep their model
    and count, with their status shown.
    """
    path = RegularizationPath.objects.get(pk=path_pk)
    if path.refit_run_id:
        if not Run.objects.filter(pk=path.refit_run_id, status__in=Run.ACTIVE).exists():
            finish_path(path)
        return
    grid = cells(path)
    if len(grid) < len(path.lambdas) * path.folds or any(r.is_active for r in grid.values()):
        return
    if path.status != RegularizationPath.Status.RUNNING:
        return
    baseline = cart_baseline(path, grid) if is_classification(path) and path.algorithm != "cart" else None
    rows = summarize(path, grid, baseline)
    chosen = choose_lambda(rows, METRICS[path.metric][1])
    missing = any(r.result is None for r in grid.values())
    status = RegularizationPath.Status.INCOMPLETE if missing or chosen is None else RegularizationPath.Status.REFITTING
    claimed = RegularizationPath.objects.filter(
        pk=path.pk, status=RegularizationPath.Status.RUNNING, refit_run=None
    ).update(summary=rows, chosen_lambda=chosen, status=status)
    if claimed and status == RegularizationPath.Status.REFITTING:
        start_refit(path, chosen)


def start_refit(path, lam):
    with transaction.atomic():
        refit = services.new_run(
            path.owner,
            path.dataset,
            path.algorithm,
            {**path.params, "regularization": lam},
            path.limits,
            {},
            f"path #{path.pk}: refit on all rows at λ={lam:g}",
            path,
        )
        refit.save()
        RegularizationPath.objects.filter(pk=path.pk).update(
            refit_run=refit, status=RegularizationPath.Status.REFITTING
        )
        lifecycle.send([refit])
    return refit


def refit_anyway(path):
    """Refit an incomplete path at the best λ among its complete rows."""
    if path.chosen_lambda is None or path.refit_run_id:
        return None
    claimed = RegularizationPath.objects.filter(
        pk=path.pk, status=RegularizationPath.Status.INCOMPLETE, refit_run=None
    ).update(status=RegularizationPath.Status.REFITTING)
    return start_refit(path, path.chosen_lambda) if claimed else None


def finish_path(path):
    baseline = {row["lambda"]: row.get("cart") for row in path.summary}
    path.summary = summarize(path, cells(path), baseline)
    path.status = RegularizationPath.Status.COMPLETE
    path.finished = path.finished or timezone.now()
    path.save(update_fields=["summary", "status", "finished"])


@transaction.atomic
def retry_cell(path, run):
    """Queue a failed (or cancelled) cell again; the path collects once it finishes."""
    RegularizationPath.objects.filter(pk=path.pk, status=RegularizationPath.Status.INCOMPLETE).update(
        status=RegularizationPath.Status.RUNNING, finished=None
    )
    return services.retry_run(run)
