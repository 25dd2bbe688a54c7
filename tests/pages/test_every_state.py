# Check that every page of a run renders for every final state of every algorithm (issue 27, item 6): each
# algorithm (and the objectives with pages of their own) × each final status × with and without test data ×
# the owner's page, a share link's snapshot and the staff view (the states are in tests/pages/states.py).
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from corelsweb.runs.models import Run
from corelsweb.runs.snapshot import run_view
from corelsweb.shares.models import ShareLink
from corelsweb.shares.services import create_link
from tests.pages.helpers import upload
from tests.pages.states import CASES, states, stored_run


def page_urls(run):
    urls = [
        run.get_absolute_url(),
        reverse("run-progress", args=[run.pk]),
        reverse("run-predict", args=[run.pk]),
    ]
    if run.result is not None:
        urls += [reverse("run-result-json", args=[run.pk])]
        urls += [reverse("run-export", args=[run.pk, fmt]) for fmt in ("json", "python", "sql")]
    if run.algorithm == "rashomon" and (run.result or {}).get("extras", {}).get("graph"):
        urls.append(reverse("run-rashomon-count", args=[run.pk]) + "?max_depth=2")
    return urls


def failures(client, urls):
    """Return ``(url, status code)`` of each URL that does not answer 200 (or a redirect)."""
    codes = [(url, client.get(url).status_code) for url in urls]
    return [(url, code) for url, code in codes if code not in (200, 302)]


def share(run):
    """Return a share link of ``run``; of a failed run, one made before failed runs could not be shared."""
    if run.status != Run.Status.FAILED:
        return create_link(run, include_data=True)
    return ShareLink.objects.create(run=run, include_data=True, snapshot=run_view(run, True))


@pytest.fixture
def staff_client(db):
    from django.test import Client

    staff = get_user_model().objects.create(username="sam", is_staff=True)
    other = Client()
    other.force_login(staff)
    return other


@pytest.mark.parametrize("name", list(CASES))
def test_it_renders_every_page_of_a_run_in_every_final_state(alice_client, alice, staff_client, name):
    case = CASES[name]
    dataset = upload(alice, case.filename, case.roles or None, data=case.data)
    bad, compared = [], []
    for with_test in (False, True):
        for status in states(case):
            run = stored_run(alice, dataset, name, status, with_test)
            link = share(run)
            found = failures(alice_client, [*page_urls(run), link.get_absolute_url()])
            found += failures(staff_client, [reverse("ops-run", args=[run.pk])])
            bad += [(status, with_test, url, code) for url, code in found]
            if run.result is not None:
                compared.append(run.pk)
                shared = alice_client.get(link.get_absolute_url()).content.decode()
                if 'id="result-card"' not in shared:
                    bad.append((status, with_test, link.get_absolute_url(), "no result card"))
    compare = reverse("dataset-compare", args=[dataset.pk]) + "?" + "&".join(f"runs={pk}" for pk in compared[-8:])
    # The lists show every run of every state at once.
    lists = [reverse("dataset-detail", args=[dataset.pk]), reverse("dataset-runs", args=[dataset.pk]), reverse("home")]
    bad += [("lists", "", url, code) for url, code in failures(alice_client, lists)]
    code = alice_client.get(compare).status_code
    bad += [] if code == 200 else [("compare", "", compare, code)]
    assert not bad, f"{name}: pages that failed (status, with test data, url, code): {bad}"
