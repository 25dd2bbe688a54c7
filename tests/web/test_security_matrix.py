# Check every URL for every persona: anonymous, owner, stranger (404), staff, share-link holder; and CSRF on every POST.
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from corelsweb.runs.models import RegularizationPath, Run
from corelsweb.shares.models import ShareLink
from corelsweb.shares.services import create_link
from tests.factories import make_dataset, make_finished_run, make_run

pytestmark = pytest.mark.security

LOGIN = "login"  # redirected to sign in
ADMIN = "admin"  # redirected to the admin sign-in


def url_names():
    """Return every named URL of the project outside the admin namespace."""
    names = set()
    for entry in get_resolver().url_patterns:
        if isinstance(entry, URLPattern) and entry.name:
            names.add(entry.name)
        elif isinstance(entry, URLResolver) and entry.namespace != "admin":
            names |= {p.name for p in entry.url_patterns if getattr(p, "name", None)}
    return names


@pytest.fixture
def world(db, alice, charlie):
    staff = get_user_model().objects.create_user("sam", password="sam-password-123", is_staff=True)
    dataset = make_dataset(alice)
    run = make_finished_run(alice, dataset)
    other = make_finished_run(alice, dataset)
    rashomon = make_finished_run(alice, dataset, "rashomon", {"max_depth": 2, "epsilon": 0.2})
    path = RegularizationPath.objects.create(owner=alice, dataset=dataset, algorithm="cart", lambdas=[0.01], folds=2)
    cell = make_run(
        alice,
        dataset,
        status=Run.Status.FAILED,
        path=path,
        evaluation={"kfold": 2, "fold": 0, "seed": 0},
        params={"regularization": 0.01},
    )
    link = create_link(run)
    revoked = create_link(other)
    revoked.revoked = revoked.created
    revoked.save()
    return {
        "alice": alice,
        "charlie": charlie,
        "staff": staff,
        "dataset": dataset,
        "run": run,
        "path": path,
        "cell": cell,
        "link": link,
        "revoked": revoked,
        "rashomon": rashomon,
    }


def matrix(w):
    """Return ``{name: (method, args, {persona: expected})}``; expected is a status code, LOGIN or ADMIN."""
    d, r, p = w["dataset"].pk, w["run"].pk, w["path"].pk
    owner_only = {"anonymous": LOGIN, "owner": 200, "stranger": 404, "staff": 404}
    owner_post = {"anonymous": LOGIN, "owner": 302, "stranger": 404, "staff": 404}
    staff_only = {"anonymous": ADMIN, "owner": ADMIN, "stranger": ADMIN, "staff": 200}
    staff_post = {"anonymous": ADMIN, "owner": ADMIN, "stranger": ADMIN, "staff": 302}
    everyone = {"anonymous": 200, "owner": 200, "stranger": 200, "staff": 200}
    signed_in = {"anonymous": LOGIN, "owner": 200, "stranger": 200, "staff": 200}
    return {
        "home": ("get", [], everyone),
        "signup": ("get", [], {"anonymous": 200, "owner": 302, "stranger": 302, "staff": 302}),
        "login": ("get", [], everyone),
        "logout": ("post", [], {"anonymous": 302, "owner": 302, "stranger": 302, "staff": 302}),
        "password_change": ("get", [], signed_in),
        "password_change_done": ("get", [], signed_in),
        "dataset-upload": ("get", [], signed_in),
        "dataset-sample": ("post", [], {"anonymous": LOGIN, "owner": 302, "stranger": 302, "staff": 302}),
        "dataset-detail": ("get", [d], owner_only),
        "dataset-delete": ("post", [d], owner_post),
        "dataset-runs": ("get", [d], owner_only),
        "dataset-compare": ("get", [d], owner_post),  # no runs ticked: back to the list
        "run-new": ("get", [d, "cart"], owner_only),
        "run-form-estimate": ("post", [d, "cart"], {"anonymous": LOGIN, "owner": 200, "stranger": 404, "staff": 404}),
        "path-new": ("get", [d, "cart"], owner_only),
        "path-detail": ("get", [p], owner_only),
        "path-progress": ("get", [p], owner_only),
        "path-retry-cell": ("post", [p, w["cell"].pk], owner_post),
        "path-refit": ("post", [p], owner_post),
        "run-detail": ("get", [r], owner_only),
        "run-progress": ("get", [r], owner_only),
        "run-result-json": ("get", [r], owner_only),
        "run-export": ("get", [r, "python"], owner_only),
        # A Rashomon run's owner-only endpoints (on another run: a plain 404, checked below).
        "run-rashomon-count": ("get", [w["rashomon"].pk], owner_only),
        "run-rashomon-optimal": ("post", [w["rashomon"].pk], owner_post),
        "run-rashomon-favourite": ("post", [w["rashomon"].pk], owner_post),
        "run-predict": ("get", [r], owner_only),
        "run-cancel": ("post", [r], owner_post),
        "run-retry": ("post", [r], owner_post),
        "run-delete": ("post", [r], owner_post),
        "share-create": ("post", [r], owner_post),
        "share-revoke": ("post", [w["link"].pk], owner_post),
        "share-view": ("get", [w["link"].token], everyone),
        "ops-queue": ("get", [], staff_only),
        "ops-queue-fragment": ("get", [], staff_only),
        "ops-run": ("get", [r], staff_only),
        "ops-cancel": ("post", [r], staff_post),
        "ops-requeue": ("post", [w["cell"].pk], staff_post),
    }


def client_for(persona, w):
    client = Client()
    user = {"owner": w["alice"], "stranger": w["charlie"], "staff": w["staff"]}.get(persona)
    if user is not None:
        client.force_login(user)
    return client


def check(response, expected):
    if expected == LOGIN:
        return response.status_code == 302 and response.url.startswith(reverse("login"))
    if expected == ADMIN:
        return response.status_code == 302 and "/admin/login/" in response.url
    return response.status_code == expected


def test_every_url_is_in_the_matrix(world):
    assert url_names() == set(matrix(world))


@pytest.mark.parametrize("persona", ["anonymous", "owner", "stranger", "staff"])
def test_each_persona_gets_exactly_what_it_should(world, persona, eager_celery):
    failures = []
    for name, (method, args, expected) in matrix(world).items():
        if name in ("logout", "dataset-delete", "run-delete", "share-revoke"):
            continue  # destructive: checked last, below
        response = getattr(client_for(persona, world), method)(reverse(name, args=args))
        if not check(response, expected[persona]):
            failures.append(f"{name}: {response.status_code} {getattr(response, 'url', '')} != {expected[persona]}")
    for name in ("share-revoke", "run-delete", "dataset-delete", "logout"):
        method, args, expected = matrix(world)[name]
        response = getattr(client_for(persona, world), method)(reverse(name, args=args))
        if not check(response, expected[persona]):
            failures.append(f"{name}: {response.status_code} != {expected[persona]}")
    assert not failures, "\n".join(failures)


def test_share_links_open_one_run_read_only_and_revoked_links_do_not(world):
    anonymous = Client()
    assert anonymous.get(reverse("share-view", args=[world["link"].token])).status_code == 200
    assert anonymous.get(reverse("share-view", args=[world["revoked"].token])).status_code == 404
    token = world["link"].token
    # The token opens nothing but the snapshot: not the run, its exports or its progress.
    for name in ("run-detail", "run-result-json", "run-progress"):
        r = anonymous.get(reverse(name, args=[world["run"].pk]), {"token": token})
        assert r.status_code == 302
    assert len(token) >= 43 and ShareLink.objects.filter(token=token).count() == 1  # ≥ 256 bits of entropy


def test_rashomon_endpoints_are_404_on_a_run_that_is_not_rashomon(world):
    owner = client_for("owner", world)
    for name, (method, _, _) in matrix(world).items():
        if name.startswith("run-rashomon-"):
            assert getattr(owner, method)(reverse(name, args=[world["run"].pk])).status_code == 404, name


@pytest.mark.parametrize("persona", ["owner", "staff"])
def test_csrf_is_enforced_on_every_post(world, persona):
    client = Client(enforce_csrf_checks=True)
    user = world["alice"] if persona == "owner" else world["staff"]
    client.force_login(user)
    for name, (method, args, expected) in matrix(world).items():
        if method != "post":
            continue
        response = client.post(reverse(name, args=args))
        assert response.status_code == 403, name


def test_pages_carry_the_security_headers(client, db):
    response = client.get(reverse("home"))
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-eval" not in csp and "frame-ancestors 'none'" in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_cookies_are_secure_when_not_debug():
    import corelsweb.settings as project_settings

    # scripts/test sets neither DEBUG nor SECURE_COOKIES, so the defaults hold.
    assert project_settings.DEBUG is False
    assert project_settings.SESSION_COOKIE_SECURE is True and project_settings.CSRF_COOKIE_SECURE is True
