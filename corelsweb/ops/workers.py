"""Worker heartbeats for the staff queue page: one row per Celery pool process, refreshed every few seconds."""

import os
import threading

from django.utils import timezone

from solver.memory import current_rss

BEAT_SECONDS = 5.0
state = {"run": None}


def set_current_run(pk):
    state["run"] = pk


def beat(name, queues, started):
    from corelsweb.ops.models import WorkerBeat

    WorkerBeat.objects.update_or_create(name=name, defaults={
        "queues": queues, "started": started, "last_seen": timezone.now(), "current_run_id": state["run"],
        "load": os.getloadavg()[0], "rss_bytes": current_rss(),
    })


def start(name, queues):
    """Start the heartbeat thread of this pool process."""
    started = timezone.now()

    def loop():
        from django.db import connection

        stop = threading.Event()
        while True:
            try:
                beat(name, queues, started)
            except Exception:  # a database hiccup must not kill the worker; the next beat retries
                connection.close()
            stop.wait(BEAT_SECONDS)

    threading.Thread(target=loop, name="worker-beat", daemon=True).start()
