"""The fair queue: the database orders the runs, the broker only wakes the workers.

A run's class (``Run.queue``: ``short`` or ``long``, from its time limit and
estimated difficulty) says which workers serve it first; its message says who
may be woken for it. A worker that takes a message claims the run it should
serve next, which need not be the run the message was sent for:

- **Order**: within a class, runs start in the order they were sent
  (``created``: a run queued again after its worker died keeps its place).
- **Preference**: a worker serves its own class first (the first queue it
  consumes, ``-Q long,short`` serves long runs first), then the other class.
- **What a worker may take**: a worker that consumes ``long`` takes any run; a
  worker of the ``short`` queue alone takes the runs whose time limit is at
  most ``CORELSWEB_LONG_RUN_SECONDS``, so a quick run never waits longer than
  that behind a long-class run the short worker took while idle.
- **Messages**: a run's message goes to ``short`` when a short worker may take
  it, else to ``long``; so long workers consume both queues, and every idle
  worker that may take a waiting run is woken for it.

Claims take turns (``take_turn``), so each takes the run that is next when
it happens. Each queued run keeps one message waiting for it: when a worker takes run R
with the message sent for run X, X inherits R's message (both wait in the
same broker queue), or gets a new one. Bounded waits follow: a long run waits
at most for the long runs sent before it and the one run its worker holds; a
short run at most for the short runs before it and one run of at most
``CORELSWEB_LONG_RUN_SECONDS``.
"""

from django.conf import settings
from django.db import connection
from django.db.models import Case, Count, IntegerField, Q, Value, When

from corelsweb.runs.models import Run

SHORT, LONG = "short", "long"
CLAIM_LOCK = 0x636C61696D  # pg_advisory_xact_lock key of claiming ("claim" in ASCII)


def fits_short(limits):
    """Return True when a run with ``limits`` may be taken by a worker of the short queue."""
    limit = (limits or {}).get("time_limit")
    return limit is not None and float(limit) <= settings.CORELSWEB_LONG_RUN_SECONDS


def message_queue(run):
    """Return the broker queue of ``run``'s message: the short queue when a short worker may take it."""
    return SHORT if fits_short(run.limits) else LONG


def task_options(run):
    """Return the apply_async options of a run's message (no Celery time limit: compiling must not count)."""
    return {"queue": message_queue(run)}


def takeable(worker_queues):
    """Return the queued runs that a worker consuming ``worker_queues`` (empty: every queue) may take."""
    runs = Run.objects.filter(status=Run.Status.QUEUED)
    if worker_queues and LONG not in worker_queues:
        runs = runs.filter(limits__time_limit__lte=settings.CORELSWEB_LONG_RUN_SECONDS)
    return runs


def in_serving_order(runs, worker_queues):
    """Order ``runs`` as the worker serves them: its own class first (its first queue), then by sending order."""
    if not worker_queues:
        return runs.order_by("created", "pk")
    own = Case(When(queue=worker_queues[0], then=Value(0)), default=Value(1), output_field=IntegerField())
    return runs.order_by(own, "created", "pk")


def take_turn():
    """Wait for this transaction's turn to claim: one claim at a time, so runs start in the order they were sent.

    A claim takes milliseconds; in PostgreSQL the turn is a transaction-level
    advisory lock (SQLite, on one machine, writes one transaction at a time).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CLAIM_LOCK])


def next_run(worker_queues):
    """Return the queued run this worker should take next, locked (PostgreSQL skips runs others are taking)."""
    runs = in_serving_order(takeable(worker_queues), worker_queues)
    return (
        runs.select_for_update(skip_locked=True)
        .only("pk", "queue", "limits", "algorithm", "message_id", "message_sent")
        .first()
    )


def place_in_line(run):
    """Return ``(place, ahead)``: the run's place among the queued runs of its class, and how many are before it."""
    before = Q(created__lt=run.created) | Q(created=run.created, pk__lt=run.pk)
    ahead = Run.objects.filter(before, status=Run.Status.QUEUED, queue=run.queue).count()
    return ahead + 1, ahead


def queued_by_class():
    """Return ``{class: queued runs}`` for every queue (the counts add up to the queued runs)."""
    counts = dict.fromkeys(settings.CORELSWEB_QUEUES, 0)
    rows = Run.objects.filter(status=Run.Status.QUEUED).values("queue").annotate(n=Count("pk"))
    for row in rows:
        counts[row["queue"]] = counts.get(row["queue"], 0) + row["n"]
    return counts
