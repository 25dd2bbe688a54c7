from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from corelsweb.ops import services
from corelsweb.runs.models import Run
from corelsweb.runs.services import cancel_run


@staff_member_required
def queue(request):
    return render(request, "ops/queue.html", services.overview())


@staff_member_required
def queue_fragment(request):
    html = render_to_string("ops/_queue.html", services.overview(), request)
    return JsonResponse({"html": html})


@staff_member_required
def run_detail(request, pk):
    """Show any user's run to staff, read-only (no owner controls, no share links, no data rows)."""
    from corelsweb.runs.snapshot import run_view
    from corelsweb.runs.views import result_context

    run = get_object_or_404(Run.objects.select_related("dataset", "owner"), pk=pk)
    ctx = result_context(run_view(run))
    ctx.update(shared=True, staff_view=True, owner=run.owner, run=run)
    return render(request, "runs/detail.html", ctx)


@staff_member_required
@require_POST
def cancel(request, pk):
    run = get_object_or_404(Run, pk=pk)
    cancel_run(run)
    messages.info(request, f"Asked run #{run.pk} to stop.")
    return redirect("ops-queue")


@staff_member_required
@require_POST
def requeue(request, pk):
    run = get_object_or_404(Run, pk=pk)
    new = services.requeue(run)
    messages.success(request, f"Queued run #{run.pk} again as run #{new.pk}.")
    return redirect("ops-queue")
