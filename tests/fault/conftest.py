"""Servers that fault tests may stop, restart or cut off without touching the shared ones.

A private Redis, an S3 server (moto), and ``network``: worker "hosts" in network namespaces (``hosts.py``).
"""

import os
import shutil
import socket
import subprocess
import sys
import time

import boto3
import pytest

from tests.conftest import ARTIFACTS, require_real_services
from tests.fault import hosts


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
            stdout=(ARTIFACTS / f"redis-{self.port}.log").open("a"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if (
                subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).stdout.strip()
                == b"PONG"
            ):
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


class S3Server:
    """A real S3-compatible server (moto's, from PyPI) in its own process, keeping objects in memory."""

    def __init__(self, host="127.0.0.1"):
        self.host, self.port = host, free_port()
        self.url = f"http://{host}:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", host, "-p", str(self.port)],
            stdout=(ARTIFACTS / f"s3-{self.port}.log").open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((host, self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise TimeoutError("the S3 server did not start")
        self.client = boto3.client(
            "s3", endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
        )

    def keys(self, bucket):
        return [o["Key"] for o in self.client.list_objects_v2(Bucket=bucket).get("Contents", [])]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


S3_ENV = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "CORELSWEB_S3_REGION": "us-east-1"}


def s3_storage(server, bucket):
    """Return the STORAGES["default"] entry (and the environment for other processes) of ``bucket`` on ``server``."""
    server.client.create_bucket(Bucket=bucket)
    entry = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": server.url,
            "region_name": "us-east-1",
            "file_overwrite": False,
            "default_acl": "private",
            "access_key": "test",
            "secret_key": "test",
        },
    }
    env = {**S3_ENV, "CORELSWEB_S3_BUCKET": bucket, "CORELSWEB_S3_ENDPOINT_URL": server.url}
    return entry, env


@pytest.fixture
def s3(settings):
    """An S3 server whose bucket is this process's default storage; yields (server, bucket, env for workers)."""
    server = S3Server()
    entry, env = s3_storage(server, "corelsweb-test")
    settings.STORAGES = {**settings.STORAGES, "default": entry}
    yield server, "corelsweb-test", env
    server.stop()


@pytest.fixture
def network(tmp_path, transactional_db, settings):
    """The bridge and its services; yields (network, the hosts' environment)."""
    require_real_services()
    from corelsweb.celery import app

    original = app.conf.broker_url
    net = hosts.Network(tmp_path)
    try:
        redis_port = hosts.free_port("127.0.0.1")
        net.serve(
            "redis",
            [
                "redis-server",
                "--port",
                str(redis_port),
                "--bind",
                "127.0.0.1",
                net.gateway,
                # Listening on loopback and the test's own bridge only.
                "--protected-mode",
                "no",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
        )
        hosts.wait_port("127.0.0.1", redis_port)
        db = settings.DATABASES["default"]
        pg_port = net.forward("postgres", hosts.free_port(net.gateway), f"{db['HOST']}:{db['PORT']}")
        s3 = S3Server(host=net.gateway)
        net.services.append(s3.process)
        entry, s3_env = s3_storage(s3, "corelsweb-hosts")
        settings.STORAGES = {**settings.STORAGES, "default": entry}
        point_celery_at(f"redis://127.0.0.1:{redis_port}/0")
        broker = f"redis://{net.gateway}:{redis_port}/0"
        env = {
            **os.environ,
            **s3_env,
            "DATABASE_URL": f"postgres://{db['USER']}@{net.gateway}:{pg_port}/{db['NAME']}",
            "CELERY_BROKER_URL": broker,
            "REDIS_URL": broker,
            "CORELSWEB_BEAT_SECONDS": "1",
            "CORELSWEB_STALE_SECONDS": "5",
            "CORELSWEB_RECONCILE_SECONDS": "1",
            "CORELSWEB_WARM_SOLVERS": "0",
        }
        env.pop("CORELSWEB_HOST_ID", None)
        yield net, env
    finally:
        point_celery_at(original)
        net.close()
