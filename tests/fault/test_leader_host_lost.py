# Check leadership that expires (issue 27, item 2): the control loop's leader is on a host whose link goes down
# before its processes are killed, so no FIN or reset ever leaves it and its connections stay half-open (through the
# bridge's PostgreSQL forwarder: the server sees a live client). A standby on another host takes over within 30 s
# and the run that the dead host's worker held finishes on the standby's host.
import time

import pytest
from django.core.files.base import ContentFile

from conftest import make_user, shared_dataset
from corelsweb.datasets.services import create_dataset
from corelsweb.runs import services
from corelsweb.runs.models import Run
from solver import registry
from tests.conftest import purge_queue, wait_for_run

pytestmark = [pytest.mark.fault, pytest.mark.integration]


def wait_until(condition, timeout, step=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def passes(host):
    """Return how many reconcile passes ``host``'s control process has logged."""
    log = next(path for _, path in host.processes if path.name.endswith("-control.log"))
    return log.read_text().count("control: reconcile pass")


def test_a_standby_takes_over_when_the_leaders_host_vanishes_without_a_word(network):
    net, env = network
    purge_queue()
    leader, standby = net.add_host("host-a", env), net.add_host("host-b", env)
    leader.start_control()
    leader.start_worker()
    leader.wait_ready()
    assert wait_until(lambda: passes(leader) > 0, timeout=60), "the first control process never led"
    standby.start_control()

    alice = make_user("alice")
    dataset = create_dataset(
        alice, "compas", ContentFile(shared_dataset("compas-corels-rules.csv").read_bytes()), "compas.csv"
    )
    params = registry.get("corels").clean({"regularization": 0.001, "antecedents": "given"})
    run = services.create_run(alice, dataset, "corels", params, {"time_limit": 20})
    run = wait_for_run(run.pk, timeout=180, statuses={Run.Status.RUNNING})
    assert run.worker.startswith("host-a:")
    standby.start_worker()
    standby.wait_ready()
    assert passes(standby) == 0, "two control processes reconciled at once"

    leader.cut()  # the link first: whatever the host does next, nothing of it arrives
    leader.kill()
    lost = time.monotonic()
    assert wait_until(lambda: passes(standby) > 0, timeout=30), "no standby took over within 30 s"
    took_over = time.monotonic() - lost
    run = wait_for_run(run.pk, timeout=180)
    print(
        f"leader's host lost to standby leading: {took_over:.1f} s; its run final after {time.monotonic() - lost:.1f} s"
    )
    assert run.status in (Run.Status.TIME_LIMIT, Run.Status.OPTIMAL), run.error
    assert run.worker.startswith("host-b:") and run.attempts == 2
    assert run.result["model"]["antecedents"]
