"""Worker "hosts" in network namespaces made by the test, on one private bridge.

Each host is a network namespace (``ip netns``) with its own address on a bridge
that the test creates, its own host name (a UTS namespace), its own var/ and
media folders, and its own processes (a Celery worker and a control loop). The
hosts reach only the bridge's address, where the test serves the shared
services: a private Redis bound there, PostgreSQL through ``socat`` (the
machine's server listens on loopback only) and an S3 server. Nothing else is
routed: the namespaces have no default route. ``Network.close`` removes every
namespace, link and process it made, also after a failed test.

Needs root (``ip netns add``), ``ip``, ``unshare``, ``socat`` and ``redis-server``.
"""

import ipaddress
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ARTIFACTS, ROOT


def sh(*args, check=True):
    return subprocess.run(list(args), check=check, capture_output=True, text=True)


def free_subnet():
    """Return a /24 of 10.213.0.0/16 that no interface or route of this machine uses."""
    used = sh("ip", "-4", "route", "show", "table", "all").stdout + sh("ip", "-4", "addr").stdout
    for third in range(0, 256, 7):
        net = ipaddress.ip_network(f"10.213.{third}.0/24")
        if str(net.network_address)[:-1] not in used:
            return net
    raise RuntimeError("no free 10.213.x.0/24 subnet on this machine")


def require_tools():
    if os.geteuid() != 0:
        pytest.fail("the many-host test needs root for ip netns (run it as root, as CI does)")
    missing = [t for t in ("ip", "unshare", "socat", "redis-server") if shutil.which(t) is None]
    if missing:
        pytest.fail(f"the many-host test needs {', '.join(missing)} (.ci/run installs them)")


def free_port(host):
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Network:
    """A bridge with the test's own address, and the services the hosts share, listening on it."""

    def __init__(self, tmp):
        require_tools()
        self.tag = secrets.token_hex(2)
        self.bridge = f"cwb{self.tag}"
        self.subnet = free_subnet()
        self.gateway = str(self.subnet.network_address + 1)
        self.tmp, self.hosts, self.services = Path(tmp), [], []
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")

    def serve(self, name, argv):
        """Start a service process in the machine's own namespace, logging to test-artifacts/."""
        ARTIFACTS.mkdir(exist_ok=True)
        log = (ARTIFACTS / f"net-{name}.log").open("w")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.services.append(process)
        return process

    def forward(self, name, port, target):
        """Forward ``gateway:port`` to ``target`` (host:port on loopback) with socat; return the port."""
        self.serve(name, ["socat", f"TCP-LISTEN:{port},bind={self.gateway},fork,reuseaddr", f"TCP:{target}"])
        wait_port(self.gateway, port)
        return port

    def add_host(self, name, env):
        host = Host(self, name, str(self.subnet.network_address + 10 + len(self.hosts)), env)
        self.hosts.append(host)
        return host

    def close(self):
        """Remove every host, process, link and namespace this network made (each step even if another failed)."""
        for host in self.hosts:
            host.kill()
            sh("ip", "netns", "del", host.netns, check=False)
            sh("ip", "link", "del", host.veth, check=False)
        for process in self.services:
            kill_group(process)
        sh("ip", "link", "del", self.bridge, check=False)


def kill_group(process):
    """Kill a process started in a session of its own, and everything it started."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        if process.poll() is None:
            process.kill()
    process.wait()


class Host:
    """One worker machine: a network namespace on the bridge, its own host name, folders and processes."""

    def __init__(self, network, name, address, env):
        self.network, self.name, self.address = network, name, address
        self.netns = f"{network.bridge}-{name}"
        self.veth = veth = f"{network.bridge}{name[-1]}"
        peer = f"{veth}p"
        self.folder = network.tmp / name
        self.env = {**env, "CORELSWEB_VAR_DIR": str(self.folder / "var"), "MEDIA_ROOT": str(self.folder / "media")}
        sh("ip", "netns", "add", self.netns)
        sh("ip", "link", "add", veth, "type", "veth", "peer", "name", peer)
        sh("ip", "link", "set", peer, "netns", self.netns)
        sh("ip", "link", "set", veth, "master", network.bridge, "up")
        self.ns("ip", "addr", "add", f"{address}/24", "dev", peer)
        self.ns("ip", "link", "set", peer, "up")
        self.ns("ip", "link", "set", "lo", "up")
        self.processes = []

    def ns(self, *argv):
        return sh("ip", "netns", "exec", self.netns, *argv)

    def start(self, label, argv, extra_env=None):
        """Start ``argv`` inside this host (its namespace and host name); return the process."""
        ARTIFACTS.mkdir(exist_ok=True)
        log = (ARTIFACTS / f"host-{self.name}-{label}.log").open("w")
        inner = f'hostname {self.name} && exec "$@"'
        process = subprocess.Popen(
            ["ip", "netns", "exec", self.netns, "unshare", "--uts", "sh", "-c", inner, "sh", *argv],
            cwd=ROOT,
            env={**self.env, **(extra_env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append((process, ARTIFACTS / f"host-{self.name}-{label}.log"))
        return process

    def start_worker(self, queues="short,long", extra_env=None):
        return self.start(
            "worker",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "corelsweb",
                "worker",
                "--loglevel=INFO",
                "-Q",
                queues,
                "--concurrency=1",
                "-n",
                f"{self.name}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            extra_env,
        )

    def start_control(self):
        return self.start("control", [sys.executable, "-m", "django", "control", "--interval=1"])

    def wait_ready(self, timeout=180):
        deadline = time.monotonic() + timeout
        for process, log in self.processes:
            if "worker" not in log.name:
                continue
            while "ready." not in log.read_text():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name}'s worker did not start: {log.read_text()[-3000:]}")
                time.sleep(0.3)
        return self

    def pids(self):
        return [int(p) for p in sh("ip", "netns", "pids", self.netns, check=False).stdout.split()]

    def cut(self):
        """Take this host's link down: from now on nothing it sends arrives, not even a FIN or a reset."""
        sh("ip", "link", "set", self.veth, "down")

    def kill(self):
        """Kill every process of this host at once, as a machine that loses power."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process, _ in self.processes:
            kill_group(process)


def wait_port(host, port, timeout=30):
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {host}:{port}")
