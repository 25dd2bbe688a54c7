"""Run the whole app on one machine: migrate, bootstrap, a Celery worker and the web server."""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Migrate, create the demo account, start Celery workers (short and long queue), the control loop and "
        "gunicorn; Ctrl-C stops all."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--concurrency", type=int, default=int(os.environ.get("WORKER_CONCURRENCY", "1")))
        parser.add_argument("--no-bootstrap", action="store_true")

    def handle(self, *args, host, port, concurrency, no_bootstrap, **options):
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        if not no_bootstrap:
            call_command("bootstrap")
        # No waiting for the solvers: each worker process compiles them in the background (corelsweb.ops.warming)
        # and the pages show which algorithms are ready; a run sent earlier waits on its worker and starts by itself.
        python = sys.executable
        celery = [python, "-m", "celery", "-A", "corelsweb", "worker", "--loglevel=INFO"]
        # One worker per queue, so that a long search never blocks quick ones (the long queue's worker serves long
        # runs first, then short ones: corelsweb.runs.queueing), and the control loop (reconciling runs) in a
        # process of its own that no solve can hold up.
        short = subprocess.Popen(celery + [f"--concurrency={concurrency}", "-Q", "short", "-n", "short@%h"])
        long = subprocess.Popen(celery + [f"--concurrency={concurrency}", "-Q", "long,short", "-n", "long@%h"])
        control = subprocess.Popen([python, "-m", "django", "control"])
        web = subprocess.Popen(
            [
                python,
                "-m",
                "gunicorn",
                "corelsweb.wsgi",
                "--bind",
                f"{host}:{port}",
                "--workers",
                "2",
                "--threads",
                "4",
                "--access-logfile",
                "-",
                "--log-level",
                "warning",
            ]
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"\ncorelsweb is running at http://{host}:{port}/  (demo account: demo / demo-corelsweb)\n"
                f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
                f"broker: {settings.CELERY_BROKER_URL.split('@')[-1]}; Ctrl-C stops the server and the workers.\n"
                "The workers compile the solvers in the background (a few minutes on the first start only); the "
                "dataset pages show which algorithms are ready.\n"
            )
        )
        children = [short, long, control, web]
        signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            while all(p.poll() is None for p in children):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for p in children:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            for p in children:
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
        failed = [p for p in children if p.returncode not in (0, -signal.SIGTERM, None)]
        if failed:
            self.stderr.write("a child process stopped unexpectedly; see its output above")
            sys.exit(1)


def _raise_interrupt(signum, frame):
    # SIGTERM (from a supervisor or kill) stops the children as Ctrl-C does.
    raise KeyboardInterrupt
