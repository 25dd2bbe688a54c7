from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from corelsweb.datasets import services
from corelsweb.datasets.forms import RolesForm, SampleForm, UploadForm
from corelsweb.datasets.samples import SAMPLES
from corelsweb.runs.registry_forms import algorithm_choices
from solver.data import DataError


@login_required
def upload(request):
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        uploaded = form.cleaned_data["file"]
        try:
            services.check_upload_allowed(request.user, uploaded.size)
            data = services.read_upload(uploaded)
            dataset = services.create_dataset(request.user, form.cleaned_data["name"], data, uploaded.name)
        except DataError as e:
            form.add_error("file", str(e))
        else:
            messages.success(request, f"Uploaded {dataset.n_rows:,} rows and {dataset.n_columns} columns.")
            if not dataset.roles:
                last = dataset.columns[-1]
                messages.warning(request, f"The last column {last['name']!r} cannot be the label "
                                 f"({last['distinct']} distinct values, {last['missing']} missing); choose the label below.")
            return redirect(dataset)
    ctx = {"form": form, "sample_form": SampleForm(), "samples": SAMPLES.values()}
    return render(request, "datasets/upload.html", ctx, status=400 if form.errors else 200)


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
        "runs": dataset.runs.order_by("-created")[:50],
        "algorithms": algorithm_choices(),
        "label_counts": dataset.label_counts(),
    }
    return render(request, "datasets/detail.html", ctx, status=400 if form.errors else 200)


@login_required
@require_POST
def delete(request, pk):
    dataset = services.get_dataset_for_user(request, pk)
    name = dataset.name
    services.delete_dataset(dataset)
    messages.success(request, f"Deleted {name} and its runs.")
    return redirect("home")
