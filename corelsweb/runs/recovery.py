"""Recovering runs after faults: dead workers and a broker that lost its messages.

The database is the source of truth. ``reconcile`` (run every
``CORELSWEB_RECONCILE_SECONDS`` by Celery beat) puts back to the queue every
running run whose worker is gone, and re-sends queued runs whose message the
broker no longer holds (a restarted Redis keeps nothing). A duplicate
message is harmless: claiming is a conditional UPDATE.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from corelsweb.runs import services
from corelsweb.runs.models import Run

log = logging.getLogger(__name__)


def requeue_orphans(now):
    """Queue again the running runs whose worker is gone; return how many."""
    count = 0
    for run in Run.objects.filter(status=Run.Status.RUNNING).select_related("dataset"):
        if not services.worker_is_gone(run.worker, run.heartbeat, now):
            continue
        if run.attempts >= settings.CORELSWEB_MAX_ATTEMPTS:
            services.finish_failed(run.pk, f"The run was started {run.attempts} times and its worker stopped "
                                           "each time (killed, or out of memory); it is not retried again.", "")
            continue
        moved = Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING, worker=run.worker,
                                   heartbeat=run.heartbeat).update(status=Run.Status.QUEUED,
                                                                   version=F("version") + 1)
        if moved:
            log.warning("run %s: worker %s is gone; queued again", run.pk, run.worker)
            services.enqueue([run])
            count += 1
    return count


def broker_backlog():
    """Return the number of messages the broker holds for our queues (waiting or reserved), or None."""
    from corelsweb.celery import app

    if not settings.CELERY_BROKER_URL.startswith("redis"):
        return None
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        waiting = sum(client.llen(q) for q in settings.CORELSWEB_QUEUES)
        return waiting + client.hlen("unacked")


def resend_lost(now):
    """Re-send queued runs when the broker holds fewer messages than there are queued runs."""
    grace = now - timedelta(seconds=settings.CORELSWEB_RECONCILE_SECONDS)
    queued = list(Run.objects.filter(status=Run.Status.QUEUED, created__lt=grace).select_related("dataset"))
    if not queued:
        return 0
    backlog = broker_backlog()
    # Only Redis (kept in memory here) loses messages; the filesystem broker keeps them on disk.
    if backlog is None or backlog >= Run.objects.filter(status=Run.Status.QUEUED).count():
        return 0
    services.enqueue(queued)
    log.warning("re-sent %d queued runs that the broker had lost", len(queued))
    return len(queued)


def reconcile():
    """Run both recoveries; return what each did."""
    now = timezone.now()
    return {"requeued_orphans": requeue_orphans(now), "resent_lost": resend_lost(now)}
