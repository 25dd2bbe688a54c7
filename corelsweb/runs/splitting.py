"""One run's ordered search spread over every worker: its pieces are Celery tasks (``solver.ordered.split``).

With ``CORELSWEB_SPLIT = "force"`` (or ``"auto"``: a long-class run while another worker is idle; default
``"forbid"``) and a Redis broker, a run whose search is the ordered
one (STreeD's scalar tasks, GOSDT's additive objectives on numeric columns) is cut into pieces by root
feature once its worker has prepared it (``lifecycle.execute`` calls ``execute``):

- **Pieces** are ``Piece`` rows (one per group of root features, ``split.plan``). Each one not final gets a
  message ``execute_piece_task`` on the run's queue (acks-late, rejected on a lost worker: redelivered). A
  worker claims a piece with a conditional UPDATE (queued → running, its name, version + 1), so a piece runs
  in one process at a time; the run's own worker (the *parent*) takes pieces too, so two processes search
  two pieces at once even when one of them holds the run.
- **The incumbent** is a Redis key per run, lowered with a Lua minimum (``RedisIncumbent``); every piece
  reads it between kernel chunks and prunes against it.
- **The parent** (``Parent``) combines the pieces' stored results into the run's trace and progress (upper:
  the least value; lower: the least lower bound, ``split.combine``) about twice a second, also while it
  runs a piece itself. On cancel, or at the run's time limit, it sets the run's stop key; each piece reads it
  between chunks (every driver progress point, ≤ 0.25 s) and stops with its best tree and bound, so the stop
  reaches every piece within a second. A piece whose holder is gone (``liveness.holder_is_gone``, or its
  beat names another run) is queued again and sent again; a parent taken over from a dead worker finds
  the pieces where they were (done ones keep their results).
- **The end**: every piece final, the parent combines them (``split.SplitSearch``: the leaf, the first piece
  of least value, a canonical re-solve of a winner other than piece 0) into the run's ``Result`` and
  finishes the run as ``lifecycle.execute`` would.
"""

import logging
import math
import time
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import F
from django.db.models.functions import Now
from django.utils import timezone

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import liveness, queueing
from corelsweb.runs.models import Piece, Run
from solver import api, driver, export
from solver.ordered import split

log = logging.getLogger(__name__)

PIECE_TASK = "corelsweb.runs.tasks.execute_piece_task"
TICK_SECONDS = 0.25  # how often the parent combines the pieces and a piece polls the stop key
KEY_SECONDS = 7 * 24 * 3600  # Redis keys of a run expire after this


# -- Redis: the incumbent and the stop signal -------------------------------------------------------------------
_MIN = """
local v = redis.call('GET', KEYS[1])
if (not v) or tonumber(ARGV[1]) < tonumber(v) then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return ARGV[1]
end
return v
"""
_client = None


def redis_client():
    global _client
    if _client is None:
        import redis

        _client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=5)
    return _client


def incumbent_key(pk):
    return f"corelsweb:split:{pk}:incumbent"


def stop_key(pk):
    return f"corelsweb:split:{pk}:stop"


class RedisIncumbent:
    """The least engine value any piece of run ``pk`` found (``get``; ``offer``: an atomic minimum, Lua)."""

    def __init__(self, pk):
        self.key = incumbent_key(pk)
        self._min = redis_client().register_script(_MIN)

    def get(self):
        value = redis_client().get(self.key)
        return math.inf if value is None else float(value)

    def offer(self, value):
        return float(self._min(keys=[self.key], args=[repr(float(value)), KEY_SECONDS]))


def stop_requested(pk):
    return redis_client().exists(stop_key(pk)) > 0


def request_stop(pk):
    redis_client().set(stop_key(pk), "1", ex=KEY_SECONDS)


# -- when ------------------------------------------------------------------------------------------------------
def enabled(run=None, worker=None):
    """Return True when ``run`` is split (a Redis broker to share through, and ``CORELSWEB_SPLIT``).

    ``force``: every run whose search is ordered; ``auto``: a run of the long class (the scheduler's estimate
    says its search is hard, or its time limit is long) while another live worker process is idle;
    ``forbid`` (the default): none.
    """
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        return False
    mode = settings.CORELSWEB_SPLIT
    if mode == "force":
        return True
    if mode == "auto" and run is not None:
        return run.queue == queueing.LONG and idle_workers(worker) > 0
    return False


def idle_workers(worker=None):
    """Return how many live worker processes (fresh beat) other than ``worker`` hold no run."""
    fresh = timezone.now() - timedelta(seconds=settings.CORELSWEB_STALE_SECONDS)
    idle = WorkerBeat.objects.filter(last_seen__gte=fresh, current_run__isnull=True)
    return idle.exclude(name=worker or "").count()


# -- the search of a run, built once per process ----------------------------------------------------------------
_bases = {}


def base_for(run, job=None):
    """Return (spec, config, base ``OrderedSearch``, prepared) of ``run``, or None when its search is not ordered."""
    key = (run.pk, run.dataset_id)
    if key not in _bases:
        from corelsweb.runs import solving

        if job is None:
            job = solving.prepare(run)
        found = split.base_search(job.prepared.problem, run.algorithm, run.params)
        _bases.clear()  # one run's search at a time in a worker process
        _bases[key] = None if found is None else (*found, job.prepared)
    return _bases[key]


# -- claiming and running one piece ---------------------------------------------------------------------------
def claim(piece_pk, worker):
    """Claim piece ``piece_pk`` for ``worker``: queued, or running in a process that is gone. Return it or None."""
    fields = dict(status=Piece.Status.RUNNING, worker=worker, claimed=Now(), attempts=F("attempts") + 1)
    fields["version"] = F("version") + 1
    run_id = Piece.objects.filter(pk=piece_pk).values_list("run_id", flat=True).first()
    if run_id is None:
        return None
    # A claimant beats, naming the run, before it holds the piece: no one finds it silent in between (it may
    # compile and read the data for seconds before its search starts).
    liveness.set_current_run(run_id)
    liveness.beat(worker)
    if Piece.objects.filter(pk=piece_pk, status=Piece.Status.QUEUED).update(**fields):
        return Piece.objects.select_related("run").get(pk=piece_pk)
    held = Piece.objects.filter(pk=piece_pk, status=Piece.Status.RUNNING).first()
    if held is not None and held.worker != worker and holder_gone(held):
        mine = Piece.objects.filter(pk=piece_pk, status=Piece.Status.RUNNING, version=held.version)
        if mine.update(**fields):
            log.warning("piece %s of run %s: taken over from %s, which is gone", held.index, held.run_id, held.worker)
            return Piece.objects.select_related("run").get(pk=piece_pk)
    return None


def holder_gone(piece):
    """Return True when no live process runs ``piece``: its holder is gone, or its beat names another run."""
    if liveness.holder_is_gone(piece.worker):
        return True
    last = WorkerBeat.objects.filter(name=piece.worker).values("current_run_id", "last_seen").first()
    if last is None or piece.claimed is None:
        return False
    return last["current_run_id"] != piece.run_id and last["last_seen"] > piece.claimed


def remaining_seconds(run):
    """Return the seconds left of the run's time limit (from its search's start), None without a limit."""
    limit = (run.limits or {}).get("time_limit")
    if limit is None:
        return None
    started = run.started or timezone.now()
    return float(limit) - (timezone.now() - started).total_seconds()


def run_piece(piece, worker, base, tick=None):
    """Search ``piece`` (claimed by ``worker``) to its end or its stop; store its result. Return the final status.

    Between chunks (each driver progress point) the piece stores its result, reads the stop key and checks it
    still holds the piece; ``tick`` (the parent's) is called there too and may stop it (False).
    """
    run = piece.run
    liveness.set_current_run(run.pk)
    search = split.PieceSearch(base, piece.features, RedisIncumbent(run.pk), follow=piece.index > 0)
    mine = Piece.objects.filter(pk=piece.pk, status=Piece.Status.RUNNING, worker=worker)
    state = {"written": 0.0, "lost": False}

    def on_progress(point):
        now = time.monotonic()
        if now - state["written"] >= TICK_SECONDS:
            state["written"] = now
            if not mine.update(result=search.result()):
                state["lost"] = True  # taken over (we looked gone): stop at once
                return False
            if stop_requested(run.pk):
                return False
        if tick is not None and tick(piece.index, search) is False:
            return False
        return None

    left = remaining_seconds(run)
    limits = driver.Limits(time_limit=None if left is None else max(0.0, left))
    outcome = driver.run(search, limits, on_progress)
    status = Piece.Status.DONE if outcome.status == "optimal" else Piece.Status.STOPPED
    if not state["lost"]:
        mine.update(status=status, result=search.result())
    return status


def execute_piece(piece_pk, worker):
    """What a worker does with a piece's message: claim it and search it (nothing if it is held or final)."""
    piece = claim(piece_pk, worker)
    if piece is None:
        return None
    try:
        found = base_for(piece.run)
        if found is None:  # cannot happen: the parent split it because its search is ordered
            Piece.objects.filter(pk=piece.pk, worker=worker).update(status=Piece.Status.STOPPED)
            return None
        return run_piece(piece, worker, found[2])
    finally:
        liveness.set_current_run(None)
        if not Piece.objects.filter(run_id=piece.run_id, status=Piece.Status.QUEUED).exists():
            _bases.clear()  # no piece of this run is left to take: free its search's arrays


def send_piece(piece, run, send_task):
    try:
        send_task(PIECE_TASK, (piece.pk,), **queueing.task_options(run))
    except Exception as e:  # the parent takes the piece itself, or sends it again when the broker is back
        log.warning("piece %s of run %s: could not be sent (%s)", piece.index, run.pk, e)


# -- the parent ---------------------------------------------------------------------------------------------------
def execute(run, worker, job, clock, finish_durably, send_task):
    """Execute claimed ``run`` split in pieces; return what ``lifecycle.execute`` returns, or None: not split.

    ``finish_durably`` and ``send_task``: the lifecycle's (this module does not import it).
    """
    if not enabled(run, worker):
        return None
    found = base_for(run, job)
    if found is None:
        return None
    spec, config, base, prepared = found
    groups = split.plan(base, settings.CORELSWEB_SPLIT_PIECES or None)
    if len(groups) < 2:
        return None
    parent = Parent(run, worker, spec, config, base, prepared, groups, clock)
    parent.finish_durably, parent.send_task = finish_durably, send_task
    return parent.watch()


class Parent:
    """The run's worker: makes the pieces, takes some itself, combines them into the run's trace and result."""

    def __init__(self, run, worker, spec, config, base, prepared, groups, clock):
        run.refresh_from_db()  # its search's start (it may have compiled since it was read)
        self.run, self.pk, self.worker = run, run.pk, worker
        self.spec, self.config, self.base, self.prepared = spec, config, base, prepared
        self.groups, self.clock = groups, clock
        self.started = time.monotonic()
        self.trace = driver.Trace()
        self.view = split.SplitSearch(base, groups=groups)
        self.stopped = None  # "time_limit" or "cancelled"
        self.lost = False
        self.last_tick = -math.inf
        self.local = None  # (index, PieceSearch) the parent is searching

    def watch(self):
        fresh = [
            Piece.objects.get_or_create(run_id=self.pk, index=index, defaults={"features": list(features)})[1]
            for index, features in enumerate(self.groups)
        ]
        if all(fresh):  # a first attempt: no value of another run's keys (a database reset reuses run ids)
            redis_client().delete(incumbent_key(self.pk))
        redis_client().delete(stop_key(self.pk))
        for piece in Piece.objects.filter(run_id=self.pk).exclude(status__in=Piece.FINAL).order_by("index"):
            if piece.index > 0:  # piece 0 first, here
                send_piece(piece, self.run, self.send_task)
        while not self.lost:
            piece = self._next_piece()
            if piece is not None:
                self.local = piece.index
                run_piece(piece, self.worker, self.base, self.tick)
                self.local = None
                continue
            if self.tick(None, None, force=True) is False and self.lost:
                break
            if self._all_final():
                break
            time.sleep(TICK_SECONDS)
        if self.lost:
            log.warning("run %s is no longer held by %s; its split search is left", self.pk, self.worker)
            return False
        return self._finish()

    def _next_piece(self):
        if self.stopped:
            return None
        for piece in Piece.objects.filter(run_id=self.pk, status=Piece.Status.QUEUED).order_by("index"):
            taken = claim(piece.pk, self.worker)
            if taken is not None:
                return taken
        return None

    def _all_final(self):
        return not Piece.objects.filter(run_id=self.pk).exclude(status__in=Piece.FINAL).exists()

    def _results(self, local=None):
        rows = list(Piece.objects.filter(run_id=self.pk).order_by("index").values("index", "result"))
        results = [None] * len(self.groups)
        for row in rows:
            if row["index"] < len(results):
                results[row["index"]] = row["result"]
        if local is not None:
            results[local[0]] = local[1].result()
        return results

    def tick(self, index, search, force=False):
        """Combine the pieces into the run's trace and progress; stop everything on cancel or the time limit."""
        now = time.monotonic()
        if not force and now - self.last_tick < TICK_SECONDS:
            return None
        self.last_tick = now
        try:
            results = self._results(None if search is None else (index, search))
            self._combine(results, done=False)
            cancel = self._write_progress()
        except DatabaseError:
            log.warning("run %s: could not read its pieces or write progress; trying again", self.pk, exc_info=True)
            connection.close()
            return None
        if cancel is None:
            self.lost = True
            request_stop(self.pk)
            return False
        if self.stopped is None:
            left = remaining_seconds(self.run)
            if cancel:
                self.stopped = "cancelled"
            elif left is not None and left <= 0:
                self.stopped = "time_limit"
            if self.stopped:
                request_stop(self.pk)
        self._recover()
        if self.stopped is not None and not self._all_final():
            # Pieces never started are final with nothing (their bound: 0); running ones stop within a second.
            Piece.objects.filter(run_id=self.pk, status=Piece.Status.QUEUED).update(status=Piece.Status.STOPPED)
        return False if self.stopped else None

    def _recover(self):
        """Queue again (and send) every running piece whose process is gone; once stopped, keep what it stored."""
        for piece in Piece.objects.filter(run_id=self.pk, status=Piece.Status.RUNNING).exclude(worker=self.worker):
            if holder_gone(piece):
                again = Piece.objects.filter(pk=piece.pk, status=Piece.Status.RUNNING, version=piece.version)
                status = Piece.Status.STOPPED if self.stopped else Piece.Status.QUEUED
                if again.update(status=status, version=F("version") + 1) and not self.stopped:
                    log.warning(
                        "piece %s of run %s: its worker %s is gone; queued again", piece.index, self.pk, piece.worker
                    )
                    send_piece(piece, self.run, self.send_task)

    def _combine(self, results, done):
        view = self.view
        view.results = results
        view.done = done
        view.make_canonical = done
        view._update()
        elapsed = now_elapsed(self.run)
        self.trace.record(elapsed, view, 0, force=done)

    def _write_progress(self):
        """Write the combined progress; return the cancel flag, or None when the run is no longer ours."""
        mine = Run.objects.filter(pk=self.pk, status=Run.Status.RUNNING, worker=self.worker)
        point = self.trace.last()
        point["status"] = "running"
        point["pieces"] = len(self.groups)
        mine.update(progress=point, trace=self.trace.columns, version=F("version") + 1)
        return mine.values_list("cancel_requested", flat=True).first()

    def _finish(self):
        results = self._results()
        done = all(r is not None and r.get("done") for r in results)
        status = "optimal" if done else (self.stopped or "time_limit")
        self._combine(results, done)
        limits = api.Limits.from_dict(self.run.limits)
        stats = {"pieces": len(self.groups), "solve_seconds": now_elapsed(self.run)}
        stats["piece_work"] = [None if r is None else r.get("work") for r in results]
        result = api._result(
            self.spec, self.config, self.prepared.problem, limits, self.view, status, self.trace.columns, stats
        )
        result.extras = {**result.extras, "split": {"pieces": len(self.groups), "winner": self.view.winner}}
        result.test_vectors = export.test_vectors(result.model, self.prepared.train)
        if self.prepared.test is not None:
            from solver import pipeline

            result.holdout = pipeline.score(result.model, self.prepared)
        redis_client().delete(incumbent_key(self.pk), stop_key(self.pk))
        _bases.clear()  # the result is built: this process keeps no run's arrays after it
        if self.clock is not None:
            self.clock.watch.lap("searching")
        return self.finish_durably(self.pk, status, holder=self.worker, result=result.to_dict(), clock=self.clock)


def now_elapsed(run):
    started = run.started or timezone.now()
    return max(0.0, (timezone.now() - started).total_seconds())
