"""Share links: create, revoke, and the read-only getter keyed by token."""

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corelsweb.runs.snapshot import run_view
from corelsweb.shares.models import ShareLink


def create_link(run, include_data=False):
    """Freeze what the run page shows now (the first rows only if asked) behind a new token."""
    if run.is_active or run.status == run.Status.FAILED:
        raise ValueError("a run can be shared once it has finished, and a failed run not at all")
    return ShareLink.objects.create(run=run, include_data=include_data, snapshot=run_view(run, include_data))


def revoke_link(link):
    if link.revoked is None:
        link.revoked = timezone.now()
        link.save(update_fields=["revoked"])


def get_link_for_owner(request, pk):
    """Return share link ``pk`` if the signed-in user owns its run, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(ShareLink, pk=pk, run__owner=request.user)


def get_shared_link(token):
    """Return the active share link of ``token``, else 404 (revoked, unknown or malformed)."""
    if not token or len(token) > 64:
        raise Http404
    return get_object_or_404(ShareLink, token=token, revoked__isnull=True)
