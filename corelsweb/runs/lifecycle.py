"""The life of a stored run: send, claim, execute under supervision, finish.

Every change of a run's status after it is created happens here.

- ``send(runs)`` puts each run's message on its queue once the transaction
  commits, by task name (no caller imports the tasks), and records the
  message's id on the row, so that the reconciler tells a lost message from a
  waiting one by identity. With the broker down the run stays queued with no
  message id; the user is told, and the reconciler sends it when the broker is back.
- ``claim(pk, worker)`` makes a queued run running with one conditional UPDATE,
  or takes over a running run whose holder is gone.
- ``execute(pk, worker)`` solves the run in a forked child (``solving``) and
  supervises it from this process: progress, the cancel flag, and the hard time
  limit, which ends a search that stopped returning as ``failed``, with its best
  model so far, and never retries it.
- ``finish(pk, status, …)`` is the one transition to a final status. It takes
  effect once (a conditional UPDATE) and tells the run's regularization path.

Liveness has one mechanism: each worker process writes its ``WorkerBeat`` row
every few seconds from a thread (``start_beat``), with the database's clock.
The solving never runs in that process, so a search that holds the GIL cannot
silence it. A run's holder is gone when its process is dead (same host: the
kernel says so) or its beat is stale (any host).
"""

import logging
import os
import socket
import threading
import time
import traceback as tb
import uuid
from datetime import timedelta
from functools import partial

from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from django.db.models.functions import Now
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import solving
from corelsweb.runs.models import Run
from solver.memory import current_rss

log = logging.getLogger(__name__)

EXECUTE_TASK = "corelsweb.runs.tasks.execute_run_task"
PATH_TASK = "corelsweb.runs.tasks.path_summary_task"
LIVE_TRACE_POINTS = 600


# Sending -----------------------------------------------------------------------------------------------------------


def send_task(name, args, **options):
    """Send task ``name`` without importing it (in eager mode it runs here, now)."""
    app = current_app
    if app.conf.task_always_eager:  # run here: the task must be registered in this process (workers import it)
        app.loader.import_default_modules()
    return app.signature(name, args=args, options=options).apply_async()


def hard_limit_seconds(limits):
    """Return how long a run's search may take before it is stopped from outside: its time limit plus grace."""
    budget = float((limits or {}).get("time_limit") or settings.CORELSWEB_MAX_TIME_LIMIT)
    return budget + settings.CORELSWEB_HARD_LIMIT_GRACE_SECONDS


def task_options(run):
    """Return apply_async options: the run's queue and Celery's time limits, a backstop past our own hard limit."""
    hard = hard_limit_seconds(run.limits)
    return {"queue": run.queue, "soft_time_limit": hard + 60, "time_limit": hard + 120}


def send(runs):
    """Send each run's message once the transaction commits."""
    for run in runs:
        transaction.on_commit(partial(send_now, run.pk, task_options(run)))


def send_now(pk, options):
    """Send run ``pk``'s message and record its id; with the broker unreachable, leave the run unsent (False)."""
    message_id = str(uuid.uuid4())
    # Recorded first: a worker may claim the run before apply_async returns.
    if not Run.objects.filter(pk=pk, status=Run.Status.QUEUED).update(message_id=message_id, message_sent=Now()):
        return False
    try:
        send_task(EXECUTE_TASK, (pk,), task_id=message_id, **options)
    except (BrokerError, OSError) as e:
        log.warning("run %s: the broker is unreachable (%s); it is sent when the broker is back", pk, e)
        Run.objects.filter(pk=pk, message_id=message_id).update(message_id="")
        return False
    return True


# Liveness ----------------------------------------------------------------------------------------------------------


def host_id():
    """Return this machine's name in worker identities (``CORELSWEB_HOST_ID``, else the host name)."""
    return settings.CORELSWEB_HOST_ID or socket.gethostname()


def worker_id():
    """Return this process's identity as recorded on the runs it claims: ``host:pid``."""
    return f"{host_id()}:{os.getpid()}"


_beat_state = {"run": None, "ready": [], "warming": "", "name": None}


def set_current_run(pk):
    _beat_state["run"] = pk


def set_warm_state(warm):
    """Record which algorithms' kernels this process has ready (``corelsweb.ops.warming``); beat it at once."""
    _beat_state["ready"], _beat_state["warming"] = list(warm["ready"]), warm["warming"]
    if _beat_state["name"]:
        try:
            beat(_beat_state["name"])
        except Exception:  # the regular beat retries
            connection.close()


def beat(name, queues=None, started=None):
    """Write this process's beat (with the database's clock): alive, its current run and ready solvers, its load."""
    fields = {
        "current_run_id": _beat_state["run"],
        "load": os.getloadavg()[0],
        "rss_bytes": current_rss(),
        "ready": _beat_state["ready"],
        "warming": _beat_state["warming"],
    }
    fields.update({k: v for k, v in (("queues", queues), ("started", started)) if v is not None})
    if WorkerBeat.objects.filter(name=name).update(last_seen=Now(), **fields):
        return
    fields.setdefault("started", timezone.now())
    try:
        with transaction.atomic():
            WorkerBeat.objects.create(name=name, last_seen=timezone.now(), **fields)
    except IntegrityError:  # this process's other beat (its thread, or a claim) created it first
        WorkerBeat.objects.filter(name=name).update(last_seen=Now(), **fields)


def start_beat(name, queues):
    """Start the thread that writes this process's beat every ``CORELSWEB_BEAT_SECONDS``."""
    started = timezone.now()
    _beat_state["name"] = name

    def loop():
        stop = threading.Event()
        while True:
            try:
                beat(name, queues, started)
            except Exception:  # a database hiccup must not end the beats; the next one retries
                connection.close()
            stop.wait(settings.CORELSWEB_BEAT_SECONDS)

    threading.Thread(target=loop, name="worker-beat", daemon=True).start()


def holder_is_gone(worker):
    """Return True when the process that claimed a run can no longer be running it."""
    host, _, pid = (worker or "").rpartition(":")
    if host == host_id() and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False
    fresh = Now() - timedelta(seconds=settings.CORELSWEB_STALE_SECONDS)
    return not WorkerBeat.objects.filter(name=worker, last_seen__gte=fresh).exists()


# Claiming ----------------------------------------------------------------------------------------------------------


def attempts_used_up(attempts):
    return (
        f"The run was started {attempts} times and its worker stopped each time (killed, or its machine went "
        "away); it is not retried again."
    )


def claim(pk, worker):
    """Mark run ``pk`` as running for ``worker``; return False if someone else has it.

    A queued run is claimed at once. A running run is taken over only when the
    process that claimed it is gone (a redelivery after that worker died), and
    only by one claimant: the UPDATE is conditional on the row unchanged.
    """
    fields = dict(
        status=Run.Status.RUNNING,
        worker=worker,
        started=timezone.now(),
        attempts=F("attempts") + 1,
        version=F("version") + 1,
        cancel_requested=False,
    )
    # A claimant beats before it holds anything, so that no one finds it silent in between.
    beat(worker)
    if Run.objects.filter(pk=pk, status=Run.Status.QUEUED).update(**fields):
        return True
    held = Run.objects.filter(pk=pk, status=Run.Status.RUNNING).values("worker", "attempts").first()
    if held is None or held["worker"] == worker or not holder_is_gone(held["worker"]):
        return False
    if held["attempts"] >= settings.CORELSWEB_MAX_ATTEMPTS:
        finish(pk, Run.Status.FAILED, error=attempts_used_up(held["attempts"]), holder=held["worker"])
        return False
    return (
        Run.objects.filter(pk=pk, status=Run.Status.RUNNING, worker=held["worker"], attempts=held["attempts"]).update(
            **fields
        )
        == 1
    )


# Finishing ---------------------------------------------------------------------------------------------------------


def finish(pk, status, *, result=None, error="", traceback="", holder=None, expected=Run.ACTIVE):
    """Make run ``pk`` final with ``status``, once; tell its path. Return True if this call ended it.

    ``holder``: only while that worker still holds the run (a supervisor whose
    run was taken over cannot end it). ``result``: a ``Result.to_dict()``.
    """
    runs = Run.objects.filter(pk=pk, status__in=expected)
    if holder is not None:
        runs = runs.filter(status=Run.Status.RUNNING, worker=holder)
    fields = dict(
        status=status, error=error, traceback=traceback, finished=timezone.now(), progress={}, version=F("version") + 1
    )
    if result is not None:
        fields.update(result=result, trace=result.get("trace") or {})
    if not runs.update(**fields):
        return False
    path_id = Run.objects.filter(pk=pk).values_list("path_id", flat=True).first()
    if path_id:
        transaction.on_commit(partial(send_task, PATH_TASK, (path_id,), queue="short"))
    return True


def finish_with_result(pk, result, holder=None):
    """Finish run ``pk`` with a solver ``Result`` (its status is the run's)."""
    return finish(pk, result.status, result=result.to_dict(), holder=holder)


# Executing ---------------------------------------------------------------------------------------------------------


def execute(pk, worker):
    """Solve claimed run ``pk`` in a child process, supervise it, and finish the run."""
    run = Run.objects.select_related("dataset").get(pk=pk)
    try:
        job = solving.prepare(run)
    except solving.USER_ERRORS as e:
        return finish(pk, Run.Status.FAILED, error=str(e), holder=worker)
    except Exception as e:
        log.exception("run %s could not be prepared", pk)
        return finish(
            pk,
            Run.Status.FAILED,
            error=f"The run could not start: an internal error ({type(e).__name__}).",
            traceback=tb.format_exc(),
            holder=worker,
        )
    return Supervisor(run, worker, solving.Child.start(job)).watch()


class Supervisor:
    """Watch a solving child from outside it: progress, cancel, hard time limit, and how it ended."""

    def __init__(self, run, worker, child):
        self.pk, self.worker, self.child = run.pk, worker, child
        self.hard = hard_limit_seconds(run.limits)
        self.deadline = time.monotonic() + self.hard
        self.interval = settings.CORELSWEB_PROGRESS_WRITE_SECONDS
        self.trace, self.point, self.incumbent = {}, None, None
        self.last_write, self.cancel_sent = 0.0, None

    def watch(self):
        """Return True if the run was finished here (False: someone else took it over)."""
        try:
            while True:
                ended = self._receive(max(0.0, min(self.interval, self.deadline - time.monotonic())))
                if ended is None:
                    ended = self._check(time.monotonic())
                if ended is not None:
                    return ended
        except SoftTimeLimitExceeded:  # Celery's backstop fired in this process
            self.child.kill()
            return self._stopped(Run.Status.FAILED, self._too_long())
        finally:
            self.child.kill()

    def _receive(self, wait):
        try:
            if not self.child.conn.poll(wait):
                return None
            message = self.child.conn.recv()
        except (EOFError, OSError):
            return self._stopped(
                Run.Status.FAILED,
                f"The solving process stopped unexpectedly ({self.child.death_words()}); it is not retried.",
            )
        kind = message[0]
        if kind == "progress":
            self._append(message[1])
        elif kind == "incumbent":
            self.incumbent = message[1]
        elif kind == "done":
            return finish(self.pk, message[1]["status"], result=message[1], holder=self.worker)
        elif kind == "error":
            return finish(self.pk, Run.Status.FAILED, error=message[1], traceback=message[2], holder=self.worker)
        return None

    def _check(self, now):
        if now - self.last_write >= self.interval:
            self.last_write = now
            try:
                cancel = self._write_progress()
            except DatabaseError:
                log.warning("run %s: could not write progress; trying again", self.pk, exc_info=True)
                connection.close()
                cancel = False
            if cancel is None:  # no longer ours: finished, or taken over after we looked gone
                log.warning("run %s is no longer held by %s; its solve is stopped", self.pk, self.worker)
                return False
            if cancel and self.cancel_sent is None:
                self.cancel_sent = now
                self.child.conn.send("cancel")
        if self.cancel_sent is not None and now - self.cancel_sent > settings.CORELSWEB_CANCEL_GRACE_SECONDS:
            self.child.kill()
            grace = settings.CORELSWEB_CANCEL_GRACE_SECONDS
            return self._stopped(
                Run.Status.CANCELLED,
                f"Cancelled; the search did not stop within {grace:g} s of the request, so it was ended.",
                result_status="cancelled",
            )
        if now >= self.deadline:
            self.child.kill()
            return self._stopped(Run.Status.FAILED, self._too_long())
        return None

    def _too_long(self):
        words = (
            f"The search did not return within {self.hard:g} s (its time limit plus "
            f"{settings.CORELSWEB_HARD_LIMIT_GRACE_SECONDS:g} s of grace), so it was stopped; it is not retried."
        )
        kept = " Its best model so far is kept." if self.incumbent else " It had found no model yet."
        return words + kept + " Try a shorter time limit, a larger λ or a smaller depth."

    def _stopped(self, status, error, result_status="time_limit"):
        result = None
        if self.incumbent is not None:
            result = {**self.incumbent, "status": result_status, "trace": self.trace}
        return finish(self.pk, status, result=result, error=error, holder=self.worker)

    def _append(self, point):
        self.point = point
        n = len(self.trace.get("elapsed", ()))
        for key, value in point.items():
            if key != "status":
                self.trace.setdefault(key, [None] * n).append(value)
        if n + 1 > LIVE_TRACE_POINTS:
            self.trace = {k: v[::2] + ([v[-1]] if len(v) % 2 == 0 else []) for k, v in self.trace.items()}

    def _write_progress(self):
        """Write the latest progress; return the cancel flag, or None when the run is no longer ours."""
        mine = Run.objects.filter(pk=self.pk, status=Run.Status.RUNNING, worker=self.worker)
        if self.point is not None:
            mine.update(progress=self.point, trace=self.trace, version=F("version") + 1)
            self.point = None
        return mine.values_list("cancel_requested", flat=True).first()
