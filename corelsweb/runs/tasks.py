"""Celery tasks: thin adapters that claim a run, or a path, and hand it to the lifecycle.

Callers send these by name (``lifecycle.send_task``) and never import this module.
"""

from celery import shared_task

from corelsweb.runs import lifecycle, paths


@shared_task(acks_late=True, reject_on_worker_lost=True)
def execute_run_task(run_pk):
    """Claim run ``run_pk`` (a no-op if a live worker has it) and execute it under supervision."""
    worker = lifecycle.worker_id()
    lifecycle.set_current_run(run_pk)  # named in the beat that the claim writes
    try:
        if lifecycle.claim(run_pk, worker):
            lifecycle.execute(run_pk, worker)
    finally:
        lifecycle.set_current_run(None)


@shared_task(acks_late=True)
def path_summary_task(path_pk):
    """Summarise a path whose cells are all final (CART baseline, λ choice, refit), or complete it after its refit."""
    paths.cell_finished(path_pk)
