"""Liveness of worker processes and of the searches they hold: beats, and when a holder or its search is gone.

Each worker process writes its ``WorkerBeat`` row every few seconds from a
thread (``start_beat``), with the database's clock: alive, the run it is
executing (``current_run``), the solvers it has ready, its load. The solving
never runs in that process, so a search that holds the GIL cannot silence it.

- A run's **holder is gone** when its process is dead (same host: the kernel
  says so) or its beat is stale (any host).
- A run's **search is gone** when its holder is gone, or when the holder's
  beat, written after the claim, names no run or another run: the task that
  held the run ended without making it final (its result could not be
  stored, say). A beat and the state it reports are read and written under one
  lock, so a beat never reports a run the process has already left.
"""

import os
import socket
import threading
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.db.models.functions import Now
from django.utils import timezone

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs.models import Run
from solver.memory import current_rss

_beat_state = {"run": None, "ready": [], "warming": "", "name": None, "queues": ()}
_beat_lock = threading.RLock()


def host_id():
    """Return this machine's name in worker identities (``CORELSWEB_HOST_ID``, else the host name)."""
    return settings.CORELSWEB_HOST_ID or socket.gethostname()


def worker_id():
    """Return this process's identity as recorded on the runs it claims: ``host:pid``."""
    return f"{host_id()}:{os.getpid()}"


def set_current_run(pk):
    """Record the run this process is executing (None: none); the next beat reports it."""
    with _beat_lock:
        _beat_state["run"] = pk


def current_run():
    return _beat_state["run"]


def set_queues(queues):
    """Record the queues this worker process consumes, first its own (``corelsweb.runs.queueing``)."""
    _beat_state["queues"] = tuple(q for q in queues if q)


def queues():
    """Return the queues this process consumes, first its own; empty outside a worker (it may take any run)."""
    return _beat_state["queues"]


def set_warm_state(warm):
    """Record which algorithms' kernels this process has ready (``corelsweb.ops.warming``); beat it at once.

    The run this process compiles for, if any, gets a new version: its page shows what is compiled so far.
    """
    with _beat_lock:
        _beat_state["ready"], _beat_state["warming"] = list(warm["ready"]), ",".join(warm["warming"])[:40]
    name, run = _beat_state["name"], _beat_state["run"]
    if name:
        try:
            beat(name)
            if run is not None:
                Run.objects.filter(pk=run, status=Run.Status.COMPILING, worker=name).update(version=F("version") + 1)
        except Exception:  # the regular beat retries
            connection.close()


def beat(name, queues=None, started=None):
    """Write this process's beat (with the database's clock): alive, its current run and ready solvers, its load."""
    with _beat_lock:
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
                WorkerBeat.objects.create(name=name, last_seen=Now(), **fields)
        except IntegrityError:  # this process's other beat (its thread, or a claim) created it first
            WorkerBeat.objects.filter(name=name).update(last_seen=Now(), **fields)


def start_beat(name, queue_names):
    """Start the thread that writes this process's beat every ``CORELSWEB_BEAT_SECONDS``."""
    started = timezone.now()
    _beat_state["name"] = name

    def loop():
        stop = threading.Event()
        while True:
            try:
                beat(name, queue_names, started)
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


def search_is_gone(run):
    """Return True when no live process is executing ``run`` (claimed, compiling or running)."""
    if holder_is_gone(run.worker):
        return True
    last = WorkerBeat.objects.filter(name=run.worker).values("current_run_id", "last_seen").first()
    if last is None or run.claimed is None:  # nothing tells otherwise: trust the live holder
        return False
    return last["current_run_id"] != run.pk and last["last_seen"] > run.claimed
