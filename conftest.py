"""Fixtures shared by every test: the three personas and plain make_* factories.

alice owns things, bob sees them only through a share link, charlie is a
stranger who must get 404 everywhere.
"""

import pytest

from bench.harness import DATASETS, SHARED, shared_dataset  # noqa: F401  (the one lookup of ../shared, re-exported)


@pytest.fixture
def eager_celery():
    from corelsweb.celery import app

    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = False


def make_user(username):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=f"{username}-password-123")


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def charlie(db):
    return make_user("charlie")


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def charlie_client(client, charlie):
    client.force_login(charlie)
    return client


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _private_cache(settings):
    # Rate-limit counters must not leak between tests (nor touch the broker's Redis database).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    from django.core.cache import cache

    cache.clear()
