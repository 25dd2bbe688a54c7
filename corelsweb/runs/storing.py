"""The spool: final states of runs that the database could not take, kept until it can.

One JSON file per run, ``spool/runs/<pk>.json``, in the storage that holds the
uploads (so every host sees it). A worker writes it when it cannot store its
run's result (``lifecycle.finish_durably``); the control loop makes the run
final from it when the database is back (``recovery.finish_spooled``).
"""

import json
import logging

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from corelsweb.runs.models import Run

log = logging.getLogger(__name__)

SPOOL = "spool/runs"


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


def read_spool(pk):
    """Return run ``pk``'s spooled final state, or None when the file cannot be read as one."""
    try:
        with default_storage.open(spool_name(pk)) as f:
            record = json.loads(f.read())
    except (OSError, ValueError):
        log.exception("run %s: its spool file cannot be read; it is kept for staff", pk)
        return None
    return record if isinstance(record, dict) and record.get("status") in Run.Status.values else None
