import zlib

from django.contrib import messages
from django.contrib.auth.decorators import login_required

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from django.db.models import Count

from corelsweb.datasets.services import algorithm_problems, get_dataset_for_user, roles_allow
from corelsweb.figures import bound_trace_figure, model_figure, panels_for_result
from corelsweb.figures.compare import trace_comparison_figure
from corelsweb.figures.path import frontier_figure, path_figure
from corelsweb.figures.roc import roc_overlay_figure, roc_path_figure
from corelsweb.ops.warming import algorithm_readiness, queue_place, run_wait_note
from corelsweb.runs.result_notes import result_notes
from corelsweb.runs import metric_table, services
from corelsweb.runs.objectives import objective_words
from corelsweb.figures.tree import tree_figure, tree_rule_lines
from corelsweb.runs import paths
from corelsweb.runs.models import Run
from corelsweb.runs.registry_forms import PathForm, RunForm
from corelsweb.runs.snapshot import run_view
from solver import export, registry, timing
from solver.models import model_from_dict


def home(request):
    if not request.user.is_authenticated:
        return render(request, "front/welcome.html")
    # λ-path cells are many runs of one request: they are listed under their path, not one by one.
    ctx = {
        "datasets": request.user.datasets.all()[:50],
        "runs": request.user.runs.filter(path__isnull=True).select_related("dataset")[:30],
        "paths": request.user.paths.select_related("dataset").annotate(n_runs=Count("runs"))[:10],
    }
    return render(request, "front/home.html", ctx)


def _objective_param(spec):
    return next((p for p in spec.params if p.name == "objective"), None)


@login_required
def new_run(request, dataset_pk, algorithm):
    dataset = get_dataset_for_user(request, dataset_pk)
    spec = services.algorithm_for(algorithm)
    initial = None
    if request.GET.get("from"):
        earlier = services.get_run_for_user(request, request.GET["from"])
        initial = RunForm.initial_from(spec, earlier.params, earlier.limits, earlier.evaluation)
    elif request.GET.get("objective") in getattr(_objective_param(spec), "choices", ()):
        # A link from a run page that offers an objective fitting the data ("balanced accuracy on GOSDT").
        initial = {"p_objective": request.GET["objective"]}
    form = RunForm(spec, request.POST or None, initial=initial, dataset=dataset)
    if request.method == "POST" and form.is_valid():
        problems = algorithm_problems(dataset, spec, form.cleaned_data["params"])
        for problem in problems:
            form.add_error(None, problem)
        if problems:
            pass
        elif services.quota_problem(request.user):
            form.add_error(None, services.quota_problem(request.user))
        else:
            run = services.create_run(
                request.user,
                dataset,
                spec.name,
                form.cleaned_data["params"],
                form.limits(),
                form.evaluation_setting(),
                form.notes(),
            )
            Run.objects.filter(pk=run.pk).update(name=form.cleaned_data["run_name"].strip())
            return redirect(run)
    shown = (
        form.cleaned_data["params"]
        if form.is_bound and form.is_valid()
        else spec.clean({k[2:]: v for k, v in (initial or {}).items() if k.startswith("p_")})
    )
    ctx = {
        "dataset": dataset,
        "algorithm": spec,
        "form": form,
        "readiness": algorithm_readiness([(spec.name, spec)])[0],
        "estimate": services.estimate_for(dataset, spec.name, shown) if spec.proves_optimality else None,
    }
    return render(request, "runs/new.html", ctx, status=400 if form.errors else 200)


@login_required
@require_POST
def form_estimate(request, dataset_pk, algorithm):
    """Return the estimate box and λ's conversion for the run form's current values (polled as the form changes)."""
    dataset = get_dataset_for_user(request, dataset_pk)
    spec = services.algorithm_for(algorithm)
    form = RunForm(spec, request.POST, dataset=dataset)
    valid = form.is_valid()
    params = form.cleaned_data.get("params") if valid else None
    estimate = services.estimate_for(dataset, spec.name, params) if params and spec.proves_optimality else None
    errors = [str(e) for e in form.non_field_errors()]
    errors += [f"{form[name].label}: {e[0]}" for name, e in form.errors.items() if name != "__all__"]
    return JsonResponse(
        {
            "html": render_to_string(
                "runs/_estimate.html", {"estimate": estimate, "dataset": dataset, "algorithm": spec, "errors": errors}
            ),
            "regularization": params.get("regularization") if params else None,
            "lambda_text": form.note if valid else (errors[0] if errors else ""),
        }
    )


def result_context(v):
    """Return the figures and tables of a run view (live or frozen): model, metrics, fairness, features, panels."""
    result = v["result"]
    if not result:
        return {"v": v, "model_figure": None, "panels": []}
    return {
        "v": v,
        "model_figure": model_figure(result),
        "panels": panels_for_result(result),
        "metrics": metric_table.metric_table(result),
        "overfitting": metric_table.overfitting_warnings(result),
        "result_notes": result_notes(result),
        "fairness": metric_table.fairness_table(
            result, v.get("group_names"), (result.get("params") or {}).get("objective")
        ),
        "searched": metric_table.searched_features(result, v.get("features_preview"), v.get("evaluation")),
        "objective_words": objective_words(result["algorithm"], result.get("params") or {}),
        "tree_rules": tree_rule_lines(result["model"]) if result["model"]["type"] == "tree" else None,
        "rashomon": rashomon_context(result),
        "rashomon_favourites": set(),
        "time_split": time_split(v.get("timing") or result.get("timing")),
    }


def time_split(stored):
    """Return the time split of a run's ``timing`` for the pages: rows, the total and the search's share."""
    rows = timing.rows(stored)
    if not rows:
        return None
    return {"rows": rows, "total": float(stored["total_seconds"]), "searching": float(stored["stages"]["searching"])}


@login_required
def detail(request, pk):
    run = services.get_run_for_user(request, pk)
    ctx = result_context(run_view(run))
    ctx.update(
        run=run,
        share_links=run.share_links.all(),
        wait_note=run_wait_note(run) if run.is_active else "",
        queue_place=queue_place(run),
        live_trace=bound_trace_figure(run.trace) if run.is_active else None,
        pieces=list(run.pieces.all()),  # a run split across workers (corelsweb.runs.splitting)
    )
    if run.algorithm == "rashomon":
        ctx["optimal_run"] = services.optimal_run_for(run)
        ctx["rashomon_favourites"] = services.rashomon_favourites(run)
    return render(request, "runs/detail.html", ctx)


@login_required
@require_POST
def rashomon_favourite(request, pk):
    """Keep a tree of a Rashomon run's list as a favourite, or drop it (a toggle; owner only)."""
    run = services.get_run_for_user(request, pk)
    if run.algorithm != "rashomon":
        raise Http404
    tree = request.POST.get("tree", "")
    listed = {t["text"] for t in ((run.result or {}).get("extras") or {}).get("top", [])}
    if tree not in listed:
        messages.error(request, "That tree is not in this run's list of trees.")
    elif services.toggle_rashomon_favourite(run, tree):
        messages.success(request, "Kept the tree as a favourite.")
    else:
        messages.success(request, "The tree is no longer a favourite.")
    return redirect(f"{run.get_absolute_url()}#rashomon-trees")


@login_required
@require_POST
def rashomon_optimal_run(request, pk):
    """Queue a GOSDT run with a Rashomon run's data and settings (the optimum at the set's centre), or open one."""
    run = services.get_run_for_user(request, pk)
    if run.algorithm != "rashomon":
        raise Http404
    existing = services.optimal_run_for(run)
    if existing is not None:
        return redirect(existing)
    if services.quota_problem(request.user):
        messages.error(request, services.quota_problem(request.user))
        return redirect(run)
    params, limits, evaluation = services.optimal_run_settings(run)
    new = services.create_run(
        request.user,
        run.dataset,
        "gosdt",
        params,
        limits,
        evaluation,
        f"The optimum of Rashomon run #{run.pk}'s settings.",
    )
    messages.success(request, "Queued GOSDT with the Rashomon run's settings.")
    return redirect(new)


def progress_payload(run, since, template_ctx, stamp=None):
    """Return the JSON of the polling endpoint: unchanged (same ``stamp``), or status HTML and live trace."""
    stamp = stamp or str(run.version)
    if since == stamp:
        return {"unchanged": True}
    return {
        "version": stamp,
        "status": run.status,
        "active": run.is_active,
        "html": render_to_string("runs/_status.html", template_ctx),
        "trace": run.trace if run.is_active else None,
    }


@login_required
def progress(request, pk):
    run = services.get_run_for_user(request, pk)
    note = run_wait_note(run) if run.is_active else ""
    ctx = {"run": run, "wait_note": note, "queue_place": queue_place(run)}
    # A queued run's place changes as others start, without a change to the run itself.
    stamp = f"{run.version}-{zlib.crc32(ctx['queue_place'].encode())}" if ctx["queue_place"] else None
    return JsonResponse(progress_payload(run, request.GET.get("v"), ctx, stamp))


@login_required
@require_POST
def cancel(request, pk):
    run = services.get_run_for_user(request, pk)
    services.cancel_run(run)
    messages.info(request, "Cancelling: a running search stops at its next step and keeps its best model.")
    return redirect(run)


@login_required
@require_POST
def retry(request, pk):
    run = services.get_run_for_user(request, pk)
    if services.quota_problem(request.user):
        messages.error(request, services.quota_problem(request.user))
        return redirect(run)
    new = services.retry_run(run)
    messages.success(request, "Queued the same run again.")
    return redirect(new)


@login_required
@require_POST
def delete(request, pk):
    run = services.get_run_for_user(request, pk)
    if run.is_active:
        messages.error(request, "Cancel the run before deleting it.")
        return redirect(run)
    dataset = run.dataset
    run.delete()
    return redirect(dataset)


@login_required
def export_model(request, pk, fmt):
    run = services.get_run_for_user(request, pk)
    if run.result is None or fmt not in export.EXPORT_FORMATS:
        raise Http404
    body, kind, ext = export.render(model_from_dict(run.result["model"]), fmt, run.result.get("test_vectors", []))
    response = HttpResponse(body, content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-model.{ext}"'
    return response


@login_required
def result_json(request, pk):
    run = services.get_run_for_user(request, pk)
    if run.result is None:
        return JsonResponse({"error": "This run has no result yet."}, status=404)
    # The run's own split counts the write of its result too (``lifecycle.finish_durably``).
    result = {**run.result, "timing": run.timing} if run.timing else run.result
    response = JsonResponse(result, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-result.json"'
    return response


@login_required
def new_path(request, dataset_pk, algorithm):
    dataset = get_dataset_for_user(request, dataset_pk)
    spec = services.algorithm_for(algorithm)
    form = PathForm(spec, request.POST or None, dataset=dataset)
    if request.method == "POST" and form.is_valid():
        params = {k: v for k, v in form.cleaned_data["params"].items() if k != "regularization"}
        missing = services.missing_roles(dataset, spec, form.cleaned_data["params"])
        cells = len(form.cleaned_data["lambdas"]) * form.cleaned_data["folds"] + 1
        if missing:
            form.add_error(None, f"{spec.title} needs {' and '.join(missing)}; set it on the dataset page first.")
        elif services.quota_problem(request.user, cells):
            form.add_error(None, services.quota_problem(request.user, cells))
        else:
            path = paths.create_path(
                request.user,
                dataset,
                spec.name,
                params,
                form.limits(),
                form.cleaned_data["lambdas"],
                form.cleaned_data["folds"],
                form.cleaned_data["seed"],
            )
            return redirect(path)
    ctx = {"dataset": dataset, "algorithm": spec, "form": form}
    return render(request, "runs/new_path.html", ctx, status=400 if form.errors else 200)


def path_context(path):
    grid = paths.cells(path)
    rows = path.summary or paths.summarize(path, grid)
    table = [
        {
            "lambda": lam,
            "cells": [grid.get((lam, f)) for f in range(path.folds)],
            "summary": next((r for r in rows if r["lambda"] == lam), None),
        }
        for lam in path.lambdas
    ]
    active = any(r.is_active for r in grid.values()) or (path.refit_run is not None and path.refit_run.is_active)
    # The first fold's run of each λ: its tree's ROC hull on that fold's training rows.
    first = [
        (lam, run.get_absolute_url(), run.result)
        for (lam, fold), run in grid.items()
        if fold == 0 and run.result is not None
    ]
    roc = roc_path_figure(first)
    title = paths.METRICS[path.metric][0]
    return {
        "path": path,
        "table": table,
        "active": active,
        "metric_title": title,
        "figure": path_figure(rows, path.metric, title, path.chosen_lambda),
        "frontier": frontier_figure(rows, path.algorithm, title) if paths.is_classification(path) else None,
        "roc_figure": roc if len(roc["data"]) > 1 else None,
    }


@login_required
def path_detail(request, pk):
    path = paths.get_path_for_user(request, pk)
    return render(request, "runs/path.html", path_context(path))


@login_required
def path_progress(request, pk):
    path = paths.get_path_for_user(request, pk)
    ctx = path_context(path)
    return JsonResponse({"active": ctx["active"], "html": render_to_string("runs/_path_grid.html", ctx, request)})


@login_required
@require_POST
def path_retry_cell(request, pk, run_pk):
    path = paths.get_path_for_user(request, pk)
    run = get_object_or_404(Run, pk=run_pk, path=path, owner=request.user)
    paths.retry_cell(path, run)
    messages.success(request, "Queued the cell again.")
    return redirect(path)


@login_required
@require_POST
def path_refit(request, pk):
    path = paths.get_path_for_user(request, pk)
    if paths.refit_anyway(path) is None:
        messages.error(request, "There is no complete λ to refit at yet.")
    return redirect(path)


@login_required
def dataset_runs(request, dataset_pk):
    dataset = get_dataset_for_user(request, dataset_pk)
    ctx = {
        "dataset": dataset,
        "runs": dataset.runs.filter(owner=request.user, path__isnull=True).order_by("-created")[:200],
        "paths": dataset.paths.filter(owner=request.user).annotate(n_runs=Count("runs"))[:50],
        "algorithms": [
            a
            for a in registry.algorithms().values()
            if any(p.name == "regularization" for p in a.params) and roles_allow(dataset, a)
        ],
    }
    return render(request, "runs/dataset_runs.html", ctx)


@login_required
def compare(request, dataset_pk):
    dataset = get_dataset_for_user(request, dataset_pk)
    ids = [int(i) for i in request.GET.getlist("runs") if i.isdigit()][:8]
    runs = list(
        Run.objects.filter(pk__in=ids, dataset=dataset, owner=request.user, result__isnull=False).order_by("pk")
    )
    if len(runs) < 2:
        messages.error(request, "Tick at least two finished runs to compare.")
        return redirect("dataset-runs", dataset.pk)
    return render(request, "runs/compare.html", compare_context(dataset, runs))


def compare_context(dataset, runs):
    results = [r.result for r in runs]
    labels = [r.title for r in runs]
    objectives = [objective_words(r.algorithm, r.result.get("params") or r.params) for r in runs]
    return {
        "dataset": dataset,
        "columns": [
            {
                "run": r,
                "label": labels[k],
                "objective": objectives[k],
                "figure": model_figure(r.result),
                "element_id": f"fig-model-{r.pk}",
            }
            for k, r in enumerate(runs)
        ],
        "rows": comparison_rows(runs),
        "overfitting": [
            (labels[k], w) for k, r in enumerate(runs) for w in metric_table.overfitting_warnings(r.result)
        ],
        "roc": roc_overlay_figure([(lab, r.get_absolute_url(), r.result) for lab, r in zip(labels, runs)]),
        "traces": trace_comparison_figure(
            [res for res in results if res.get("lower_bound") is not None],
            title=None,
            labels=[lab for lab, res in zip(labels, results) if res.get("lower_bound") is not None],
        ),
    }


COMPARED_METRICS = [
    ("accuracy", "accuracy", "{:.4f}"),
    ("balanced_accuracy", "balanced accuracy", "{:.4f}"),
    ("f1", "F1", "{:.4f}"),
    ("auc", "AUC", "{:.4f}"),
    ("ibs", "integrated Brier score (lower is better)", "{:.5f}"),
    ("ibs_ratio", "IBS ratio", "{:.4f}"),
    ("harrell_c", "Harrell's C", "{:.4f}"),
    ("uno_c", "Uno's C", "{:.4f}"),
]


def comparison_rows(runs):
    """Return the table of the compare page: one row per measure with one meaning, one column per run.

    Objectives differ between runs (1 − F1, misclassification with or without λ × leaves): each objective
    gets its own row, filled only for the runs that minimised it, so no row ranks incomparable numbers.
    """

    def metric(r, key, holdout=False):
        source = (r.result.get("holdout") or {}).get("metrics", {}) if holdout else r.result.get("metrics", {})
        return source.get(key)

    def discrimination(r, holdout=False):
        block = metric(r, "fairness", holdout) or {}
        task = (r.result.get("params") or {}).get("objective")
        return block.get(task if task == "equality_of_opportunity" else "demographic_parity")

    measures = [
        ("status", lambda r: r.get_status_display(), None),
        # The λ a run used: its result's (a λ left to the data is chosen when the run starts).
        ("λ", lambda r: ((r.result or {}).get("params") or r.params).get("regularization"), "{:g}"),
    ]
    kinds = []
    for r in runs:
        words = objective_words(r.algorithm, r.result.get("params") or r.params)
        if words not in kinds:
            kinds.append(words)
    for words in kinds:

        def mine(r, words=words):
            return objective_words(r.algorithm, r.result.get("params") or r.params) == words

        measures.append(
            (
                f"objective: {words} (training)",
                lambda r, mine=mine: r.result["objective"] if mine(r) else None,
                "{:.6f}",
            )
        )
        measures.append(
            ("lower bound on it", lambda r, mine=mine: r.result.get("lower_bound") if mine(r) else None, "{:.6f}")
        )
    measures.append(("leaves / rules", lambda r: leaf_count(r.result["model"]), "{}"))
    for key, words, fmt in COMPARED_METRICS:
        measures.append((f"training {words}", lambda r, key=key: metric(r, key), fmt))
        measures.append((f"test {words}", lambda r, key=key: metric(r, key, True), fmt))
    measures += [
        ("training discrimination", lambda r: discrimination(r), "{:.4f}"),
        ("test discrimination", lambda r: discrimination(r, True), "{:.4f}"),
        ("test data", lambda r: (r.result.get("holdout") or {}).get("description"), None),
        (
            "seconds in all, from sending to the stored result",
            lambda r: (r.timing or {}).get("total_seconds"),
            "{:.2f}",
        ),
        *[
            (f"seconds {words}", lambda r, stage=stage: stage_seconds(r, stage), "{:.3f}")
            for stage, words in timing.STAGES
        ],
        ("nodes", lambda r: r.result.get("stats", {}).get("nodes"), "{:,}"),
    ]
    rows = []
    for title, get, fmt in measures:
        values = [get(r) for r in runs]
        if all(v is None for v in values):
            continue
        rows.append({"title": title, "values": ["—" if v is None else (fmt.format(v) if fmt else v) for v in values]})
    return rows


def stage_seconds(run, stage):
    """Return the seconds ``run`` spent in ``stage`` (a run from before the split knows its search only)."""
    stages = (run.timing or {}).get("stages")
    if stages:
        return stages.get(stage)
    return run.result.get("stats", {}).get("solve_seconds") if stage == "searching" else None


def leaf_count(model):
    if model["type"] == "tree":
        return sum(1 for f in model["feature"] if f == -1)
    return f"{len(model['antecedents'])} + default"


def rashomon_context(result):
    """Return the Rashomon section of a run page: the count, bounds, features to filter on and the best trees."""
    if not result or result.get("algorithm") != "rashomon":
        return None
    extras = result.get("extras") or {}
    centre = extras.get("gosdt_optimum")
    if centre:
        centre = {**centre, "figure": tree_figure(centre["tree"])}
    top = [
        {**t, "figure": tree_figure(t["tree"]), "element_id": f"rashomon-tree-{t['rank']}"}
        for t in extras.get("top", [])
    ]
    filterable = bool(extras.get("graph"))
    note = None
    if not filterable and extras.get("count"):
        note = extras.get("graph_note") or next(
            (w for w in extras.get("skipped", []) if "graph" in w),
            "This result does not hold the set's graph, so filters are off.",
        )
    return {
        "extras": extras,
        "top": top,
        "features": sorted(extras.get("importance", []), key=lambda r: r["name"]),
        "filterable": filterable,
        "filter_note": note,
        "centre": centre,
    }


@login_required
def rashomon_count(request, pk):
    """Return the number of trees of a run's Rashomon set that the query's filters keep (computed on its graph)."""
    run = services.get_run_for_user(request, pk)
    extras = (run.result or {}).get("extras") or {}
    if run.algorithm != "rashomon" or not extras.get("graph"):
        return JsonResponse({"error": "This run has no Rashomon set to filter."}, status=404)
    try:
        flt = rashomon_filter(request.GET, extras)
    except ValueError as e:
        return JsonResponse({"error": str(e)}, status=400)
    tree_set = load_rashomon(extras["graph"], (run.pk, run.version))
    count = tree_set.count(flt)
    total = extras["count"]
    # Which trees of the page's list (the best of the whole set, in its order) the filters keep.
    listed = len(extras.get("top") or [])
    kept = [tree_set.passes(tree, flt) for _, tree in tree_set.trees(limit=listed)] if listed else []
    return JsonResponse(
        {
            "count": str(count),
            "count_text": f"{count:,}",
            "total_text": f"{total:,}",
            "share": count / total if total else 0.0,
            "listed_kept": kept,
        }
    )


def rashomon_filter(query, extras):
    """Return the ``Filter`` of a count query, or raise ``ValueError`` with a plain sentence."""
    import math

    from solver.rashomon.sets import Filter

    def features(name):
        out = set()
        for part in query.getlist(name):
            for item in str(part).split(","):
                if item.strip():
                    if not item.strip().isdigit():
                        raise ValueError(f"{name} must list feature numbers.")
                    out.add(int(item))
        return frozenset(out)

    def number(name, kind):
        text = (query.get(name) or "").strip()
        if not text:
            return None
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(f"{name.replace('_', ' ')} must be a number.") from None
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name.replace('_', ' ')} must be a number of at least 0.")
        return value

    scale = int(extras.get("scale") or 1)
    score_min, score_max = number("score_min", float), number("score_max", float)
    mistakes = (
        None if score_max is None else math.ceil((1 - score_max) * scale - 1e-9),
        None if score_min is None else math.floor((1 - score_min) * scale + 1e-9),
    )
    return Filter(
        exclude=features("exclude"),
        include=features("include"),
        max_depth=number("max_depth", int),
        leaves=(number("leaves_min", int), number("leaves_max", int)),
        mistakes=mistakes,
    )


_RASHOMON_SETS = {}  # (run id, version) -> TreeSet: a large graph is decoded once per process, its counts cached
RASHOMON_SETS_KEPT = 4


def load_rashomon(graph, key=None):
    from solver.rashomon.report import load

    if key is None:
        return load(graph)
    s = _RASHOMON_SETS.get(key)
    if s is None:
        while len(_RASHOMON_SETS) >= RASHOMON_SETS_KEPT:
            _RASHOMON_SETS.pop(next(iter(_RASHOMON_SETS)))
        s = _RASHOMON_SETS[key] = load(graph)
    return s
