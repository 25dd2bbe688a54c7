"""Celery tasks: thin adapters that claim a run and hand it to the services."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from corelsweb.ops import workers
from corelsweb.runs import recovery, services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def execute_run_task(run_pk):
    """Claim run ``run_pk`` (a no-op if a live worker has it) and execute it."""
    if not services.claim_run(run_pk, services.worker_id()):
        return
    workers.set_current_run(run_pk)
    try:
        with services.Heartbeat(run_pk):
            services.execute_run(run_pk)
    except SoftTimeLimitExceeded:
        services.finish_failed(run_pk, "The run passed the queue's hard time limit without returning; "
                                       "it was stopped. Try a shorter time limit or an easier problem.", "")
    finally:
        workers.set_current_run(None)


@shared_task
def reconcile_task():
    """Requeue runs whose worker died and runs whose queue message was lost (periodic, via beat)."""
    return recovery.reconcile()
