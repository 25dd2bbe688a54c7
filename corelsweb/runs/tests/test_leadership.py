# Check the control loop's leadership (issue 27, item 2): one holder of the lease at a time; a standby takes it at
# once when the leader's connection is gone (a killed leader's closes), and only after its expiry while that
# connection lives on without renewing (a half-open one: tests/fault/test_leader_host_lost.py cuts a real link).
import time

import psycopg
import pytest
from django.conf import settings as django_settings

from corelsweb.runs import control


@pytest.fixture
def leaders(transactional_db):
    made = []

    def make(name):
        made.append(control.LeaseLeadership(django_settings.DATABASES["default"], name))
        return made[-1]

    yield make
    for one in made:
        one.close()


def test_one_leads_and_a_standby_takes_over_at_once_when_its_connection_is_gone(leaders):
    first, second = leaders("one"), leaders("two")
    assert first.hold() and not second.hold() and first.hold()
    first.close()  # as a killed process's connection: the server ends its session
    assert wait_until(second.hold)
    assert not first.hold()


def test_a_silent_leader_whose_connection_lives_on_loses_the_lease_when_it_expires(leaders, settings):
    settings.CORELSWEB_LEADER_LEASE_SECONDS = 1
    first, second = leaders("one"), leaders("two")
    assert first.hold() and not second.hold()
    time.sleep(1.2)  # the first renews nothing, but its connection is still open
    assert not first.conn.closed and second.hold() and not first.hold()


def test_a_leader_that_stops_gives_the_lease_up(leaders):
    first, second = leaders("one"), leaders("two")
    assert first.hold()
    first.release()
    assert second.hold()


def wait_until(condition, timeout=10):
    # The server ends a closed connection's session a moment after the client goes.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except psycopg.Error:
            pass
        time.sleep(0.05)
    return False
