"""Run the control loop: reconcile runs, with exactly one control process acting at a time."""

import signal
import threading

from django.core.management.base import BaseCommand

from corelsweb.runs import control


class Command(BaseCommand):
    help = (
        "Reconcile runs (orphans of dead workers, lost messages) every CORELSWEB_RECONCILE_SECONDS; start one per "
        "host: they elect one leader, and a standby takes over when it dies."
    )

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=None, help="seconds between passes")

    def handle(self, *args, interval, **options):
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *a: stop.set())
        control.run(stop, interval)
