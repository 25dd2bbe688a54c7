"""Celery tasks: thin adapters that claim a run and hand it to the services."""

from celery import shared_task

from corelsweb.runs import services


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def execute_run_task(self, run_pk):
    """Claim run ``run_pk`` (a no-op if another worker has it) and execute it."""
    if not services.claim_run(run_pk, self.request.hostname or "eager"):
        return
    services.execute_run(run_pk)
