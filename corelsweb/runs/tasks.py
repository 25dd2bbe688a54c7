"""Celery tasks: thin adapters that claim a run, or a path, and hand it to the lifecycle.

Callers send these by name (``lifecycle.send_task``) and never import this module.
"""

from celery import shared_task
from django.conf import settings

from corelsweb.runs import lifecycle, paths, splitting


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def execute_run_task(self, run_pk):
    """Claim the run this worker should serve next (or take over ``run_pk``'s) and execute it under supervision.

    Eagerly (no broker: tests) the message's own run is claimed, as there is no queue to keep in order.
    """
    worker = lifecycle.worker_id()
    try:
        if self.request.is_eager:
            taken = run_pk if lifecycle.claim(run_pk, worker) else None
        else:
            taken = lifecycle.claim_for_message(self.request.id, run_pk, worker)
        if taken is not None:
            lifecycle.execute(taken, worker)
    finally:
        lifecycle.set_current_run(None)


# Celery's time limits are a backstop for this quick task only; a run's own limits are its supervisor's.
@shared_task(
    acks_late=True,
    soft_time_limit=settings.CORELSWEB_MAX_TIME_LIMIT + 60,
    time_limit=settings.CORELSWEB_MAX_TIME_LIMIT + 180,
)
def path_summary_task(path_pk):
    """Summarise a path whose cells are all final (CART baseline, λ choice, refit), or complete it after its refit."""
    paths.cell_finished(path_pk)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def execute_piece_task(piece_pk):
    """Claim one piece of a split run (``corelsweb.runs.splitting``) and search it; nothing if it is held or final."""
    try:
        splitting.execute_piece(piece_pk, lifecycle.worker_id())
    finally:
        lifecycle.set_current_run(None)
