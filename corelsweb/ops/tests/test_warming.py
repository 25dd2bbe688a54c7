# Check that a worker warms the kernels of the runs waiting in the queue before the others.
from corelsweb.ops import warming
from tests.factories import make_run


def test_the_units_of_the_oldest_waiting_runs_come_first(alice):
    make_run(alice, algorithm="streed", params={"objective": "f1"})
    make_run(alice, algorithm="gosdt")
    make_run(alice, algorithm="corels", status="optimal")  # finished: orders nothing
    assert warming.waiting_units() == ["ordered", "streed", "streed-f1", "gosdt-dpb"]
