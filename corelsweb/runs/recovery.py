"""Recovering runs after faults: dead workers, lost messages, and what the broker holds.

The database is the source of truth. ``reconcile`` (run every
``CORELSWEB_RECONCILE_SECONDS`` by the control loop, ``corelsweb.runs.control``)
makes final every run whose result was spooled while the database was away
(``corelsweb.runs.storing``), puts back to the queue every held run without a
live search (its holder is gone, or has moved on), and re-sends
every queued run whose message is not waiting in the broker (a restarted Redis
keeps nothing; a submission while the broker was down sent nothing; a worker
killed after taking a message holds it unacked for the visibility timeout).
Messages are told apart by identity: each run records the id of the message
that was sent for it. A duplicate message is harmless: claiming is a
conditional UPDATE.
"""

import json
import logging
from contextlib import contextmanager
from datetime import timedelta

import redis
from celery import current_app

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from corelsweb.runs import lifecycle, storing
from corelsweb.runs.models import Run

log = logging.getLogger(__name__)
CHUNK = 1000


def requeue_orphans():
    """Queue again the held runs without a live search (or fail those out of attempts); return how many moved.

    A run is orphaned when its holder is gone, and also when its holder lives
    but has moved on: its task ended without making the run final.
    """
    count = 0
    fields = ("pk", "worker", "attempts", "queue", "limits", "status", "claimed", "version")
    for run in Run.objects.filter(status__in=Run.HELD).only(*fields):
        if not lifecycle.search_is_gone(run):
            continue
        if run.status == Run.Status.RUNNING and run.attempts >= settings.CORELSWEB_MAX_ATTEMPTS:
            lifecycle.finish(
                run.pk, Run.Status.FAILED, error=lifecycle.attempts_used_up(run.attempts), holder=run.worker
            )
            continue
        moved = Run.objects.filter(pk=run.pk, status=run.status, worker=run.worker, version=run.version).update(
            status=Run.Status.QUEUED, message_id="", version=F("version") + 1
        )
        if moved:
            log.warning("run %s: no live search holds it (worker %s); queued again", run.pk, run.worker)
            lifecycle.send([run])
            count += 1
    return count


@contextmanager
def redis_client():
    """Yield a Redis client of the broker, or None when the broker is not Redis (the filesystem one loses nothing)."""
    url = current_app.conf.broker_url or ""
    if not url.startswith("redis"):
        yield None
        return
    client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
    try:
        yield client
    finally:
        client.close()


def message_ids(raw_messages):
    """Return the task ids of raw kombu messages (JSON; unacked entries wrap the message in a list)."""
    ids = []
    for raw in raw_messages:
        try:
            message = json.loads(raw)
            message = message[0] if isinstance(message, list) else message
            ids.append(message["headers"]["id"])
        except (ValueError, KeyError, IndexError, TypeError):
            continue
    return ids


def waiting_message_ids(client):
    """Return the ids of the messages waiting in our queues."""
    ids = set()
    for queue in settings.CORELSWEB_QUEUES:
        for start in range(0, client.llen(queue), CHUNK):
            ids.update(message_ids(client.lrange(queue, start, start + CHUNK - 1)))
    return ids


def resend_lost():
    """Re-send every queued run whose message is not waiting in the broker (past a grace period); return how many."""
    grace = timezone.now() - timedelta(seconds=settings.CORELSWEB_RECONCILE_SECONDS)
    queued = list(
        Run.objects.filter(status=Run.Status.QUEUED).only("pk", "queue", "limits", "message_id", "message_sent")
    )
    if not queued:
        return 0
    with redis_client() as client:
        if client is None:
            return 0
        waiting = waiting_message_ids(client)
    lost = [
        r
        for r in queued
        if not r.message_id or (r.message_id not in waiting and (r.message_sent is None or r.message_sent < grace))
    ]
    for run in lost:
        lifecycle.send_now(run.pk, lifecycle.task_options(run))
    if lost:
        log.warning("re-sent %d queued runs whose message the broker did not hold", len(lost))
    return len(lost)


def broker_overview():
    """Return what the broker holds, by identity: waiting per queue, and unacked messages of live runs vs leftovers.

    A worker killed while it held a message leaves it unacked until the
    visibility timeout; such a leftover of a run that is final (or was sent
    again) is no work waiting and is counted apart. None without Redis.
    """
    with redis_client() as client:
        if client is None:
            return None
        unacked = message_ids(client.hvals("unacked"))
        waiting = {q: client.llen(q) for q in settings.CORELSWEB_QUEUES}
    live = set(Run.objects.filter(status__in=Run.ACTIVE, message_id__in=unacked).values_list("message_id", flat=True))
    return {
        "waiting": waiting,
        "held": sum(1 for i in unacked if i in live),
        "leftovers": sum(1 for i in unacked if i not in live),
    }


def finish_spooled():
    """Make final every run whose final state waits in the spool; return how many were made final here."""
    count = 0
    for pk in storing.spooled():
        record = storing.read_spool(pk)
        if record is None:
            continue
        fields = {k: record.get(k) or "" for k in ("error", "traceback")}
        timing = record.get("timing")  # the split up to the spool (the outage after it is not counted)
        if lifecycle.finish(pk, record["status"], result=record.get("result"), timing=timing, **fields):
            log.warning("run %s: made final from its spooled result", pk)
            count += 1
        storing.unspool(pk)
    return count


def reconcile():
    """Run every recovery (spooled results first: a run whose result waits there needs no new search)."""
    return {
        "finished_spooled": finish_spooled(),
        "requeued_orphans": requeue_orphans(),
        "resent_lost": resend_lost(),
    }
