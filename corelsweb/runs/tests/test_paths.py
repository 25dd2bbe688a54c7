# Check regularization paths: the λ × fold grid, fan-in once, λ choice, refit, failed cells and retries.
from unittest import mock

from django.urls import reverse

from corelsweb.runs import paths
from solver import pipeline
from corelsweb.runs.models import RegularizationPath, Run
from tests.factories import make_dataset

DATA = b"x1,x2,x3,y\n" + b"".join(
    f"{i % 2},{(i // 2) % 2},{(i * 7) % 5},{int((i % 2) ^ ((i // 2) % 2) or i % 7 == 0)}\n".encode() for i in range(60)
)


def start_path(client, dataset, **extra):
    data = {
        "lambdas": "0.01, 0.05, 0.2",
        "folds": 3,
        "seed": 0,
        "time_limit": 30,
        "memory_limit_mb": 1024,
        "p_max_depth": 3,
        "p_min_samples_leaf": 1,
        "p_criterion": "gini",
    }
    data.update(extra)
    return client.post(reverse("path-new", args=[dataset.pk, "cart"]), data)


def test_a_path_runs_every_cell_then_refits_at_the_chosen_lambda(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, DATA)
    with django_capture_on_commit_callbacks(execute=True):
        r = start_path(alice_client, dataset)
    path = RegularizationPath.objects.get()
    assert r.url == path.get_absolute_url()
    cells = paths.cells(path)
    assert len(cells) == 9 and all(run.status == Run.Status.HEURISTIC for run in cells.values())
    assert {run.evaluation["fold"] for run in cells.values()} == {0, 1, 2}
    path.refresh_from_db()
    assert path.status == RegularizationPath.Status.COMPLETE
    rows = {row["lambda"]: row for row in path.summary}
    best = max(rows.values(), key=lambda row: (round(row["valid_mean"], 12), row["lambda"]))
    assert path.chosen_lambda == best["lambda"]
    refit = path.refit_run
    assert refit.params["regularization"] == path.chosen_lambda and refit.evaluation == {}
    assert refit.result["problem"]["n_samples"] == 60
    page = alice_client.get(path.get_absolute_url()).content.decode()
    assert "fig-path" in page and "chosen λ" in page


def test_folds_partition_the_rows(alice, eager_celery, django_capture_on_commit_callbacks):
    dataset = make_dataset(alice, DATA)
    with django_capture_on_commit_callbacks(execute=True):
        path = paths.create_path(
            alice,
            dataset,
            "cart",
            {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini"},
            {"time_limit": 30},
            [0.01],
            3,
        )
    sizes = [run.result["holdout"]["n_samples"] for run in paths.cells(path).values()]
    assert sum(sizes) == 60


def test_a_failed_cell_is_shown_not_dropped_and_can_be_retried(
    alice_client, alice, eager_celery, tmp_path, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, DATA)
    real_solve = pipeline.run
    # Solves run in child processes: the one that removes the flag file is the one that fails.
    flag = tmp_path / "fail-once"
    flag.touch()

    def flaky(*args, **kwargs):
        try:
            flag.unlink()
        except FileNotFoundError:
            return real_solve(*args, **kwargs)
        raise RuntimeError("worker fell over")

    with mock.patch.object(pipeline, "run", side_effect=flaky), django_capture_on_commit_callbacks(execute=True):
        start_path(alice_client, dataset, lambdas="0.01, 0.05")
    path = RegularizationPath.objects.get()
    assert path.status == RegularizationPath.Status.INCOMPLETE and path.refit_run is None
    failed = [run for run in paths.cells(path).values() if run.status == Run.Status.FAILED]
    assert len(failed) == 1
    page = alice_client.get(path.get_absolute_url()).content.decode()
    assert "retry" in page
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("path-retry-cell", args=[path.pk, failed[0].pk]))
    path.refresh_from_db()
    assert path.status == RegularizationPath.Status.COMPLETE and path.refit_run is not None
    assert all(run.status == Run.Status.HEURISTIC for run in paths.cells(path).values())


def test_choose_lambda_prefers_the_sparser_model_on_ties():
    rows = [
        {"lambda": 0.01, "valid_mean": 0.8, "complete": True},
        {"lambda": 0.05, "valid_mean": 0.8, "complete": True},
        {"lambda": 0.1, "valid_mean": 0.9, "complete": False},
    ]
    assert paths.choose_lambda(rows, True) == 0.05
    assert paths.choose_lambda(rows, False) == 0.05


def test_it_checks_ownership(alice, charlie_client, eager_celery):
    dataset = make_dataset(alice, DATA)
    path = paths.create_path(
        alice,
        dataset,
        "cart",
        {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini"},
        {"time_limit": 30},
        [0.01],
        2,
    )
    run = paths.cells(path)[(0.01, 0)]
    assert charlie_client.get(path.get_absolute_url()).status_code == 404
    assert charlie_client.get(reverse("path-progress", args=[path.pk])).status_code == 404
    assert charlie_client.post(reverse("path-retry-cell", args=[path.pk, run.pk])).status_code == 404
    assert charlie_client.post(reverse("path-refit", args=[path.pk])).status_code == 404
    assert charlie_client.get(reverse("path-new", args=[dataset.pk, "cart"])).status_code == 404
