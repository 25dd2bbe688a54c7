"""What the staff queue page shows: queues, runs by state, workers, failures."""

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from redis.exceptions import RedisError

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs import queueing
from corelsweb.runs.models import Run
from corelsweb.runs.recovery import broker_overview
from corelsweb.runs.services import cancel_run, retry_run


def queue_depths(broker):
    """Return ``[(queue, queued runs of its class, messages waiting in the broker or None)]``.

    The runs come from the database (they add up to the queued runs); the
    messages only wake workers (``corelsweb.runs.queueing``), from Redis's
    overview or the file broker's message files.
    """
    runs = queueing.queued_by_class()
    if broker is None and settings.CELERY_BROKER_URL.startswith("filesystem"):
        return [(q, runs[q], filesystem_queue_depth(q)) for q in settings.CORELSWEB_QUEUES]
    return [(q, runs[q], broker["waiting"][q] if broker else None) for q in settings.CORELSWEB_QUEUES]


def filesystem_queue_depth(queue):
    """Return the messages waiting in ``queue`` of kombu's file broker: one ``<id>.<queue>.msg`` file each."""
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
    try:
        return sum(1 for f in folder.iterdir() if f.name.endswith(f".{queue}.msg"))
    except FileNotFoundError:
        return 0


def overview(now=None):
    now = now or timezone.now()
    hour = now - timedelta(hours=1)
    alive = now - timedelta(seconds=settings.CORELSWEB_STALE_SECONDS)
    try:
        broker = broker_overview()
    except (RedisError, OSError):
        broker = {"down": True, "waiting": dict.fromkeys(settings.CORELSWEB_QUEUES)}
    held = Run.objects.filter(status__in=Run.HELD).select_related("owner", "dataset").order_by("claimed", "pk")
    running = list(held)
    queues = queue_depths(broker)
    return {
        "now": now,
        "queues": queues,
        "broker": broker,
        "counts": {
            "queued": sum(runs for _, runs, _ in queues),
            "compiling": sum(1 for r in running if r.status == Run.Status.COMPILING),
            "running": sum(1 for r in running if r.status == Run.Status.RUNNING),
            "finished_last_hour": Run.objects.filter(finished__gte=hour).exclude(status=Run.Status.FAILED).count(),
            "failed_last_hour": Run.objects.filter(finished__gte=hour, status=Run.Status.FAILED).count(),
        },
        "queued": Run.objects.filter(status=Run.Status.QUEUED)
        .select_related("owner", "dataset")
        .order_by("queue", "created", "pk")[:50],
        "running": running,
        "workers": [
            {"beat": w, "alive": w.last_seen >= alive}
            for w in WorkerBeat.objects.select_related("current_run").filter(last_seen__gte=now - timedelta(hours=1))
        ],
        "unsent": Run.objects.filter(status=Run.Status.QUEUED, message_id="").count(),
        "failed": Run.objects.filter(status=Run.Status.FAILED)
        .select_related("owner", "dataset")
        .order_by("-finished")[:30],
    }


def requeue(run):
    """Queue a failed, cancelled or stuck run again as a fresh run (its history stays)."""
    if run.is_active:
        cancel_run(run)
    return retry_run(run)
