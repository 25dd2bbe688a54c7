"""Sign-in throttling: django-axes per account and address, and a far higher limit per address.

django-axes records failed sign-ins in the database (``AxesDatabaseHandler``),
so restarting the cache forgets nothing, and locks a username at one client
address (``AXES_LOCKOUT_PARAMETERS``): an attacker's failures on one account
lock neither that account elsewhere nor other accounts at the attacker's
address. Axes has one limit for all its parameter sets, so the far higher
limit per address (against spraying many accounts from one place) is counted
here, from axes' own records.
"""

from datetime import timedelta

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.shortcuts import render
from django.utils import timezone

from corelsweb.security import client_ip


def failure_limit(request, credentials):
    """Failed sign-ins allowed for one username at one address within the window (read per request)."""
    return settings.CORELSWEB_LOGIN_FAILURES


def cooloff(request=None):
    return timedelta(seconds=settings.CORELSWEB_LOGIN_WINDOW_SECONDS)


def address_locked(request):
    """Return True when the client's address has failed too often, over all usernames, within the window."""
    since = timezone.now() - cooloff()
    failures = (
        AccessAttempt.objects.filter(ip_address=client_ip(request), attempt_time__gte=since).aggregate(
            n=Sum("failures_since_start")
        )["n"]
        or 0
    )
    return failures >= settings.CORELSWEB_LOGIN_FAILURES_PER_ADDRESS


def locked_out(request, response=None, credentials=None):
    """The sign-in page saying to wait, with 429 and Retry-After (axes' lockout response, and ours)."""
    from django.contrib.auth.forms import AuthenticationForm

    page = render(request, "registration/login.html", {"form": AuthenticationForm(request), "locked": True}, status=429)
    page["Retry-After"] = str(settings.CORELSWEB_LOGIN_WINDOW_SECONDS)
    return page
