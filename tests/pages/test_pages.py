# Check the pages that fought the user (issue 21, items 8-14): large trees fit and fold, the estimate follows
# the form per algorithm, algorithms offered by roles, CORELS defaults that prove, plot polish, runs grouped
# under paths with names and notes, and what staff can see.
from django.contrib.auth import get_user_model
from django.urls import reverse

from corelsweb.figures.path import path_figure
from corelsweb.figures.survival import km_figure
from corelsweb.figures.trace import bound_trace_figure, search_size_figure
from corelsweb.figures.tree import tree_figure
from corelsweb.runs.models import RegularizationPath, Run
from tests.factories import make_run, run_form_data
from tests.pages.helpers import solved_run, upload


def test_a_wide_tree_is_fitted_to_the_page_folded_and_offered_as_text(alice_client, alice):
    from corelsweb.figures.tree import tree_rule_lines

    run = solved_run(alice, upload(alice, "bank.csv"), "cart", {"max_depth": 6})
    model = run.result["model"]
    leaves = sum(1 for f in model["feature"] if f == -1)
    assert leaves > 12
    figure = tree_figure(model)
    layout = figure["layout"]
    assert "width" not in layout and layout["dragmode"] == "pan"
    menu = layout["updatemenus"][0]["buttons"]
    assert menu[-1]["label"].startswith("all ") and len(menu) >= 2
    assert layout["meta"]["shown_depth"] < layout["meta"]["depth"]
    assert any("leaves below" in a["text"] for a in layout["annotations"])
    lines = tree_rule_lines(model)
    assert len(lines) == leaves and lines[0].startswith("leaf 1: if ")
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="tree-rules"' in page and "leaf 1: if " in page


def test_the_estimate_follows_the_form_and_gives_only_advice_that_applies(alice_client, alice):
    dataset = upload(alice, "bank.csv")
    url = reverse("run-form-estimate", args=[dataset.pk, "streed"])
    deep = alice_client.post(url, run_form_data("streed", max_depth=5)).json()["html"]
    shallow = alice_client.post(url, run_form_data("streed", max_depth=2)).json()["html"]
    assert "at most 4 leaves" in shallow and "at most 32 leaves" in deep
    assert "λ" not in deep.split("To make it easier")[-1]
    dataset.binarization = "gbdt:40:1"
    dataset.save()
    gosdt = alice_client.post(
        reverse("run-form-estimate", args=[dataset.pk, "gosdt"]), run_form_data("gosdt", regularization=0.0001)
    ).json()["html"]
    assert "boosted" not in gosdt


def test_the_run_form_asks_the_server_for_the_estimate_as_it_changes(alice_client, alice):
    dataset = upload(alice, "bank.csv")
    page = alice_client.get(reverse("run-new", args=[dataset.pk, "osdt"])).content.decode()
    assert 'id="estimate-box"' in page and reverse("run-form-estimate", args=[dataset.pk, "osdt"]) in page


def test_survival_tables_offer_only_survival_trees_and_show_events_and_time(alice_client, alice):
    survival = upload(alice, "veterans-surv.csv", {"time": "time", "event": "event"})
    page = alice_client.get(survival.get_absolute_url()).content.decode()
    assert reverse("run-new", args=[survival.pk, "osst"]) in page
    for name in ("corels", "gosdt", "osdt", "streed", "cart"):
        assert reverse("run-new", args=[survival.pk, name]) not in page, name
    assert 'id="survival-summary"' in page and "events of 137 rows" in page
    classification = upload(alice, "tic-tac-toe.csv")
    page = alice_client.get(classification.get_absolute_url()).content.decode()
    assert reverse("run-new", args=[classification.pk, "osst"]) not in page
    assert (
        reverse("path-new", args=[classification.pk, "osst"])
        not in alice_client.get(reverse("dataset-runs", args=[classification.pk])).content.decode()
    )
    home = alice_client.get("/").content.decode()
    assert "survival: " in home and "% events" in home


def test_corels_defaults_prove_on_a_table_where_they_ran_out_of_memory(alice):
    run = solved_run(alice, upload(alice, "tic-tac-toe.csv"), "corels")
    assert run.status == Run.Status.OPTIMAL
    assert run.result["stats"]["peak_memory_bytes"] < 2**30


def test_a_corels_search_too_large_for_memory_is_warned_before_the_run(alice_client, alice):
    dataset = upload(alice, "tic-tac-toe.csv")
    html = alice_client.post(
        reverse("run-form-estimate", args=[dataset.pk, "corels"]), run_form_data("corels", max_clauses=2)
    ).json()["html"]
    assert "fills its queue memory" in html and "sets the prefixes with the worst bounds aside" in html


def test_trace_plots_keep_legends_clear_of_the_axis_title_and_show_short_runs():
    trace = {"elapsed": [0.0004], "lower_bound": [0.2], "upper_bound": [0.2], "nodes": [3]}
    figure = bound_trace_figure(trace)
    assert figure["layout"]["legend"]["y"] >= 1 and figure["layout"]["xaxis"]["range"][1] > 0
    size = search_size_figure(trace)
    assert size["layout"]["legend"]["y"] >= 1 and "markers" in size["data"][0]["mode"]


def test_the_path_leaf_axis_has_whole_number_ticks():
    rows = [
        {"lambda": lam, "folds_done": 2, "leaves_mean": leaves, "valid_mean": 0.7, "valid_std": 0.01, "train_mean": 0.8}
        for lam, leaves in ((0.01, 3.5), (0.1, 1.2))
    ]
    axis = path_figure(rows, "accuracy", "accuracy")["layout"]["yaxis2"]
    assert axis["tickformat"] == "d" and axis["dtick"] == 1


def test_survival_leaves_are_numbered_as_drawn_not_by_node_id(alice):
    run = solved_run(
        alice,
        upload(alice, "veterans-surv.csv", {"time": "time", "event": "event"}),
        "osst",
        {"max_depth": 2, "regularization": 0.001, "min_samples_leaf": 5},
    )
    figure = km_figure(run.result["model"])
    names = [t["name"].split(" (")[0] for t in figure["data"] if t.get("name")]
    assert names == [f"leaf {k}" for k in range(1, len(names) + 1)] and len(names) >= 2


def test_counts_are_formatted_with_thousands_separators(alice_client, alice):
    run = solved_run(alice, upload(alice, "tic-tac-toe.csv"), "corels", {"regularization": 0.001})
    nodes = run.result["stats"]["nodes"]
    assert nodes >= 1000
    assert f"{nodes:,} nodes" in alice_client.get(run.get_absolute_url()).content.decode()


def test_path_cells_are_grouped_under_their_path_and_runs_have_names_and_notes(alice_client, alice):
    dataset = upload(alice, "tic-tac-toe.csv")
    path = RegularizationPath.objects.create(owner=alice, dataset=dataset, algorithm="cart", lambdas=[0.01], folds=2)
    for fold in range(2):
        make_run(alice, dataset, path=path, evaluation={"kfold": 2, "fold": fold})
    data = run_form_data("cart", max_depth=2)
    data.update(run_name="shallow baseline", run_note="to compare with CORELS")
    response = alice_client.post(reverse("run-new", args=[dataset.pk, "cart"]), data)
    run = Run.objects.get(path=None, owner=alice)
    assert response.status_code == 302 and run.name == "shallow baseline" and run.note == "to compare with CORELS"
    home = alice_client.get("/").content.decode()
    assert home.count("cart</a>") == 0 and "shallow baseline" in home and 'id="home-paths"' in home
    runs_page = alice_client.get(reverse("dataset-runs", args=[dataset.pk])).content.decode()
    assert "to compare with CORELS" in runs_page and runs_page.count('name="runs"') <= 1
    # Every objective in a run list says it is on the training data (found by a QA pass).
    dataset_page = alice_client.get(dataset.get_absolute_url()).content.decode()
    for page in (home, runs_page, dataset_page):
        assert "<th>Objective</th>" not in page and "<th>Objective (training)</th>" in page


def test_staff_see_any_run_read_only_from_linked_queue_rows(client, alice):
    staff = get_user_model().objects.create_user("sam", password="sam-password-123", is_staff=True)
    run = solved_run(alice, upload(alice, "tic-tac-toe.csv"), "cart", {"max_depth": 2})
    queued = make_run(alice)
    client.force_login(staff)
    assert client.get(run.get_absolute_url()).status_code == 404  # the owner's page stays the owner's
    page = client.get(reverse("ops-run", args=[run.pk])).content.decode()
    assert 'id="staff-view"' in page and "alice" in page and 'id="model-figure"' in page
    assert "run-cancel" not in page and "share-button" not in page and "Make a share link" not in page
    queue = client.get(reverse("ops-queue")).content.decode()
    assert reverse("ops-run", args=[queued.pk]) in queue


def test_the_file_broker_queue_depth_is_counted(settings, tmp_path):
    from corelsweb.ops.services import filesystem_queue_depth

    folder = tmp_path / "queue"
    folder.mkdir()
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(folder)}
    for k in range(3):
        (folder / f"{k}_abc.short.msg").write_text("{}")
    (folder / "9_abc.long.msg").write_text("{}")
    assert filesystem_queue_depth("short") == 3 and filesystem_queue_depth("long") == 1


def test_the_readme_says_how_to_become_staff():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "createsuperuser" in readme and "is_staff" in readme


def test_the_search_size_axis_labels_do_not_crowd():
    # Found by trying the app: a size axis from 2 to 80 labelled every digit of each decade, overlapping.
    few = {"elapsed": [0.0, 1.0, 2.0], "nodes": [2, 9, 80], "front_size": [2, 2, 70]}
    assert search_size_figure(few)["layout"]["yaxis"]["dtick"] == "D2"  # 1, 2, 5 a decade
    many = {"elapsed": [0.0, 1.0], "nodes": [1, 5_000_000]}
    assert search_size_figure(many)["layout"]["yaxis"]["dtick"] == 1  # powers of ten
