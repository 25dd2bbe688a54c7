# Check that the site degrades instead of failing (issue 27, item 5): an upload goes through with Redis stopped (its
# rate limit counts from the database then), and with the database unreachable every page is a short 503 with
# Retry-After. Redis is a private server of this test; the outage is of this test's own database only.
import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse

from conftest import make_user
from tests.conftest import require_real_services
from tests.factories import SMALL_CSV
from tests.fault.conftest import RedisServer

pytestmark = [pytest.mark.fault]


@pytest.fixture
def redis_cache(settings):
    server = RedisServer()
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": server.url}}
    yield server
    if server.process.poll() is None:
        server.stop()


def upload(client, name):
    body = SMALL_CSV.replace(b"label", name.encode())  # a file of its own (the same file would open its first copy)
    data = {"name": name, "file": SimpleUploadedFile(f"{name}.csv", body, content_type="text/csv")}
    return client.post(reverse("dataset-upload"), data)


def test_an_upload_goes_through_with_redis_stopped_and_its_limit_counts_from_the_database(
    client, db, settings, redis_cache
):
    require_real_services()
    settings.CORELSWEB_UPLOADS_PER_HOUR = 2
    alice = make_user("alice")
    client.force_login(alice)
    assert upload(client, "first").status_code == 302
    redis_cache.stop()
    assert upload(client, "second").status_code == 302
    third = upload(client, "third")
    assert third.status_code == 400 and "uploaded 2 files in the last hour" in third.content.decode()
    assert sorted(alice.datasets.values_list("name", flat=True)) == ["first", "second"]


@pytest.fixture
def database_outage(transactional_db):
    """Yield a switch that makes this test's own database refuse connections (and ends its sessions)."""
    require_real_services()
    name = connection.settings_dict["NAME"]
    admin = psycopg.connect(
        host=connection.settings_dict["HOST"],
        port=connection.settings_dict["PORT"] or 5432,
        user=connection.settings_dict["USER"],
        dbname="postgres",
        autocommit=True,
    )

    def down():
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )

    yield down
    admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    admin.close()
    connection.close()


def test_every_page_is_a_short_503_with_retry_after_while_the_database_is_down(database_outage):
    alice = make_user("alice")
    signed_in, anonymous = Client(raise_request_exception=False), Client(raise_request_exception=False)
    signed_in.force_login(alice)
    database_outage()
    for client, url in (
        (signed_in, "/"),
        (signed_in, reverse("dataset-upload")),
        (signed_in, reverse("run-detail", args=[1])),
    ):
        response = client.get(url)
        assert response.status_code == 503, (url, response.status_code)
        assert response["Retry-After"] == "30"
        assert "database cannot be reached" in response.content.decode()
    # A signed-out visitor's pages that need no database still show; signing in needs it.
    assert anonymous.get(reverse("login")).status_code == 200
    sign_in = anonymous.post(reverse("login"), {"username": "alice", "password": "alice-password-123"})
    assert sign_in.status_code == 503 and sign_in["Retry-After"] == "30"
