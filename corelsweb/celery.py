"""The Celery application, configured from Django settings (``CELERY_`` namespace)."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "corelsweb.settings")

app = Celery("corelsweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def start_beat(**kwargs):
    # Each pool process writes its beat (host:pid, current run, load): the one liveness signal of its runs.
    from corelsweb.runs import liveness

    names = [q.name for q in app.amqp.queues.consume_from.values()] if app.amqp.queues.consume_from else []
    liveness.set_queues(names)  # which runs it may take, its own class first (corelsweb.runs.queueing)
    liveness.start_beat(liveness.worker_id(), ",".join(names))


@worker_process_init.connect
def warm_in_background(**kwargs):
    # In a low-priority thread, so the pool child reports ready at once; a task that needs a
    # kernel still compiling compiles it itself or waits on numba's compile lock.
    if os.environ.get("CORELSWEB_WARM_SOLVERS", "1") == "1":
        from corelsweb.ops import warming

        warming.start_in_background()
