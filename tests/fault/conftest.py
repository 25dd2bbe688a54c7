"""A private Redis server that fault tests may stop and restart without touching the shared one."""

import os
import shutil
import socket
import subprocess
import time

import pytest

from tests.conftest import ARTIFACTS


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A real ``redis-server`` process that keeps nothing on disk (like the machine's own)."""

    def __init__(self):
        if shutil.which("redis-server") is None:
            pytest.fail("redis-server is not installed")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        self.start()

    def start(self):
        ARTIFACTS.mkdir(exist_ok=True)
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=(ARTIFACTS / f"redis-{self.port}.log").open("a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).stdout.strip() == b"PONG":
                return
            time.sleep(0.1)
        raise TimeoutError("the private redis-server did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)

    def restart(self):
        self.stop()
        self.start()


def point_celery_at(url):
    """Make this process's Celery producer (and so the reconciler) use the broker at ``url``."""
    from corelsweb.celery import app

    # Celery reads CELERY_BROKER_URL from the environment before its own settings.
    os.environ["CELERY_BROKER_URL"] = url
    app.conf.broker_url = url
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def private_redis():
    from corelsweb.celery import app

    server = RedisServer()
    original = os.environ.get("CELERY_BROKER_URL") or app.conf.broker_url
    point_celery_at(server.url)
    yield server
    point_celery_at(original)
    server.stop()
