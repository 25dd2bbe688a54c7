# Check sign-in throttling: per account and address, never locking one account by another's failures,
# a far higher limit per address, and counters that survive a restart of the cache (a real Redis).
import pytest
from django.urls import reverse

from conftest import make_user
from tests.conftest import require_real_services

pytestmark = [pytest.mark.fault, pytest.mark.security]
ATTACKER, HOME = "203.0.113.7", "198.51.100.20"


def sign_in(client, username, password, address):
    client.logout()
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.fixture
def redis_cache(settings, private_redis):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": private_redis.url}
    }
    return private_redis


def test_failures_lock_one_account_at_one_address_only_and_survive_a_cache_restart(client, db, settings, redis_cache):
    require_real_services()
    settings.CORELSWEB_LOGIN_FAILURES = 10
    make_user("alice")
    make_user("bob")
    for _ in range(9):
        assert sign_in(client, "alice", "wrong", ATTACKER).status_code == 200
    assert sign_in(client, "alice", "wrong", ATTACKER).status_code == 429  # the tenth failure locks
    locked = sign_in(client, "alice", "alice-password-123", ATTACKER)
    assert locked.status_code == 429 and "Too many failed sign-ins" in locked.content.decode()
    assert locked["Retry-After"]
    # Another account from the same address, and the same account from elsewhere, are not locked.
    assert sign_in(client, "bob", "bob-password-123", ATTACKER).status_code == 302
    assert sign_in(client, "alice", "alice-password-123", HOME).status_code == 302
    redis_cache.restart()  # the cache keeps nothing now
    assert sign_in(client, "alice", "alice-password-123", ATTACKER).status_code == 429


def test_an_address_spraying_many_accounts_is_stopped_by_a_far_higher_limit(client, db, settings, redis_cache):
    require_real_services()
    settings.CORELSWEB_LOGIN_FAILURES = 3
    settings.CORELSWEB_LOGIN_FAILURES_PER_ADDRESS = 12
    make_user("carol")
    for k in range(12):  # two failures on each of six accounts: no account reaches its limit
        assert sign_in(client, f"user{k // 2}", "wrong", ATTACKER).status_code == 200
    assert sign_in(client, "carol", "carol-password-123", ATTACKER).status_code == 429
    assert sign_in(client, "carol", "carol-password-123", HOME).status_code == 302
