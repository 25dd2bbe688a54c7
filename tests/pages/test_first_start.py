# Check the first start (issue 21, item 15): the server does not wait for the solvers, workers warm them in the
# background cheapest first and report each one, the pages show which algorithms are ready, and a run sent
# before its kernels are ready says that it waits and will start by itself.
import inspect

from django.utils import timezone

from corelsweb.ops.management.commands import serve
from corelsweb.ops.models import WorkerBeat
from corelsweb.runs.models import Run
from tests.factories import make_run
from tests.pages.helpers import upload


def test_the_run_command_starts_the_server_without_compiling_the_solvers():
    source = inspect.getsource(serve.Command.handle)
    assert 'call_command("warm")' not in source


def test_warming_reports_each_algorithm_as_it_becomes_ready(monkeypatch):
    from corelsweb.ops import warming

    monkeypatch.setattr(warming, "_state", {"ready": [], "warming": []})  # a fresh worker process
    states = []
    seconds = warming.warm_all(
        report=lambda s: states.append((list(s["ready"]), list(s["warming"]))), names=["corels", "cart"]
    )
    assert list(seconds) == ["cart", "corels"]  # cheapest first
    assert states[0] == ([], ["cart"]) and states[-1] == (["cart", "corels"], [])
    assert (["cart"], ["corels"]) in states


def beat(name, ready, warming_now=""):
    now = timezone.now()
    assert hasattr(WorkerBeat, "ready"), "worker heartbeats do not record which solvers are ready"
    return WorkerBeat.objects.create(
        name=name, queues="short", started=now, last_seen=now, ready=ready, warming=warming_now
    )


def test_pages_show_which_algorithms_are_ready(alice_client, alice):
    dataset = upload(alice, "tic-tac-toe.csv")
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert 'readiness-no-worker" data-algorithm="cart"' in page
    beat("host:1", ["cart", "osst"], "corels")
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert 'readiness-ready" data-algorithm="cart"' in page
    assert 'readiness-compiling" data-algorithm="corels"' in page
    assert 'readiness-waiting" data-algorithm="streed"' in page
    form = alice_client.get(f"/datasets/{dataset.pk}/runs/new/streed/").content.decode()
    assert 'id="solver-readiness"' in form and "starts by itself" in form


def test_a_run_waiting_for_its_kernels_says_so_and_starts_by_itself(alice_client, alice):
    beat("host:1", ["cart"], "streed")
    queued = make_run(alice, algorithm="streed")
    page = alice_client.get(queued.get_absolute_url()).content.decode()
    assert 'id="wait-note"' in page and "still compiling" in page and "starts by itself" in page
    compiling = make_run(alice, algorithm="streed", status=Run.Status.COMPILING, worker="host:1")
    data = alice_client.get(f"/runs/{compiling.pk}/progress.json").json()
    assert "compiling the" in data["html"] and "start by themselves" in data["html"]
    assert "compiled so far: CART" in data["html"] and ">Running<" not in data["html"]
    ready = make_run(alice, algorithm="cart")
    assert 'id="wait-note"' not in alice_client.get(ready.get_absolute_url()).content.decode()


def test_the_staff_queue_page_shows_each_workers_ready_solvers(client, db):
    from django.contrib.auth import get_user_model

    staff = get_user_model().objects.create_user("sam", password="sam-password-123", is_staff=True)
    beat("host:7", ["cart", "osst"], "corels")
    client.force_login(staff)
    page = client.get("/ops/queue/").content.decode()
    assert "cart, osst" in page and "compiling corels" in page
