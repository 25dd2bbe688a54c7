from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from corelsweb.datasets.services import algorithm_problems, get_dataset_for_user
from corelsweb.figures import bound_trace_figure, model_figure, panels_for_result
from corelsweb.runs import services
from corelsweb.runs.registry_forms import RunForm


def home(request):
    if not request.user.is_authenticated:
        return render(request, "front/welcome.html")
    ctx = {
        "datasets": request.user.datasets.all()[:50],
        "runs": request.user.runs.select_related("dataset")[:30],
    }
    return render(request, "front/home.html", ctx)


@login_required
def new_run(request, dataset_pk, algorithm):
    dataset = get_dataset_for_user(request, dataset_pk)
    spec = services.algorithm_for(algorithm)
    initial = None
    if request.GET.get("from"):
        earlier = services.get_run_for_user(request, request.GET["from"])
        initial = RunForm.initial_from(spec, earlier.params, earlier.limits)
    form = RunForm(spec, request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        problems = algorithm_problems(dataset, spec, form.cleaned_data["params"])
        for problem in problems:
            form.add_error(None, problem)
        if not problems:
            run = services.create_run(request.user, dataset, spec.name, form.cleaned_data["params"], form.limits())
            return redirect(run)
    ctx = {"dataset": dataset, "algorithm": spec, "form": form}
    return render(request, "runs/new.html", ctx, status=400 if form.errors else 200)


def run_context(run, shared=False):
    """Return the template context of a run page (owner's or shared)."""
    result = run.result
    spec = services.algorithm_for(run.algorithm)
    return {
        "run": run,
        "dataset": run.dataset,
        "algorithm": spec,
        # Registry order and titles (the database may reorder JSON keys).
        "param_rows": [(p.title, run.params.get(p.name)) for p in spec.params],
        "result": result,
        "model_figure": model_figure(result) if result else None,
        "panels": panels_for_result(result) if result else [],
        "live_trace": bound_trace_figure(run.trace) if run.is_active else None,
        "shared": shared,
    }


@login_required
def detail(request, pk):
    run = services.get_run_for_user(request, pk)
    ctx = run_context(run)
    ctx["share_links"] = run.share_links.all()
    return render(request, "runs/detail.html", ctx)


def progress_payload(run, since, template_ctx):
    """Return the JSON of the polling endpoint: unchanged, or status HTML and live trace."""
    if since == str(run.version):
        return {"unchanged": True}
    return {
        "version": run.version,
        "status": run.status,
        "active": run.is_active,
        "html": render_to_string("runs/_status.html", template_ctx),
        "trace": run.trace if run.is_active else None,
    }


@login_required
def progress(request, pk):
    run = services.get_run_for_user(request, pk)
    return JsonResponse(progress_payload(run, request.GET.get("v"), {"run": run}))


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
def result_json(request, pk):
    run = services.get_run_for_user(request, pk)
    if run.result is None:
        return JsonResponse({"error": "This run has no result yet."}, status=404)
    response = JsonResponse(run.result, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-result.json"'
    return response

