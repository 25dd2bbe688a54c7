"""WSGI entry point (gunicorn corelsweb.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "corelsweb.settings")
application = get_wsgi_application()


def warm():
    """Import every view and compile the busiest templates while the server process starts, not at a first request.

    The first request of a fresh process otherwise pays about a second of imports (the views import the solver's
    registry and plotly), and 30 clients signing in at once all waited for it on each worker.
    """
    from django.template.loader import get_template
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - resolving the URLconf imports every view module
    for name in ("registration/login.html", "front/home.html", "runs/new.html", "runs/detail.html"):
        get_template(name)


warm()
