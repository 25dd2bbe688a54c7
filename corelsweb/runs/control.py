"""The control loop: reconciling runs, in its own process, with exactly one acting at a time.

Control work never waits behind a solve: it is not a Celery task, so no queue
slot that a search holds can delay it. Any number of control processes may run
(one per host is a good habit, so that losing a host loses no control); they
elect one leader:

- PostgreSQL: a lease row (``ops.Lease``) that the leader renews every third of
  ``CORELSWEB_LEADER_LEASE_SECONDS`` through a connection of its own, by the
  database's clock. A standby takes it when it has expired, or at once when
  the leader's connection is gone from the server (a killed leader's closes).
  A leader whose host vanished without closing anything (a lost link, a power
  cut) leaves a half-open connection that the server may keep for hours (an
  advisory lock on it lived 2 h), but its lease expires all the same. A leader
  that stops cleanly gives the lease up.
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

import psycopg
from django.conf import settings
from django.db import DatabaseError, connection
from redis.exceptions import RedisError

from corelsweb.runs import lifecycle, recovery

log = logging.getLogger(__name__)

LEASE = "control"


class LeaseLeadership:
    """Hold the control lease row through a PostgreSQL connection of our own; renew it while this process leads.

    A standby takes the lease when it has expired, or at once when the
    leader's lease connection is gone from the server (its process died and
    the connection closed). A half-open connection looks alive to the server:
    then the expiry decides.
    """

    ENSURE = (
        "INSERT INTO ops_lease (name, holder, expires, session) VALUES (%(name)s, '', now(), 0) ON CONFLICT DO NOTHING"
    )
    TAKE = """
        UPDATE ops_lease SET holder = %(me)s, session = pg_backend_pid(),
            expires = now() + make_interval(secs => %(ttl)s)
        WHERE name = %(name)s AND (holder = %(me)s OR expires < now()
            OR NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = ops_lease.session))"""
    GIVE_UP = "UPDATE ops_lease SET expires = now() - interval '1 second' WHERE name = %(name)s AND holder = %(me)s"

    def __init__(self, db, name):
        self.params = {
            "dbname": db["NAME"],
            "user": db["USER"],
            "password": db["PASSWORD"] or None,
            "host": db["HOST"] or None,
            "port": db["PORT"] or None,
            "connect_timeout": 5,
            # This process notices within about 20 s that the database went away without a word.
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 5,
            "keepalives_count": 3,
            **db.get("OPTIONS", {}),
        }
        # A restarted process with the same pid is someone else.
        self.args = {"name": LEASE, "me": f"{name}/{uuid.uuid4().hex[:8]}"}
        self.conn, self.held = None, False

    def hold(self):
        """Return True while this process holds the lease (taking it when it has expired or its holder is gone)."""
        try:
            if self.conn is None or self.conn.closed:
                self.conn = psycopg.connect(autocommit=True, **self.params)
                self.conn.execute(self.ENSURE, self.args)
            ttl = float(settings.CORELSWEB_LEADER_LEASE_SECONDS)
            self.held = self.conn.execute(self.TAKE, {**self.args, "ttl": ttl}).rowcount == 1
        except psycopg.Error:
            log.warning("control: could not reach the lease", exc_info=True)
            self.close()
        return self.held

    def release(self):
        """Give the lease up, so that a standby takes over at its next tick."""
        try:
            if self.conn is not None and not self.conn.closed:
                self.conn.execute(self.GIVE_UP, self.args)
        except psycopg.Error:
            pass
        self.close()

    def close(self):
        if self.conn is not None:
            self.conn.close()
        self.conn, self.held = None, False


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
    db = settings.DATABASES["default"]
    if "postgresql" in db["ENGINE"]:
        return LeaseLeadership(db, name)
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
