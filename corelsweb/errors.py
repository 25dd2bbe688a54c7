"""Error pages: a database outage is a short 503 with Retry-After, anything else the plain 500 page."""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, HttpResponseServerError
from django.template import loader

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30


def database_is_down(error):
    """Return True for the errors of a database that cannot be reached (not those of a bad query)."""
    return isinstance(error, (OperationalError, InterfaceError))


def server_error(request):
    """Answer an uncaught error: 503 with Retry-After when the database is unreachable, else our 500 page.

    Django calls this (``handler500``) inside its except block, for an error in a view or in any middleware;
    the pages are rendered without the request, so that nothing here touches the database again.
    """
    error = sys.exc_info()[1]
    if database_is_down(error):
        log.warning("the database is unreachable: %s", error)
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return HttpResponseServerError(loader.render_to_string("500.html"))
