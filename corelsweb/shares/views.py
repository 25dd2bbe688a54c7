from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from corelsweb.runs.services import get_run_for_user
from corelsweb.runs.views import progress_payload, run_context
from corelsweb.shares import services


@login_required
@require_POST
def create(request, run_pk):
    run = get_run_for_user(request, run_pk)
    services.create_link(run)
    messages.success(request, "Made a share link: anyone with it can view this run, read-only, until you revoke it.")
    return redirect(run)


@login_required
@require_POST
def revoke(request, pk):
    link = services.get_link_for_owner(request, pk)
    services.revoke_link(link)
    messages.success(request, "Revoked the share link; it no longer opens.")
    return redirect(link.run)


def view(request, token):
    run = services.get_shared_run(token)
    ctx = run_context(run, shared=True)
    ctx["token"] = token
    return render(request, "runs/detail.html", ctx)


def progress(request, token):
    run = services.get_shared_run(token)
    return JsonResponse(progress_payload(run, request.GET.get("v"), {"run": run, "shared": True}))
