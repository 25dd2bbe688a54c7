# Check the ROC hull on the run, compare and path pages: a panel per tree, overlays that link to their runs.
import json
import re

from django.urls import reverse

from corelsweb.runs.models import RegularizationPath, Run
from corelsweb.runs.tests.test_paths import DATA as PATH_DATA
from corelsweb.runs.tests.test_paths import start_path
from solver.testing import assert_roc_hull_valid
from tests.factories import make_dataset, make_finished_run, run_form_data

DATA = b"age,sex,y\n" + b"".join(
    f"{20 + i % 50},{'mf'[i % 2]},{int(i % 50 > 25 or i % 7 == 0)}\n".encode() for i in range(100)
)


def figure_json(page, element_id):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(match.group(1))


def test_a_gosdt_auc_run_shows_its_hull_and_held_out_curve(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, DATA)
    data = run_form_data("gosdt", objective="auc", regularization=0.02, max_depth=2)
    data["evaluation"] = "holdout:0.2"
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("run-new", args=[dataset.pk, "gosdt"]), data)
    run = Run.objects.get()
    assert run.status == Run.Status.OPTIMAL, run.error
    page = alice_client.get(run.get_absolute_url()).content.decode()
    fig = figure_json(page, "fig-roc")
    assert_roc_hull_valid(fig["layout"]["meta"]["hull"])
    assert fig["layout"]["meta"]["holdout"] is not None
    assert "ROC convex hull of the tree" in page


def test_compare_overlays_the_hulls_with_links_to_the_runs(alice_client, alice):
    dataset = make_dataset(alice, DATA)
    a, b = make_finished_run(alice, dataset), make_finished_run(alice, dataset)
    page = alice_client.get(reverse("dataset-compare", args=[dataset.pk]), {"runs": [a.pk, b.pk]}).content.decode()
    fig = figure_json(page, "fig-roc")
    names = [d["name"] for d in fig["data"][1:]]
    assert len(names) == 2
    assert f'href="{a.get_absolute_url()}"' in names[0] and f'href="{b.get_absolute_url()}"' in names[1]


def test_a_path_page_shows_the_hull_of_each_lambda(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, PATH_DATA)
    with django_capture_on_commit_callbacks(execute=True):
        start_path(alice_client, dataset)
    path = RegularizationPath.objects.get()
    page = alice_client.get(path.get_absolute_url()).content.decode()
    fig = figure_json(page, "fig-path-roc")
    curves = fig["data"][1:]
    assert 1 <= len(curves) <= 3
    for curve in curves:
        assert_roc_hull_valid(list(zip(curve["x"], curve["y"])))
