import tempfile

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from corelsweb.datasets import services
from corelsweb.datasets.forms import PredictForm, RolesForm, SampleForm, UploadForm
from corelsweb.datasets.samples import SAMPLES
from corelsweb.ops.warming import algorithm_readiness
from corelsweb.runs.services import get_run_for_user
from solver.data import DataError
from solver.models import model_from_dict


def upload_refused(request):
    """Return the upload handler's refusal of this request's file, if any (parses the body first)."""
    if request.method != "POST":
        return None
    request.FILES  # noqa: B018 - parsing the body runs the upload handler
    return getattr(request, "upload_refused", None)


@login_required
def upload(request):
    posted = request.method == "POST"
    form = UploadForm(
        request.POST if posted else None, request.FILES if posted else None, refused=upload_refused(request)
    )
    if request.method == "POST" and form.is_valid():
        uploaded = form.cleaned_data["file"]
        same = None if form.cleaned_data["keep_copy"] else services.find_same_file(request.user, uploaded)
        if same is not None:
            return already_uploaded(request, same)
        try:
            services.check_upload_size(uploaded)
            services.check_upload_allowed(request.user, uploaded.size)
            dataset = services.create_dataset(request.user, form.cleaned_data["name"], uploaded, uploaded.name)
        except DataError as e:
            form.add_error("file", str(e))
        else:
            messages.success(request, f"Uploaded {dataset.n_rows:,} rows and {dataset.n_columns} columns.")
            if not dataset.roles.get("label") and not dataset.roles.get("time"):
                problem = services.label_problem(dataset.columns[-1])
                messages.warning(request, f"The last column cannot be the label: {problem} Choose the label below.")
            return redirect(dataset)
    ctx = {"form": form, "sample_form": SampleForm(), "samples": SAMPLES.values()}
    return render(request, "datasets/upload.html", ctx, status=400 if form.errors else 200)


def already_uploaded(request, dataset):
    """Open the dataset that holds the same file, saying that nothing was stored twice."""
    messages.info(
        request,
        f"You uploaded this file before, as “{dataset.name}” on {dataset.created:%Y-%m-%d %H:%M} UTC; nothing was "
        "stored twice, here it is. To keep a second copy, tick “Keep a second copy” and upload it again.",
    )
    return redirect(dataset)


@login_required
@require_POST
def add_sample(request):
    form = SampleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose one of the sample datasets.")
        return redirect("dataset-upload")
    dataset = services.add_sample(request.user, form.cleaned_data["sample"])
    return redirect(dataset)


@login_required
def detail(request, pk):
    dataset = services.get_dataset_for_user(request, pk)
    initial = {**dataset.roles, "binarization": dataset.binarization}
    form = RolesForm(dataset, request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.update_roles(dataset, form.roles(), form.cleaned_data["binarization"])
        except DataError as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, "Saved the column roles.")
            return redirect(dataset)
    ctx = {
        "dataset": dataset,
        "form": form,
        "runs": dataset.runs.filter(path__isnull=True).order_by("-created")[:50],
        "algorithms": offered_with_problems(dataset),
        "label_counts": sorted((dataset.label_counts() or {}).items()),
        "survival": services.survival_summary(dataset),
        "preview": services.features_preview(dataset),
    }
    return render(request, "datasets/detail.html", ctx, status=400 if form.errors else 200)


def offered_with_problems(dataset):
    """Return ``[(name, algorithm, state, words, problem)]``: each offered algorithm, its readiness, and what stops
    its default settings on this dataset (a three-class label for a two-class algorithm, say), or ""."""
    out = []
    for name, algorithm, state, words in algorithm_readiness(services.offered_algorithms(dataset)):
        problems = services.algorithm_problems(dataset, algorithm, algorithm.clean({}))
        out.append((name, algorithm, state, words, problems[0] if problems else ""))
    return out


@login_required
@require_POST
def delete(request, pk):
    dataset = services.get_dataset_for_user(request, pk)
    name = dataset.name
    services.delete_dataset(dataset)
    messages.success(request, f"Deleted {name} and its runs.")
    return redirect("home")


@login_required
def predict(request, pk):
    run = get_run_for_user(request, pk)
    if not run.result:
        messages.error(request, "This run has no model yet.")
        return redirect(run)
    posted = request.method == "POST"
    form = PredictForm(
        request.POST if posted else None, request.FILES if posted else None, refused=upload_refused(request)
    )
    if request.method == "POST" and form.is_valid():
        # Predictions go to a temporary file first, so that a bad row is a clear error page, not half a download.
        out = tempfile.TemporaryFile("w+b")
        try:
            warnings = services.write_predictions(
                model_from_dict(run.result["model"]),
                form.cleaned_data["file"],
                out,
                form.cleaned_data["id_column"] or None,
            )
        except DataError as e:
            out.close()
            form.add_error("file", str(e))
        else:
            for warning in warnings:
                messages.warning(request, warning)
            out.seek(0)
            return FileResponse(
                out, as_attachment=True, filename=f"run-{run.pk}-predictions.csv", content_type="text/csv"
            )
    ctx = {"run": run, "form": form, "columns": services.model_columns(run)}
    return render(request, "datasets/predict.html", ctx, status=400 if form.errors else 200)
