# Check the run form generated from the registry: it validates, stores, enqueues and runs (eager Celery).
from django.urls import reverse

from corelsweb.runs.models import Run
from tests.factories import make_dataset


def url(dataset, algorithm="cart"):
    return reverse("run-new", args=[dataset.pk, algorithm])


def form_data(**overrides):
    data = {
        "time_limit": 30,
        "memory_limit_mb": 1024,
        "p_max_depth": 2,
        "p_min_samples_leaf": 1,
        "p_criterion": "gini",
        "p_regularization": 0.0,
    }
    data.update(overrides)
    return data


def test_the_form_has_a_field_per_registry_parameter(alice_client, alice):
    page = alice_client.get(url(make_dataset(alice))).content.decode()
    for name in ("p_max_depth", "p_min_samples_leaf", "p_criterion", "p_regularization", "time_limit"):
        assert f'name="{name}"' in page


def test_it_starts_a_run_that_finishes_with_a_result(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice)
    with django_capture_on_commit_callbacks(execute=True):
        r = alice_client.post(url(dataset), form_data())
    run = Run.objects.get()
    assert r.url == run.get_absolute_url()
    assert run.status == Run.Status.HEURISTIC
    assert run.params == {"max_depth": 2, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0}
    assert run.limits == {"time_limit": 30.0, "node_limit": None, "memory_limit": 1024 * 2**20}
    assert run.result["model"]["type"] == "tree" and run.result["metrics"]["accuracy"] > 0.5
    assert run.worker and run.started and run.finished


def test_out_of_range_parameters_are_form_errors(alice_client, alice):
    r = alice_client.post(url(make_dataset(alice)), form_data(p_max_depth=0))
    assert r.status_code == 400
    assert not Run.objects.exists()


def test_a_missing_role_is_a_form_error_not_a_worker_crash(alice_client, alice):
    dataset = make_dataset(alice, b"x,y\n1,a\n2,a\n")
    assert dataset.roles == {}
    r = alice_client.post(url(dataset), form_data())
    assert r.status_code == 400 and "needs a label column" in r.content.decode()
    assert not Run.objects.exists()


def test_an_unknown_algorithm_is_404(alice_client, alice):
    assert alice_client.get(url(make_dataset(alice), "nope")).status_code == 404


def test_it_checks_ownership(charlie_client, alice):
    dataset = make_dataset(alice)
    assert charlie_client.get(url(dataset)).status_code == 404
    assert charlie_client.post(url(dataset), form_data()).status_code == 404
    assert not Run.objects.exists()


def test_the_form_estimates_difficulty_and_hard_runs_go_to_the_long_queue(alice_client, alice):
    from corelsweb.datasets.services import add_sample

    dataset = add_sample(alice, "breast-cancer")
    page = alice_client.get(url(dataset, "corels")).content.decode()
    # CORELS's own binarization counted (quantile:8: 30 columns x 8 cuts and their negations), not the page's
    # exact thresholds (thousands: "very hard").
    assert 'id="estimate"' in page and "Rough difficulty: <strong>hard</strong>" in page and "quantile" in page
    assert "About 480 candidate antecedents" in page
    small = add_sample(alice, "monk1")
    page = alice_client.get(url(small, "corels")).content.decode()
    # Single clauses by default (issue 21, item 11): 11 features and their negations.
    assert "Rough difficulty: <strong>easy</strong>" in page and "About 22 candidate antecedents" in page
    r = alice_client.post(
        url(dataset, "corels"),
        {
            "time_limit": 30,
            "memory_limit_mb": 1024,
            "p_regularization": 0.001,
            "p_antecedents": "mined",
            "p_min_support": 0.01,
            "p_max_clauses": 2,
            "p_policy": "lower_bound",
        },
    )
    assert r.status_code == 302
    assert Run.objects.get().queue == "long"


# Check a memory limit above what the host allows is a form error, not a stored promise nobody keeps.
def test_a_memory_limit_above_the_hosts_cap_is_a_form_error(alice_client, alice, settings):
    settings.CORELSWEB_MAX_MEMORY_LIMIT_MB = 8000
    r = alice_client.post(url(make_dataset(alice)), form_data(memory_limit_mb=10_000_000))
    assert r.status_code == 400
    assert "at most 8,000 MB" in r.content.decode()
    assert not Run.objects.exists()
