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
CSV = f'"{NAME}",priors,label\n'.encode() + b"".join(
    f"{20 + (i * 7) % 40},{i % 6},{int((i % 6) > 3 or (i * 7) % 40 < 5)}\n".encode() for i in range(60)
)


def make_rashomon_run(owner):
    from corelsweb.datasets.services import load_problem

    dataset = make_dataset(owner, data=CSV, name="people")
    run = make_run(
        owner,
        dataset,
        status=Run.Status.RUNNING,
        algorithm="rashomon",
        params={"regularization": 0.02, "max_depth": 2, "epsilon": 0.3},
    )
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
    assert (
        int(body["count"])
        == s.count(Filter(exclude=frozenset({j})))
        == result.extras["count"] - result.extras["importance"][0]["trees"]
    )
    # The page's list (the best trees of the whole set) follows the filters: each listed tree kept or not.
    kept = {t for _, t in s.trees(Filter(exclude=frozenset({j})))}
    listed = [t for _, t in s.trees(limit=len(result.extras["top"]))]
    assert body["listed_kept"] == [t in kept for t in listed] and len(listed) == len(result.extras["top"])
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


def test_the_set_is_shown_beside_the_optimal_tree_and_its_gosdt_run(alice_client, alice, eager_celery):
    run, result = make_rashomon_run(alice)
    centre = result.extras["gosdt_optimum"]
    assert centre["proved"] and abs(centre["objective"] - result.extras["optimum"]) < 1e-9
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="rashomon-centre"' in page and 'data-figure="rashomon-centre-figure"' in page
    assert f"{centre['objective']:.6f}" in page
    assert "Run GOSDT with these settings" in page
    response = alice_client.post(f"/runs/{run.pk}/rashomon/optimal/")
    gosdt = Run.objects.get(owner=alice, algorithm="gosdt")
    assert response.status_code == 302 and response.url == gosdt.get_absolute_url()
    assert (gosdt.dataset, gosdt.roles, gosdt.binarization, gosdt.evaluation) == (
        run.dataset,
        run.roles,
        run.binarization,
        run.evaluation,
    )
    assert gosdt.params["regularization"] == run.params["regularization"]
    assert gosdt.params["max_depth"] == run.params["max_depth"]
    gosdt.refresh_from_db()
    if gosdt.status == Run.Status.OPTIMAL:  # run eagerly here: its proved optimum is the set's centre
        assert abs(gosdt.result["objective"] - centre["objective"]) < 1e-9
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="rashomon-optimal-run"' in page and gosdt.get_absolute_url() in page
    assert "Run GOSDT with these settings" not in page
    again = alice_client.post(f"/runs/{run.pk}/rashomon/optimal/")  # an existing run is opened, not queued again
    assert again.url == gosdt.get_absolute_url() and Run.objects.filter(algorithm="gosdt").count() == 1


def test_favourites_are_kept_for_the_owner_and_shown_read_only_on_share_links(alice_client, alice, charlie):
    from django.test import Client
    from django.urls import reverse

    from corelsweb.runs.models import RashomonFavourite
    from corelsweb.shares.services import create_link

    run, result = make_rashomon_run(alice)
    first, second = result.extras["top"][0]["text"], result.extras["top"][1]["text"]
    url = f"/runs/{run.pk}/rashomon/favourite/"
    assert alice_client.post(url, {"tree": second}).status_code == 302
    assert set(RashomonFavourite.objects.filter(run=run).values_list("tree", flat=True)) == {second}
    page = alice_client.get(run.get_absolute_url()).content.decode()  # kept across a reload
    assert page.count("★ favourite") == 1 and page.count("☆ keep") == len(result.extras["top"]) - 1
    alice_client.post(url, {"tree": first})
    alice_client.post(url, {"tree": second})  # a second click drops it
    assert set(RashomonFavourite.objects.filter(run=run).values_list("tree", flat=True)) == {first}
    alice_client.post(url, {"tree": "x1?(0|1) not listed"})
    assert RashomonFavourite.objects.filter(run=run).count() == 1
    stranger = Client()
    stranger.force_login(charlie)
    assert stranger.post(url, {"tree": second}).status_code == 404
    assert RashomonFavourite.objects.filter(run=run).count() == 1
    shared = Client().get(reverse("share-view", args=[create_link(run).token])).content.decode()
    assert "★ favourite" in shared and "☆ keep" not in shared and url not in shared


def test_every_picture_names_its_axes_and_a_flat_bound_trace_reads_rounded(alice):
    # Check what the QA pass saw on a Rashomon run page: axis titles given as plain strings (plotly.js 3
    # draws none), one objective value drawn as a bar 0.8 wide, a flat bound line labelled with every digit,
    # and the search's stage number plotted as a size.
    from corelsweb.figures.rashomon import histogram_figure
    from corelsweb.figures.trace import bound_trace_figure, search_size_figure

    run, _ = make_rashomon_run(alice)
    run.refresh_from_db()
    panels = [(p["id"], p["figure"]) for p in panels_for_result(run.result)]
    assert len(panels) >= 4
    for key, fig in panels:
        if not fig:
            continue
        layout = fig["layout"]
        for axis in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
            title = layout[axis].get("title")
            assert title is None or isinstance(title, dict), (key, axis, title)
    one_value = histogram_figure({"histogram": [{"objective": 0.13870967741935483, "count": 2, "leaves": 3}]})
    assert one_value["layout"]["xaxis"]["type"] == "category" and one_value["data"][0]["x"] == ["0.13871"]
    flat = {"elapsed": [0.0, 0.1], "lower_bound": [0.1387, 0.1387], "upper_bound": [0.1387, 0.1387], "phase": [1, 2]}
    low, high = bound_trace_figure(flat)["layout"]["yaxis"]["range"]
    assert low < 0.1387 < high
    assert search_size_figure(flat) is None  # a stage number is not a size
