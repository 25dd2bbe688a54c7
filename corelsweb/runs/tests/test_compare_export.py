# Check the compare page, holdout metrics, the λ conversion, and model downloads that pass their test vectors.
import sqlite3

from django.urls import reverse

from corelsweb.datasets.services import load_table
from corelsweb.runs.models import Run
from solver import export
from solver.models import model_from_dict
from tests.factories import make_dataset, make_finished_run, run_form_data

DATA = b"age,sex,y\n" + b"".join(f"{20 + i % 50},{'mf'[i % 2]},{int(i % 50 > 25)}\n".encode() for i in range(100))


def test_compare_shows_models_metrics_and_traces(alice_client, alice):
    dataset = make_dataset(alice, DATA)
    a, b = make_finished_run(alice, dataset), make_finished_run(alice, dataset)
    r = alice_client.get(reverse("dataset-compare", args=[dataset.pk]), {"runs": [a.pk, b.pk]})
    page = r.content.decode()
    assert f"fig-model-{a.pk}" in page and f"fig-model-{b.pk}" in page
    assert "training accuracy" in page and "objective" in page


def test_compare_refuses_runs_of_other_users_and_datasets(alice_client, alice, charlie):
    dataset = make_dataset(alice, DATA)
    mine = make_finished_run(alice, dataset)
    theirs = make_finished_run(charlie, make_dataset(charlie, DATA))
    r = alice_client.get(reverse("dataset-compare", args=[dataset.pk]), {"runs": [mine.pk, theirs.pk]})
    assert r.status_code == 302  # fewer than two of hers: back to the list, nothing of charlie's shown


def test_a_holdout_run_reports_test_metrics(alice_client, alice, eager_celery, django_capture_on_commit_callbacks):
    dataset = make_dataset(alice, DATA)
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(
            reverse("run-new", args=[dataset.pk, "cart"]),
            {
                "time_limit": 30,
                "memory_limit_mb": 512,
                "p_max_depth": 2,
                "p_min_samples_leaf": 1,
                "p_criterion": "gini",
                "p_regularization": 0.0,
                "evaluation": "holdout:0.2",
            },
        )
    run = Run.objects.get()
    holdout = run.result["holdout"]
    assert holdout["n_samples"] == 20 and run.result["problem"]["n_samples"] == 80
    assert 0 <= holdout["metrics"]["accuracy"] <= 1
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert '<th class="num">Test</th>' in page and "20 rows the model was not fitted on" in page


def test_lambda_from_at_most_l_leaves_is_stored_with_its_explanation(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, DATA)
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(
            reverse("run-new", args=[dataset.pk, "cart"]),
            {
                "time_limit": 30,
                "memory_limit_mb": 512,
                "p_max_depth": 4,
                "p_min_samples_leaf": 1,
                "p_criterion": "gini",
                "p_regularization": 0.0,
                "lambda_mode": "max_leaves",
                "lambda_target": 3,
            },
        )
    run = Run.objects.get()
    assert abs(run.params["regularization"] - 0.48 / 2) < 1e-12  # minority share 48/100 over L - 1 = 2
    assert "at most 3 leaves" in run.note
    assert Run.objects.get().result["model"]["feature"].count(-1) <= 3


def test_downloads_carry_test_vectors_that_pass(alice_client, alice, tmp_path):
    run = make_finished_run(alice, make_dataset(alice, DATA))
    run.result["test_vectors"] = export.test_vectors(model_from_dict(run.result["model"]), load_table(run.dataset))
    Run.objects.filter(pk=run.pk).update(result=run.result)
    py = alice_client.get(reverse("run-export", args=[run.pk, "python"]))
    assert py["Content-Disposition"].endswith('.py"')
    namespace = {}
    exec(py.content.decode(), namespace)
    assert namespace["self_test"]() == len(run.result["test_vectors"])
    sql = alice_client.get(reverse("run-export", args=[run.pk, "sql"])).content.decode()
    db = sqlite3.connect(":memory:")
    db.execute('CREATE TABLE t ("age" REAL, "sex" TEXT)')
    vectors = run.result["test_vectors"]
    db.executemany("INSERT INTO t VALUES (?, ?)", [(v["row"].get("age"), v["row"].get("sex")) for v in vectors])
    got = [r[0] for r in db.execute(f"SELECT {sql} FROM t ORDER BY rowid")]
    assert got == [v["expected"] for v in vectors]
    js = alice_client.get(reverse("run-export", args=[run.pk, "json"])).json()
    assert js["schema"] == "corelsweb.model"


def test_exports_check_ownership(charlie_client, alice):
    run = make_finished_run(alice)
    for fmt in ("json", "python", "sql"):
        assert charlie_client.get(reverse("run-export", args=[run.pk, fmt])).status_code == 404


def test_a_mined_rule_list_run_reports_test_metrics(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, DATA)
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(
            reverse("run-new", args=[dataset.pk, "corels"]),
            {**run_form_data("corels", regularization=0.02), "evaluation": "holdout:0.2"},
        )
    run = Run.objects.get()
    assert run.status == Run.Status.OPTIMAL, run.error
    assert run.result["holdout"]["n_samples"] == 20 and "metrics" in run.result["holdout"]
