"""Fixtures for tests that need real services: Redis, PostgreSQL and Celery worker processes."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


def require_real_services():
    engine = settings.DATABASES["default"]["ENGINE"]
    broker = settings.CELERY_BROKER_URL
    if "postgresql" not in engine or not broker.startswith("redis://"):
        pytest.fail(
            "this test needs PostgreSQL and Redis: run it through scripts/test "
            f"(DATABASE_URL and REDIS_URL set); got {engine} and {broker}"
        )


def purge_queue():
    from corelsweb.celery import app

    with app.connection_for_write() as conn:
        for queue in settings.CORELSWEB_QUEUES:
            conn.default_channel.queue_purge(queue)
        conn.default_channel.client.delete("unacked", "unacked_index")


def worker_env():
    db = settings.DATABASES["default"]
    env = dict(os.environ)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL
    env["MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    return env


class WorkerProcess:
    """A real ``celery worker`` process (prefork pool) against the test database and Redis.

    ``queues``: what ``-Q`` names, its own queue first (default: every queue).
    """

    def __init__(self, name, concurrency=1, extra_env=None, queues=None):
        self.name = name
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_path = ARTIFACTS / f"worker-{name}.log"
        env = worker_env()
        env.update(extra_env or {})
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "corelsweb",
                "worker",
                "--loglevel=INFO",
                "-Q",
                queues or ",".join(settings.CORELSWEB_QUEUES),
                f"--concurrency={concurrency}",
                "-n",
                f"{name}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log_path.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker {self.name} exited: {self.log_path.read_text()[-3000:]}")
            if "ready." in self.log_path.read_text():
                return self
            time.sleep(0.3)
        raise TimeoutError(f"worker {self.name} not ready in {timeout}s: {self.log_path.read_text()[-3000:]}")

    def stop(self, cold=False):
        """Stop the worker (warm: after its tasks; cold: at once) and anything left in its process group."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT if cold else signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class ControlProcess:
    """A real ``manage.py control`` process (the reconciling loop) against the test database and broker."""

    def __init__(self, name, interval=1.0, extra_env=None):
        self.name = name
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_path = ARTIFACTS / f"control-{name}.log"
        env = worker_env()
        env.update(extra_env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "django", "control", f"--interval={interval}"],
            cwd=ROOT,
            env=env,
            stdout=self.log_path.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def passes(self):
        """Return how many reconcile passes this process has made (it logs each)."""
        return self.log_path.read_text().count("control: reconcile pass")

    def stop(self):
        WorkerProcess.stop(self)


@pytest.fixture
def media_for_workers(settings):
    # Workers are other processes: they must see the same uploaded files.
    ARTIFACTS.mkdir(exist_ok=True)
    settings.MEDIA_ROOT = ROOT / "var" / "test-media"
    return settings.MEDIA_ROOT


@pytest.fixture
def celery_worker_process(transactional_db, media_for_workers):
    require_real_services()
    purge_queue()
    worker = WorkerProcess("it").wait_ready()
    yield worker
    worker.stop()


def wait_for_run(pk, timeout=120, statuses=None):
    from corelsweb.runs.models import Run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=pk)
        if (statuses and run.status in statuses) or (not statuses and not run.is_active):
            return run
        time.sleep(0.2)
    raise TimeoutError(f"run {pk} still {run.status} after {timeout}s")
