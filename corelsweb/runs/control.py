"""The control loop: reconciling runs, in its own process, with exactly one acting at a time.

Control work never waits behind a solve: it is not a Celery task, so no queue
slot that a search holds can delay it. Any number of control processes may run
(one per host is a good habit, so that losing a host loses no control); they
elect one leader:

- PostgreSQL: a lease row (``ops.Lease``) that the leader renews every third of
  ``CORELSWEB_LEADER_LEASE_SECONDS`` and a standby takes when it has expired,
  both by the database's clock. Nothing depends on a connection: a leader whose
  host vanished without closing its connections (a lost link, a power cut)
  leaves a half-open connection that the server may keep for hours, but its
  lease expires all the same. A leader that stops cleanly gives the lease up.
- SQLite (one machine): an exclusive ``flock`` on ``var/control.lock``.

The leader reconciles every ``CORELSWEB_RECONCILE_SECONDS``; every control
process writes its beat (``control: leading`` or ``control: standing by``),
which the staff queue page shows.
"""

import fcntl
import logging
import threading
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, models
from django.db.models import ExpressionWrapper, Q
from django.db.models.functions import Now
from django.utils import timezone
from redis.exceptions import RedisError

from corelsweb.ops.models import Lease
from corelsweb.runs import lifecycle, recovery

log = logging.getLogger(__name__)

LEASE = "control"


class LeaseLeadership:
    """Hold the control lease row: renew it while this process leads, take it once it has expired."""

    def __init__(self, name):
        self.me = f"{name}/{uuid.uuid4().hex[:8]}"  # a restarted process with the same pid is someone else
        self.held = False

    def hold(self):
        """Return True while this process holds the lease (taking it when it has expired)."""
        try:
            self.held = self._renew() or (self._create() and self._renew())
        except DatabaseError:
            log.warning("control: could not reach the lease", exc_info=True)
            connection.close()
            self.held = False
        return self.held

    def _renew(self):
        until = ExpressionWrapper(
            Now() + timedelta(seconds=settings.CORELSWEB_LEADER_LEASE_SECONDS), output_field=models.DateTimeField()
        )
        mine_or_free = Q(holder=self.me) | Q(expires__lt=Now())
        return bool(Lease.objects.filter(mine_or_free, name=LEASE).update(holder=self.me, expires=until))

    def _create(self):
        _, created = Lease.objects.get_or_create(name=LEASE, defaults={"expires": timezone.now() - timedelta(days=1)})
        return created

    def release(self):
        """Give the lease up, so that a standby takes over at its next tick."""
        try:
            past = ExpressionWrapper(Now() - timedelta(seconds=1), output_field=models.DateTimeField())
            Lease.objects.filter(name=LEASE, holder=self.me).update(expires=past)
        except DatabaseError:
            connection.close()
        self.held = False


class FileLeadership:
    """Hold the control lock as an exclusive flock (one machine: SQLite)."""

    def __init__(self, path):
        self.path, self.file, self.held = path, None, False

    def hold(self):
        if not self.held:
            self.file = self.file or open(self.path, "a")  # noqa: SIM115 - kept open while we lead
            try:
                fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.held = True
            except BlockingIOError:
                pass
        return self.held

    def release(self):
        if self.file is not None:
            self.file.close()
        self.file, self.held = None, False


def leadership(name):
    if "postgresql" in settings.DATABASES["default"]["ENGINE"]:
        return LeaseLeadership(name)
    return FileLeadership(settings.VAR_DIR / "control.lock")


def tick(lead, name, reconcile=True):
    """One pass: take or keep the lead, beat, and reconcile if this process leads (and ``reconcile``)."""
    leading = lead.hold()
    try:
        lifecycle.beat(name, "control: leading" if leading else "control: standing by")
        if leading and reconcile:
            done = recovery.reconcile()
            log.info("control: reconcile pass by %s: %s", name, done)
    except DatabaseError:
        log.warning("control: database error; the next pass retries", exc_info=True)
        connection.close()
    except (RedisError, OSError):  # the broker is unreachable: runs stay queued until it is back
        log.warning("control: broker unreachable; the next pass retries", exc_info=True)
    return leading


def run(stop=None, interval=None):
    """Tick until ``stop`` is set: the lead is renewed every third of the lease, reconciling every ``interval``."""
    stop = stop or threading.Event()
    interval = settings.CORELSWEB_RECONCILE_SECONDS if interval is None else interval
    step = min(interval, settings.CORELSWEB_LEADER_LEASE_SECONDS / 3)
    name = lifecycle.worker_id()
    lead, last_pass = leadership(name), None
    log.info("control: %s started (reconciling every %s s when it leads)", name, interval)
    try:
        while not stop.is_set():
            due = last_pass is None or time.monotonic() - last_pass >= interval
            if tick(lead, name, reconcile=due) and due:
                last_pass = time.monotonic()
            stop.wait(step)
    finally:
        lead.release()
