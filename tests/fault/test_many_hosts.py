# Check workers on three "hosts" (network namespaces with their own names and folders, one bridge) sharing
# PostgreSQL, Redis and S3: a host killed mid-run loses nothing (its run finishes on another host, once), and a
# long solve on a live host is never taken over.
import time

import pytest
from django.core.files.base import ContentFile

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.runs import lifecycle, services
from corelsweb.runs.models import Run
from solver import registry
from tests.conftest import purge_queue, wait_for_run

pytestmark = [pytest.mark.fault, pytest.mark.integration]


def send_to(run, queue):
    # The test decides which host takes which run: the long queue has one host, the short queue two (a run past
    # CORELSWEB_LONG_RUN_SECONDS, SHORT_LIMIT here, is the long host's alone; corelsweb/runs/queueing.py).
    Run.objects.filter(pk=run.pk).update(queue=queue)
    run.queue = queue
    lifecycle.send([run])


SHORT_LIMIT = 20


def test_a_killed_host_loses_nothing_and_a_live_hosts_long_solve_is_never_taken_over(network, settings):
    net, env = network
    settings.CORELSWEB_LONG_RUN_SECONDS = SHORT_LIMIT
    env = {**env, "CORELSWEB_LONG_RUN_SECONDS": str(SHORT_LIMIT)}
    purge_queue()
    hosts = {name: net.add_host(name, env) for name in ("host-a", "host-b", "host-c")}
    for name in ("host-a", "host-b"):
        hosts[name].start_worker("short")
    hosts["host-c"].start_worker(
        "long", {"CORELSWEB_TEST_FAULT": "hold-gil", "CORELSWEB_HARD_LIMIT_GRACE_SECONDS": "5"}
    )
    for host in hosts.values():
        host.start_control()
    for host in hosts.values():
        host.wait_ready()

    alice = make_user("alice")
    dataset = create_dataset(
        alice,
        "compas rules",
        ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()),
        "compas-corels-rules.csv",
    )
    params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
    long_run = services.new_run(alice, dataset, "corels", params, {"time_limit": 30})
    long_run.save()
    send_to(long_run, "long")
    run = services.new_run(alice, dataset, "corels", params, {"time_limit": 10})
    run.save()
    send_to(run, "short")

    run = wait_for_run(run.pk, timeout=180, statuses={Run.Status.RUNNING})
    while not Run.objects.get(pk=run.pk).progress:
        time.sleep(0.2)
    victim = run.worker.split(":")[0]
    assert victim in ("host-a", "host-b")
    hosts[victim].kill()  # every process of that machine, at once
    killed = time.monotonic()

    reclaimed, long_seen = None, []
    deadline = killed + 240
    while time.monotonic() < deadline:
        current = Run.objects.get(pk=run.pk)
        if reclaimed is None and current.worker != run.worker and current.status == Run.Status.RUNNING:
            reclaimed = time.monotonic() - killed
        held = Run.objects.get(pk=long_run.pk)
        long_seen.append((held.status, held.attempts, held.worker))
        if not current.is_active and not held.is_active:
            break
        time.sleep(0.3)
    print(f"kill of {victim} to re-claim on another host: {reclaimed:.1f} s")

    run.refresh_from_db()
    survivor = "host-b" if victim == "host-a" else "host-a"
    assert run.status in (Run.Status.TIME_LIMIT, Run.Status.OPTIMAL), run.error
    assert run.attempts == 2 and run.worker.startswith(f"{survivor}:")
    assert run.result["model"]["antecedents"] and run.result["problem"]["n_samples"] == dataset.n_rows
    # The long solve held its GIL on a live host for its whole limit: never taken over, then failed once.
    long_run.refresh_from_db()
    assert long_run.worker.startswith("host-c:") and long_run.status == Run.Status.FAILED
    assert "did not return within 35 s" in long_run.error
    assert {(status, attempts, worker) for status, attempts, worker in long_seen if status == Run.Status.RUNNING} == {
        (Run.Status.RUNNING, 1, long_run.worker)
    }
    assert Run.objects.count() == 2
