# Check the run page, the polling endpoint, cancel, retry, delete and the result JSON, with ownership.
from django.urls import reverse

from corelsweb.runs.models import Run
from tests.factories import make_finished_run, make_run


def test_the_result_page_draws_the_tree_and_metrics(alice_client, alice):
    run = make_finished_run(alice)
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'data-figure="fig-model"' in page and 'id="fig-model"' in page
    assert "The numbers in the leaves are counted on the training rows." in page  # which data (QA pass)
    assert 'id="metrics-table"' in page and "Accuracy" in page and "Confusion matrix" in page
    assert "vendor/plotly.min.js" in page


def test_the_progress_endpoint_says_unchanged_when_the_client_is_current(alice_client, alice):
    run = make_run(alice)
    url = reverse("run-progress", args=[run.pk])
    data = alice_client.get(url).json()
    assert data["status"] == "queued" and data["active"] is True and "waiting for a worker" in data["html"]
    assert alice_client.get(url, {"v": data["version"]}).json() == {"unchanged": True}
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        version=run.version + 1,
        progress={"nodes": 42, "lower_bound": 0.1, "upper_bound": 0.2},
    )
    data = alice_client.get(url, {"v": data["version"]}).json()
    assert data["status"] == "running" and "42 nodes" in data["html"]


def test_cancelling_a_queued_run_cancels_it_at_once(alice_client, alice):
    run = make_run(alice)
    alice_client.post(reverse("run-cancel", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_cancelling_a_running_run_asks_the_worker(alice_client, alice):
    run = make_run(alice, status=Run.Status.RUNNING)
    alice_client.post(reverse("run-cancel", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and run.cancel_requested


def test_retry_queues_a_copy(alice_client, alice, eager_celery, django_capture_on_commit_callbacks):
    run = make_run(alice, status=Run.Status.FAILED, error="boom")
    with django_capture_on_commit_callbacks(execute=True):
        r = alice_client.post(reverse("run-retry", args=[run.pk]))
    new = Run.objects.exclude(pk=run.pk).get()
    assert r.url == new.get_absolute_url()
    assert (new.algorithm, new.params, new.dataset_id) == (run.algorithm, run.params, run.dataset_id)
    assert new.status == Run.Status.HEURISTIC


def test_the_result_json_downloads(alice_client, alice):
    run = make_finished_run(alice)
    r = alice_client.get(reverse("run-result-json", args=[run.pk]))
    assert r.status_code == 200 and r.json()["schema"] == "corelsweb.result"


def test_a_failed_run_shows_its_error(alice_client, alice):
    run = make_run(alice, status=Run.Status.FAILED, error="The label has only one class.", traceback="secret stack")
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert "The label has only one class." in page and "secret stack" not in page


def test_it_checks_ownership(charlie_client, alice):
    run = make_finished_run(alice)
    for name, method in [
        ("run-detail", "get"),
        ("run-progress", "get"),
        ("run-result-json", "get"),
        ("run-cancel", "post"),
        ("run-retry", "post"),
        ("run-delete", "post"),
        ("share-create", "post"),
    ]:
        r = getattr(charlie_client, method)(reverse(name, args=[run.pk]))
        assert r.status_code == 404, name
    assert Run.objects.count() == 1 and not run.share_links.exists()


def test_anonymous_users_are_sent_to_sign_in(client, alice):
    run = make_finished_run(alice)
    r = client.get(run.get_absolute_url())
    assert r.status_code == 302 and "/accounts/login/" in r.url


def test_the_parameters_table_lists_only_the_parameters_that_applied():
    from corelsweb.runs.snapshot import _param_rows
    from solver import registry

    config = registry.get("gosdt").clean({"objective": "accuracy"})
    titles = [title for title, _ in _param_rows("gosdt", config)]
    assert "ω" not in titles and "θ (largest FPR)" not in titles
    assert "Regularization λ" in titles
    config = registry.get("gosdt").clean({"objective": "pauc"})
    titles = [title for title, _ in _param_rows("gosdt", config)]
    assert "θ (largest FPR)" in titles and "ω" not in titles


def test_a_run_without_bounds_yet_says_so_instead_of_drawing_empty_axes(alice_client, alice):
    # Found by a QA pass: a queued run's page drew an empty bound chart with placeholder axes.
    run = make_run(alice)
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="live-waiting">' in page and 'class="figure waiting" data-figure="fig-live"' in page
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, trace={"elapsed": [0.0, 0.5], "lower_bound": [0.0, 0.1], "upper_bound": [0.4, 0.3]}
    )
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="live-waiting" hidden>' in page and 'class="figure" data-figure="fig-live"' in page
