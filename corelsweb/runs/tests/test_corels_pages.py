# Check the run page of a CORELS result: the rule list in words with what each rule captures, and its figures.
import html

from corelsweb.figures import panels_for_result
from corelsweb.runs.models import Run
from corelsweb.runs.lifecycle import finish_with_result
from solver import solve
from tests.factories import make_dataset, make_run

CSV = b"age,priors,label\n" + b"".join(
    f"{20 + (i * 7) % 40},{i % 6},{int((i % 6) > 3 or (i * 7) % 40 < 5)}\n".encode() for i in range(60)
)


def make_corels_run(owner):
    dataset = make_dataset(owner, data=CSV, name="people")
    run = make_run(owner, dataset, status=Run.Status.RUNNING, algorithm="corels", params={"regularization": 0.02})
    from corelsweb.datasets.services import load_problem

    result = solve(load_problem(run.dataset), "corels", run.params)
    finish_with_result(run.pk, result)
    run.refresh_from_db()
    return run, result


def test_the_rule_list_reads_as_if_else_in_the_original_units(alice_client, alice):
    run, result = make_corels_run(alice)
    page = alice_client.get(run.get_absolute_url()).content.decode()
    texts = result.model.rule_texts()
    assert texts and all(html.escape(t) in page for t in texts)
    assert "else predict" in page and "if " in page
    assert "support" in page and "rows covered so far" in page
    assert any(unit in page for unit in ("age", "priors"))


def test_a_corels_result_has_its_queue_panels(alice):
    _, result = make_corels_run(alice)
    ids = [p["id"] for p in panels_for_result(result.to_dict())]
    assert "queue-lengths" in ids and "trace" in ids and "search-size" in ids
    queue = next(p for p in panels_for_result(result.to_dict()) if p["id"] == "queue-lengths")
    assert queue["figure"]["layout"]["yaxis"]["type"] == "log"
    assert any(trace["name"] == "length 0" for trace in queue["figure"]["data"])


def test_other_algorithms_get_no_queue_panels(alice):
    from tests.factories import make_finished_run

    run = make_finished_run(alice)
    assert not [p for p in panels_for_result(run.result) if p["id"] == "queue-lengths"]
