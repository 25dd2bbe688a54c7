"""The control loop: reconciling runs, in its own process, with exactly one acting at a time.

Control work never waits behind a solve: it is not a Celery task, so no queue
slot that a search holds can delay it. Any number of control processes may run
(one per host is a good habit, so that losing a host loses no control); they
elect one leader through a lock that dies with its holder:

- PostgreSQL: a session-level advisory lock on a connection of its own. A
  killed leader's connection closes, the lock goes with it, and a standby
  takes over at its next tick.
- SQLite (one machine): an exclusive ``flock`` on ``var/control.lock``.

The leader reconciles every ``CORELSWEB_RECONCILE_SECONDS``; every control
process writes its beat (``control: leading`` or ``control: standing by``),
which the staff queue page shows.
"""

import fcntl
import logging
import threading

import psycopg
from django.conf import settings
from django.db import DatabaseError, connection
from redis.exceptions import RedisError

from corelsweb.runs import lifecycle, recovery

log = logging.getLogger(__name__)

# pg_advisory_lock key of the control leader ("corelsweb" in ASCII, as an int).
LOCK_KEY = 0x636F72656C737765


class PostgresLeadership:
    """Hold the control lock on a PostgreSQL connection of our own."""

    def __init__(self, db):
        self.params = {
            "dbname": db["NAME"],
            "user": db["USER"],
            "password": db["PASSWORD"] or None,
            "host": db["HOST"] or None,
            "port": db["PORT"] or None,
            "connect_timeout": 5,
            # A leader whose host vanished (no FIN) is noticed within about 20 s.
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 5,
            "keepalives_count": 3,
            **db.get("OPTIONS", {}),
        }
        self.conn, self.held = None, False

    def hold(self):
        """Return True while this process holds the lock (taking it when it is free)."""
        try:
            if self.conn is None or self.conn.closed:
                self.conn, self.held = psycopg.connect(autocommit=True, **self.params), False
            if self.held:
                self.conn.execute("SELECT 1")
            else:
                self.held = self.conn.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEY,)).fetchone()[0]
        except psycopg.Error:
            log.warning("control: lost the database connection of the lock", exc_info=True)
            self.release()
        return self.held

    def release(self):
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


def leadership():
    db = settings.DATABASES["default"]
    if "postgresql" in db["ENGINE"]:
        return PostgresLeadership(db)
    return FileLeadership(settings.VAR_DIR / "control.lock")


def tick(lead, name):
    """One pass: take or keep the lock, beat, and reconcile if this process leads; return whether it leads."""
    leading = lead.hold()
    try:
        lifecycle.beat(name, "control: leading" if leading else "control: standing by")
        if leading:
            done = recovery.reconcile()
            log.info("control: reconcile pass by %s: %s", name, done)
    except DatabaseError:
        log.warning("control: database error; the next pass retries", exc_info=True)
        connection.close()
    except (RedisError, OSError):  # the broker is unreachable: runs stay queued until it is back
        log.warning("control: broker unreachable; the next pass retries", exc_info=True)
    return leading


def run(stop=None, interval=None):
    """Tick until ``stop`` is set."""
    stop = stop or threading.Event()
    interval = settings.CORELSWEB_RECONCILE_SECONDS if interval is None else interval
    lead, name = leadership(), lifecycle.worker_id()
    log.info("control: %s started (reconciling every %s s when it leads)", name, interval)
    try:
        while not stop.is_set():
            tick(lead, name)
            stop.wait(interval)
    finally:
        lead.release()
