"""The life of a stored run: send, claim, compile, execute under supervision, finish.

Every change of a run's status after it is created happens here.

- ``send(runs)`` puts each run's message on its queue once the transaction
  commits, by task name (no caller imports the tasks), and records the
  message's id on the row, so that the reconciler tells a lost message from a
  waiting one by identity. With the broker down the run stays queued with no
  message id; the user is told, and the reconciler sends it when the broker is back.
- ``claim_for_message(token, pk, worker)`` is what a worker does with a message:
  it takes over the message's run if its search is gone, else claims the run it
  should serve next (``corelsweb.runs.queueing``: the database orders the runs,
  the broker only wakes the workers). ``claim(pk, worker)`` claims one given run.
  A claimed run whose kernels this process has not compiled yet is
  ``compiling``: no attempt is counted and no clock runs until its search starts
  (``start_search``); a run already compiled is ``running`` at once.
- ``execute(pk, worker)`` compiles if need be, then solves the run in a forked
  child (``solving``) and supervises it from this process: progress, the cancel
  flag, and the hard time limit, which ends a search that stopped returning as
  ``failed``, with its best model so far, and never retries it. No Celery time
  limit applies: it could not tell compiling from searching.
- ``finish(pk, status, …)`` is the one transition to a final status. It takes
  effect once (a conditional UPDATE) and tells the run's regularization path.
  A worker calls it through ``finish_durably``, which keeps the result through
  a database outage: it retries with backoff and spools the final state to
  storage (``storing``); if the database stays away ``CORELSWEB_STORE_RETRY_SECONDS``
  after that, the worker leaves the run to the spool, which the control loop
  reads (``recovery.finish_spooled``). Without a spool (its storage is away
  too) the worker keeps the result and retries for as long as it lives; its
  message stays unacknowledged until then.

Liveness (``corelsweb.runs.liveness``): each worker process beats every few
seconds from a thread, naming the run it executes; a run whose holder is gone,
or whose holder has moved on, has no live search and is taken over.
"""

import logging
import time
import traceback as tb
import uuid
from functools import partial

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from corelsweb.ops import warming
from corelsweb.runs import liveness, queueing, solving, storing
from corelsweb.runs.liveness import (  # noqa: F401 - the names other modules know lifecycle by
    beat,
    holder_is_gone,
    host_id,
    search_is_gone,
    set_current_run,
    set_warm_state,
    start_beat,
    worker_id,
)
from corelsweb.runs.models import Run
from solver.timing import Stopwatch

log = logging.getLogger(__name__)
FIRST_DELAY, MAX_DELAY = 0.5, 10.0  # backoff of the retries to store a final state

EXECUTE_TASK = "corelsweb.runs.tasks.execute_run_task"
PATH_TASK = "corelsweb.runs.tasks.path_summary_task"
LIVE_TRACE_POINTS = 600
task_options = queueing.task_options


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


# Claiming ----------------------------------------------------------------------------------------------------------


def attempts_used_up(attempts):
    return (
        f"The run was started {attempts} times and its worker stopped each time (killed, or its machine went "
        "away); it is not retried again."
    )


def claim_fields(algorithm, params, worker, token=None):
    """Return the UPDATE of a claim: ``running`` when this process has the run's kernels ready, else ``compiling``."""
    fields = dict(worker=worker, claimed=Now(), version=F("version") + 1, cancel_requested=False)
    if warming.is_ready(algorithm, params):
        fields.update(status=Run.Status.RUNNING, started=Now(), attempts=F("attempts") + 1)
    else:
        fields.update(status=Run.Status.COMPILING, started=None)
    if token:
        fields["message_id"] = token  # the message this worker holds for it, unacknowledged until it ends
    return fields


def claim(pk, worker):
    """Claim run ``pk`` for ``worker``: a queued run at once, a held one only when its search is gone.

    Return True if claimed. Taking over is conditional on the row unchanged, so only one claimant wins.
    """
    set_current_run(pk)
    with transaction.atomic():
        # A claimant beats before it holds anything, so that no one finds it silent in between.
        beat(worker)
        queued = Run.objects.filter(pk=pk, status=Run.Status.QUEUED).values_list("algorithm", "params").first()
        if queued and Run.objects.filter(pk=pk, status=Run.Status.QUEUED).update(**claim_fields(*queued, worker)):
            return True
    return take_over(Run.objects.filter(pk=pk), worker) is not None


def take_over(runs, worker):
    """Claim the first of ``runs`` that is held without a live search (failing one out of attempts); return its pk."""
    for held in runs.filter(status__in=Run.HELD).exclude(worker=worker):
        if not search_is_gone(held):
            continue
        if held.status == Run.Status.RUNNING and held.attempts >= settings.CORELSWEB_MAX_ATTEMPTS:
            finish(held.pk, Run.Status.FAILED, error=attempts_used_up(held.attempts), holder=held.worker)
            continue
        set_current_run(held.pk)
        beat(worker)
        mine = Run.objects.filter(pk=held.pk, status=held.status, worker=held.worker, version=held.version)
        if mine.update(**claim_fields(held.algorithm, held.params, worker)):
            log.warning("run %s: taken over from %s, whose search is gone", held.pk, held.worker)
            return held.pk
    set_current_run(None)
    return None


def claim_for_message(token, pk, worker):
    """Return the pk of the run ``worker`` takes for message ``token`` (sent for run ``pk``), or None.

    The message's run is taken over if its search is gone (a redelivery after its
    worker died); otherwise the worker claims the run it should serve next.
    """
    taken = take_over(Run.objects.filter(Q(message_id=token) | Q(pk=pk)), worker)
    return taken if taken is not None else claim_next(token, worker)


def claim_next(token, worker):
    """Claim the queued run this worker should serve next (``queueing``); return its pk, or None when none waits.

    Claims take turns; within its turn a claim waits for no row lock (runs that
    others are cancelling or queueing again are skipped), so no two claims deadlock.
    """
    worker_queues = liveness.queues()
    for _ in range(3):  # without row locks (SQLite) another worker may win a run: try the next
        with transaction.atomic():
            queueing.take_turn()
            run = queueing.next_run(worker_queues)
            if run is None:
                set_current_run(None)
                return None
            set_current_run(run.pk)
            beat(worker)
            if Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
                **claim_fields(run.algorithm, run.params, worker, token)
            ):
                owner = (
                    Run.objects.select_for_update(skip_locked=True)
                    .filter(status=Run.Status.QUEUED, message_id=token)
                    .only("pk", "limits")
                    .first()
                )
                if owner is not None:  # the message was sent for another run, which still waits
                    pass_message(owner, run)
                return run.pk
    set_current_run(None)
    return None


def pass_message(owner, taken):
    """Give ``owner`` (still queued, its message used for ``taken``) ``taken``'s waiting message, or a new one."""
    if taken.message_id and queueing.message_queue(taken) == queueing.message_queue(owner):
        Run.objects.filter(pk=owner.pk, status=Run.Status.QUEUED).update(
            message_id=taken.message_id, message_sent=taken.message_sent
        )
    else:
        transaction.on_commit(partial(send_now, owner.pk, task_options(owner)))


def start_search(pk, worker):
    """Move run ``pk`` from compiling to running: its search, its clock and its attempt start; False if not ours."""
    return bool(
        Run.objects.filter(pk=pk, status=Run.Status.COMPILING, worker=worker).update(
            status=Run.Status.RUNNING, started=Now(), attempts=F("attempts") + 1, version=F("version") + 1
        )
    )


# Finishing ---------------------------------------------------------------------------------------------------------


def finish(pk, status, *, result=None, error="", traceback="", holder=None, expected=Run.ACTIVE, timing=None):
    """Make run ``pk`` final with ``status``, once; tell its path. Return True if this call ended it.

    ``holder``: only while that worker still holds the run (a supervisor whose
    run was taken over cannot end it). ``result``: a ``Result.to_dict()``.
    ``timing``: the run's split so far (``RunClock.split``), kept on the run and in its result.
    """
    runs = Run.objects.filter(pk=pk, status__in=expected)
    if holder is not None:
        runs = runs.filter(status__in=Run.HELD, worker=holder)
    fields = dict(
        status=status, error=error, traceback=traceback, finished=timezone.now(), progress={}, version=F("version") + 1
    )
    if timing is not None:
        fields["timing"] = timing
    if result is not None:
        if timing is not None:
            result = {**result, "timing": timing}
        fields.update(result=result, trace=result.get("trace") or {})
    with transaction.atomic():  # all or nothing, so that a retry after a lost connection finds the run as it was
        if not runs.update(**fields):
            return False
        path_id = Run.objects.filter(pk=pk).values_list("path_id", flat=True).first()
        if path_id:
            transaction.on_commit(partial(send_task, PATH_TASK, (path_id,), queue="short"))
    return True


def finish_with_result(pk, result, holder=None):
    """Finish run ``pk`` with a solver ``Result`` (its status is the run's)."""
    return finish(pk, result.status, result=result.to_dict(), holder=holder)


def finish_durably(pk, status, *, holder, result=None, error="", traceback="", clock=None):
    """Make run ``pk`` final (``finish``) through database outages; return what ``finish`` returned.

    Returns True, too, when the run was left to the spool (the database stayed away): its result is safe there.
    ``clock``: the run's ``RunClock``; its split is stored with the final state, and once that is stored, again
    with the write counted in ``storing`` (so that the stages sum to the time from sending to the stored result).
    """
    timing = clock.split() if clock is not None else None
    record = {"pk": pk, "holder": holder, "status": status, "result": result, "error": error, "traceback": traceback}
    if timing is not None:
        record["timing"] = timing
    delay, spooled_at = FIRST_DELAY, None
    while True:
        try:
            done = finish(pk, status, result=result, error=error, traceback=traceback, holder=holder, timing=timing)
        except DatabaseError:
            log.warning("run %s: could not store its final state; retrying in %.1f s", pk, delay, exc_info=True)
            connection.close()
        else:
            if spooled_at is not None:
                storing.unspool(pk)
            if done and clock is not None:
                _record_storing(pk, clock)
            return done
        if spooled_at is None and storing.spool(pk, record):
            spooled_at = time.monotonic()
        if spooled_at is not None and time.monotonic() - spooled_at > settings.CORELSWEB_STORE_RETRY_SECONDS:
            log.warning("run %s: the database is still away; its spooled result is left to the control loop", pk)
            return True
        time.sleep(delay)
        delay = min(2 * delay, MAX_DELAY)


def _record_storing(pk, clock):
    """Store the run's split again with the write of its final state counted (a small UPDATE; best effort)."""
    try:
        Run.objects.filter(pk=pk).update(timing=clock.split(), version=F("version") + 1)
    except DatabaseError:
        log.warning("run %s: could not store the time of storing its result", pk, exc_info=True)
        connection.close()


# Executing ---------------------------------------------------------------------------------------------------------


def execute(pk, worker):
    """Compile what claimed run ``pk`` needs, solve it in a child process, supervise it, and finish the run."""
    clock = RunClock()
    run = Run.objects.select_related("dataset").get(pk=pk)
    clock.since(run.created)
    compile_seconds = 0.0
    if run.status == Run.Status.COMPILING:
        try:
            compile_seconds = warming.ensure(run.algorithm, run.params, stopwatch=clock.watch)
        except Exception as e:
            log.exception("run %s: the %s kernels could not be compiled", pk, run.algorithm)
            return failed(pk, worker, f"The solver's kernels could not be compiled ({type(e).__name__}).", clock)
        if not start_search(pk, worker):
            log.warning("run %s was cancelled or taken over while its kernels compiled", pk)
            return False
    try:
        job = solving.prepare(run, stopwatch=clock.watch)
    except solving.USER_ERRORS as e:
        return finish_durably(pk, Run.Status.FAILED, error=str(e), holder=worker, clock=clock)
    except Exception as e:
        log.exception("run %s could not be prepared", pk)
        return failed(pk, worker, f"The run could not start: an internal error ({type(e).__name__}).", clock)
    job.prepared.warm_seconds += compile_seconds
    from corelsweb.runs import splitting  # a run split across workers (CORELSWEB_SPLIT): its pieces, not a child

    split_outcome = splitting.execute(run, worker, job, clock, finish_durably, send_task)
    if split_outcome is not None:
        return split_outcome
    return Supervisor(run, worker, solving.Child.start(job), clock).watch()


def failed(pk, worker, error, clock=None):
    """Fail run ``pk`` with ``error`` and the current exception's traceback (for staff)."""
    return finish_durably(pk, Run.Status.FAILED, error=error, traceback=tb.format_exc(), holder=worker, clock=clock)


class RunClock:
    """A run's clock on its worker: the time it waited since it was sent, then a ``Stopwatch`` of this worker's part.

    ``queued`` is the wall-clock time from the run's ``created`` to this worker's start on it (the queue, and
    any earlier attempt of a worker that died); the stopwatch laps every stage after, so that the split's total
    is the time from ``created`` to the end of storing its final state.
    """

    def __init__(self, wall=time.time, clock=time.perf_counter):
        self.watch = Stopwatch(clock)
        self.started = wall()  # the wall-clock time of the stopwatch's start (machines' clocks kept in step)
        self.queued = 0.0

    def since(self, created):
        """Count the time from ``created`` (the run's creation) to this clock's start as ``queued``."""
        self.queued = max(0.0, self.started - created.timestamp())

    def adopt(self, state):
        """Continue on the child's stopwatch (``Stopwatch.state()``), which lapped the stages it ran."""
        self.watch = Stopwatch.from_state(state, self.watch.clock)

    def split(self):
        """Lap ``storing`` and return the run's split (``solver.timing``)."""
        self.watch.lap("storing")
        return self.watch.split(queued=self.queued)


class Supervisor:
    """Watch a solving child from outside it: progress, cancel, hard time limit, and how it ended."""

    def __init__(self, run, worker, child, clock=None):
        self.pk, self.worker, self.child = run.pk, worker, child
        self.clock = clock
        self.hard = hard_limit_seconds(run.limits)
        self.deadline = time.monotonic() + self.hard
        self.interval = settings.CORELSWEB_PROGRESS_WRITE_SECONDS
        self.trace, self.point, self.incumbent = {}, None, None
        self.last_write, self.cancel_sent = 0.0, None

    def watch(self):
        """Return True if the run was finished here (or its result spooled); False if someone else took it over."""
        try:
            while True:
                ended = self._receive(max(0.0, min(self.interval, self.deadline - time.monotonic())))
                if ended is None:
                    ended = self._check(time.monotonic())
                if ended is not None:
                    return ended
        finally:
            self.child.kill()

    def _finish(self, status, **fields):
        if self.clock is not None and "clock" not in fields:
            self.clock.watch.lap("searching")  # the child ended without its own account: since the fork
        return finish_durably(self.pk, status, holder=self.worker, clock=self.clock, **fields)

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
            self.child.kill()  # it has said all it will; storing may take a while through an outage
            if self.clock is not None and len(message) > 2:
                self.clock.adopt(message[2])  # the child's laps; from its last one on, this is storing
            return finish_durably(
                self.pk, message[1]["status"], holder=self.worker, result=message[1], clock=self.clock
            )
        elif kind == "error":
            self.child.kill()
            return self._finish(Run.Status.FAILED, error=message[1], traceback=message[2])
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
        return self._finish(status, result=result, error=error)

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
