"""What the staff queue page shows: queues, runs by state, workers, failures."""

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from redis.exceptions import RedisError

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs.models import Run
from corelsweb.runs.recovery import broker_overview
from corelsweb.runs.services import cancel_run, retry_run


def queue_depths(broker):
    """Return ``[(queue, waiting messages or None)]``: from Redis's overview, or the file broker's message files."""
    if broker is None and settings.CELERY_BROKER_URL.startswith("filesystem"):
        return [(q, filesystem_queue_depth(q)) for q in settings.CORELSWEB_QUEUES]
    return [(q, broker["waiting"][q] if broker else None) for q in settings.CORELSWEB_QUEUES]


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
    running = list(Run.objects.filter(status=Run.Status.RUNNING).select_related("owner", "dataset").order_by("started"))
    return {
        "now": now,
        "queues": queue_depths(broker),
        "broker": broker,
        "counts": {
            "queued": Run.objects.filter(status=Run.Status.QUEUED).count(),
            "running": len(running),
            "finished_last_hour": Run.objects.filter(finished__gte=hour).exclude(status=Run.Status.FAILED).count(),
            "failed_last_hour": Run.objects.filter(finished__gte=hour, status=Run.Status.FAILED).count(),
        },
        "queued": Run.objects.filter(status=Run.Status.QUEUED)
        .select_related("owner", "dataset")
        .order_by("created")[:50],
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
