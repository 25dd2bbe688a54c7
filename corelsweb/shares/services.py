"""Share links: create, revoke, and the read-only getter keyed by token."""

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corelsweb.shares.models import ShareLink


def create_link(run):
    return ShareLink.objects.create(run=run)


def revoke_link(link):
    if link.revoked is None:
        link.revoked = timezone.now()
        link.save(update_fields=["revoked"])


def get_link_for_owner(request, pk):
    """Return share link ``pk`` if the signed-in user owns its run, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(ShareLink, pk=pk, run__owner=request.user)


def get_shared_run(token):
    """Return the run behind an active share token, else 404 (revoked, unknown or malformed)."""
    if not token or len(token) > 64:
        raise Http404
    link = get_object_or_404(ShareLink.objects.select_related("run__dataset"), token=token, revoked__isnull=True)
    return link.run
