# Check the parts of a split run that need no worker: the Redis incumbent (an atomic minimum), the stop key, and
# the claim of a piece (once at a time; taken over only from a process that is gone).
import math
import subprocess
import sys
import threading

import pytest
from django.conf import settings

from conftest import make_user
from corelsweb.runs import liveness, splitting
from corelsweb.runs.models import Piece
from tests.factories import make_run


@pytest.fixture
def redis_only():
    # The test settings use the real Redis broker (tests/settings.py); the split search shares its incumbent there.
    assert settings.CELERY_BROKER_URL.startswith("redis"), "these tests need the Redis broker of the test settings"


def test_the_incumbent_is_the_least_value_offered(redis_only):
    # Check the Lua minimum, also under threads offering at once.
    incumbent = splitting.RedisIncumbent(987654)
    splitting.redis_client().delete(incumbent.key)
    assert incumbent.get() == math.inf
    assert incumbent.offer(5.25) == 5.25
    assert incumbent.offer(7.0) == 5.25
    assert incumbent.offer(0.1 + 0.2) == 0.1 + 0.2  # the value round-trips exactly
    values = [float(v) for v in range(100, 0, -1)]

    def offer(part):
        for v in part:
            incumbent.offer(v)

    threads = [threading.Thread(target=offer, args=(values[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert incumbent.get() == 0.1 + 0.2
    assert incumbent.offer(-1.0) == -1.0
    splitting.redis_client().delete(incumbent.key)


def test_the_stop_key(redis_only):
    splitting.redis_client().delete(splitting.stop_key(987654))
    assert not splitting.stop_requested(987654)
    splitting.request_stop(987654)
    assert splitting.stop_requested(987654)
    splitting.redis_client().delete(splitting.stop_key(987654))


@pytest.mark.django_db
def test_a_piece_is_claimed_once_and_taken_over_only_from_a_gone_process():
    owner = make_user("alice")
    run = make_run(owner)
    piece = Piece.objects.create(run=run, index=1, features=[0, 2])
    me = liveness.worker_id()
    try:
        taken = splitting.claim(piece.pk, me)
        assert taken is not None and taken.status == Piece.Status.RUNNING and taken.attempts == 1
        assert splitting.claim(piece.pk, "other-host:1") is None  # held by a live process (this one)
        # A process of this host that has ended holds it: another claimant takes it over, once.
        done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        gone = f"{liveness.host_id()}:{int(done.stdout)}"
        Piece.objects.filter(pk=piece.pk).update(worker=gone)
        again = splitting.claim(piece.pk, me)
        assert again is not None and again.worker == me and again.attempts == 2
        assert again.version == taken.version + 1
        assert splitting.claim(piece.pk, me) is None  # not twice by the same process
        Piece.objects.filter(pk=piece.pk).update(status=Piece.Status.DONE)
        assert splitting.claim(piece.pk, "other-host:1") is None  # a final piece is never run again
    finally:
        liveness.set_current_run(None)


@pytest.mark.django_db
def test_auto_splits_a_long_class_run_while_another_worker_is_idle(settings, redis_only):
    # Check the scheduler's choice: forbid never, force always, auto a long-class run with an idle other worker.
    from django.utils import timezone

    from corelsweb.ops.models import WorkerBeat

    owner = make_user("alice")
    long_run, short_run = make_run(owner, queue="long"), make_run(owner, queue="short")
    settings.CORELSWEB_SPLIT = "forbid"
    assert not splitting.enabled(long_run, "me:1")
    settings.CORELSWEB_SPLIT = "force"
    assert splitting.enabled(short_run, "me:1")
    settings.CORELSWEB_SPLIT = "auto"
    now = timezone.now()
    WorkerBeat.objects.create(name="me:1", started=now, last_seen=now)  # the run's own worker: not another one
    assert not splitting.enabled(long_run, "me:1")
    busy = WorkerBeat.objects.create(name="other:2", started=now, last_seen=now, current_run=short_run)
    assert not splitting.enabled(long_run, "me:1")
    WorkerBeat.objects.filter(pk=busy.pk).update(current_run=None)
    assert splitting.enabled(long_run, "me:1")
    assert not splitting.enabled(short_run, "me:1")  # the estimate does not say hard
    WorkerBeat.objects.filter(pk=busy.pk).update(last_seen=now - timezone.timedelta(hours=1))
    assert not splitting.enabled(long_run, "me:1")  # a silent worker is not idle, it is gone
