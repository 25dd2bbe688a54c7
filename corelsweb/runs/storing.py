"""Storing a run's final state so that a finished result is never lost, not even through a database outage.

``finish_durably`` is how a worker makes its run final. When the database
cannot be reached it writes the final state to the spool (a JSON file per
run, ``spool/runs/<pk>.json`` in the storage that holds the uploads, so every
host sees it) and keeps retrying the database with backoff. Once the result is
stored, the spool file goes. If the database stays away for
``CORELSWEB_STORE_RETRY_SECONDS`` after the spool was written, the worker
leaves the run to the spool and goes on: the control loop's ``finish_spooled``
makes it final when the database is back. Without a spool (its storage is
away too) the worker keeps the result and retries both for as long as it
lives; its message stays unacknowledged until then.
"""

import json
import logging
import time

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.conf import settings
from django.db import DatabaseError, connection

from corelsweb.runs.models import Run

log = logging.getLogger(__name__)

SPOOL = "spool/runs"
FIRST_DELAY, MAX_DELAY = 0.5, 10.0


def spool_name(pk):
    return f"{SPOOL}/{pk}.json"


def spool(pk, record):
    """Write run ``pk``'s final state to the spool; return False when the storage cannot be reached."""
    try:
        if default_storage.exists(spool_name(pk)):
            default_storage.delete(spool_name(pk))
        default_storage.save(spool_name(pk), ContentFile(json.dumps(record).encode()))
    except Exception:  # any storage failure (a disk, S3): the caller keeps the result and retries
        log.warning("run %s: could not spool its final state", pk, exc_info=True)
        return False
    log.warning("run %s: the database is unreachable; its final state is spooled", pk)
    return True


def unspool(pk):
    """Remove run ``pk``'s spool file (it is stored); a failure leaves it for the control loop, which removes it."""
    try:
        default_storage.delete(spool_name(pk))
    except Exception:
        log.warning("run %s: could not remove its spool file", pk, exc_info=True)


def spooled():
    """Return the pks of the runs whose final state waits in the spool."""
    try:
        _, files = default_storage.listdir(SPOOL)
    except FileNotFoundError:
        return []
    except Exception:  # the storage is away: the next pass looks again
        log.warning("could not list the spooled results", exc_info=True)
        return []
    return sorted(int(f[: -len(".json")]) for f in files if f.endswith(".json") and f[: -len(".json")].isdigit())


def finish_durably(pk, status, *, holder, result=None, error="", traceback=""):
    """Make run ``pk`` final (``lifecycle.finish``) through database outages; return what ``finish`` returned.

    Returns True, too, when the run was left to the spool (the database stayed away): its result is safe there.
    """
    from corelsweb.runs.lifecycle import finish

    record = {"pk": pk, "holder": holder, "status": status, "result": result, "error": error, "traceback": traceback}
    delay, spooled_at = FIRST_DELAY, None
    while True:
        try:
            done = finish(pk, status, result=result, error=error, traceback=traceback, holder=holder)
        except DatabaseError:
            log.warning("run %s: could not store its final state; retrying in %.1f s", pk, delay, exc_info=True)
            connection.close()
        else:
            if spooled_at is not None:
                unspool(pk)
            return done
        if spooled_at is None and spool(pk, record):
            spooled_at = time.monotonic()
        if spooled_at is not None and time.monotonic() - spooled_at > settings.CORELSWEB_STORE_RETRY_SECONDS:
            log.warning("run %s: the database is still away; its spooled result is left to the control loop", pk)
            return True
        time.sleep(delay)
        delay = min(2 * delay, MAX_DELAY)


def read_spool(pk):
    """Return run ``pk``'s spooled final state, or None when the file cannot be read as one."""
    try:
        with default_storage.open(spool_name(pk)) as f:
            record = json.loads(f.read())
    except (OSError, ValueError):
        log.exception("run %s: its spool file cannot be read; it is kept for staff", pk)
        return None
    return record if isinstance(record, dict) and record.get("status") in Run.Status.values else None


def finish_spooled():
    """Make final every run whose final state waits in the spool; return how many were made final here."""
    from corelsweb.runs.lifecycle import finish

    count = 0
    for pk in spooled():
        record = read_spool(pk)
        if record is None:
            continue
        fields = {k: record.get(k) or "" for k in ("error", "traceback")}
        if finish(pk, record["status"], result=record.get("result"), **fields):
            log.warning("run %s: made final from its spooled result", pk)
            count += 1
        unspool(pk)
    return count
