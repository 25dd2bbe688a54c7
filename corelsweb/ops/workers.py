"""Worker heartbeats for the staff queue page: one row per Celery pool process, refreshed every few seconds."""

import os
import threading

from django.utils import timezone

from solver.memory import current_rss

BEAT_SECONDS = 5.0
ALIVE_SECONDS = 3 * BEAT_SECONDS + 5  # a process that missed three beats is shown as silent
state = {"run": None, "ready": [], "warming": "", "name": None, "queues": "", "started": None}


def set_current_run(pk):
    state["run"] = pk


def set_warm_state(warm):
    """Record which algorithms' kernels this process has ready, and report it at once when the beat runs."""
    state["ready"], state["warming"] = list(warm["ready"]), warm["warming"]
    if state["name"]:
        try:
            beat(state["name"], state["queues"], state["started"])
        except Exception:  # the regular beat retries
            pass


def beat(name, queues, started):
    from corelsweb.ops.models import WorkerBeat

    WorkerBeat.objects.update_or_create(name=name, defaults={
        "queues": queues, "started": started, "last_seen": timezone.now(), "current_run_id": state["run"],
        "load": os.getloadavg()[0], "rss_bytes": current_rss(), "ready": state["ready"], "warming": state["warming"],
    })


def start(name, queues):
    """Start the heartbeat thread of this pool process."""
    started = timezone.now()
    state.update(name=name, queues=queues, started=started)

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
