# The Rashomon run page: the exact count, its pictures, the best trees and filters counted on the stored graph.
import json

from corelsweb.figures import panels_for_result
from corelsweb.runs.lifecycle import finish_with_result
from corelsweb.runs.models import Run
from solver import solve
from solver.rashomon.report import load
from solver.rashomon.sets import Filter
from tests.factories import make_dataset, make_run

NAME = "<b>age</b>"
CSV = (f'"{NAME}",priors,label\n'.encode() + b"".join(
    f"{20 + (i * 7) % 40},{i % 6},{int((i % 6) > 3 or (i * 7) % 40 < 5)}\n".encode() for i in range(60)))


def make_rashomon_run(owner):
    from corelsweb.datasets.services import load_problem

    dataset = make_dataset(owner, data=CSV, name="people")
    run = make_run(owner, dataset, status=Run.Status.RUNNING, algorithm="rashomon",
                   params={"regularization": 0.02, "max_depth": 2, "epsilon": 0.3})
    result = solve(load_problem(run.dataset), "rashomon", run.params)
    finish_with_result(run.pk, result)
    run.refresh_from_db()
    return run, result


def test_the_page_shows_the_count_pictures_and_best_trees(alice_client, alice):
    run, result = make_rashomon_run(alice)
    assert run.status == Run.Status.OPTIMAL
    count = result.extras["count"]
    assert count > 1
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert f"<strong>{count:,}</strong> trees" in page
    assert 'id="rashomon-filter"' in page and 'id="rashomon-trees"' in page and "rashomon-tree-0" in page
    assert NAME not in page and "&lt;b&gt;age&lt;/b&gt;" in page
    ids = [p["id"] for p in panels_for_result(result.to_dict())]
    assert {"rashomon-objectives", "rashomon-scatter", "rashomon-importance", "rashomon-training-votes"} <= set(ids)
    importance = next(p for p in panels_for_result(result.to_dict()) if p["id"] == "rashomon-importance")
    assert NAME not in json.dumps(importance["figure"])


def test_filters_count_on_the_stored_graph(alice_client, alice, charlie):
    from django.test import Client

    run, result = make_rashomon_run(alice)
    url = f"/runs/{run.pk}/rashomon/count.json"
    s = load(result.extras["graph"])
    j = result.extras["importance"][0]["feature"]
    body = alice_client.get(url, {"exclude": str(j)}).json()
    assert int(body["count"]) == s.count(Filter(exclude=frozenset({j}))) == result.extras["count"] - \
        result.extras["importance"][0]["trees"]
    body = alice_client.get(url, {"include": str(j), "leaves_max": "3"}).json()
    assert int(body["count"]) == sum(1 for _, t in s.trees(Filter(include=frozenset({j}), leaves=(None, 3))))
    assert int(alice_client.get(url).json()["count"]) == result.extras["count"]
    assert alice_client.get(url, {"max_depth": "two"}).status_code == 400
    stranger = Client()
    stranger.force_login(charlie)
    assert stranger.get(url).status_code == 404


def test_a_graph_too_large_to_store_turns_filters_off_and_says_why(alice_client, alice, monkeypatch):
    from solver.rashomon import report

    monkeypatch.setattr(report, "GRAPH_LIMIT", 1)
    run, result = make_rashomon_run(alice)
    assert result.extras["graph"] is None and result.extras["count"] > 1
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="rashomon-filter"' not in page
    assert 'id="rashomon-filters-off"' in page and "filters are off" in page
    assert alice_client.get(f"/runs/{run.pk}/rashomon/count.json").status_code == 404
