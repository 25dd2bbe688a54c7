from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from corelsweb.runs import services as run_services
from corelsweb.runs.services import get_run_for_user
from corelsweb.runs.views import result_context
from corelsweb.shares import services


@login_required
@require_POST
def create(request, run_pk):
    run = get_run_for_user(request, run_pk)
    if run.is_active:
        messages.error(request, "You can share the run once it has finished.")
        return redirect(run)
    if run.status == run.Status.FAILED:
        messages.error(request, "A failed run cannot be shared: run it again, and share the run that finishes.")
        return redirect(run)
    services.create_link(run, include_data=request.POST.get("include_data") == "1")
    messages.success(request, "Made a share link: anyone with it sees this snapshot, read-only, until you revoke it.")
    return redirect(run)


@login_required
@require_POST
def revoke(request, pk):
    link = services.get_link_for_owner(request, pk)
    services.revoke_link(link)
    messages.success(request, "Revoked the share link; it no longer opens.")
    return redirect(link.run)


def view(request, token):
    link = services.get_shared_link(token)
    ctx = result_context(link.snapshot)
    ctx.update(shared=True, shared_on=link.created)
    if link.snapshot.get("algorithm") == "rashomon":  # the owner's favourites as they are now, read-only
        ctx["rashomon_favourites"] = run_services.rashomon_favourites(link.run)
    return render(request, "runs/detail.html", ctx)
