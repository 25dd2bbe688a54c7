# Check the run page of STreeD results: the F1 front and its trees, and the policy panel.
from corelsweb.datasets.services import load_problem
from corelsweb.runs.models import Run
from corelsweb.runs.lifecycle import finish_with_result
from solver import solve
from tests.factories import make_dataset, make_run

CSV = b"a,b,c,label\n" + b"".join(
    f"{i % 2},{(i // 2) % 2},{(i // 4) % 3},{int((i % 2) ^ ((i // 2) % 2) or i % 7 == 0)}\n".encode() for i in range(60)
)


def make_streed_run(owner, params):
    dataset = make_dataset(owner, data=CSV, name="xor")
    run = make_run(owner, dataset, status=Run.Status.RUNNING, algorithm="streed", params=params)
    result = solve(load_problem(run.dataset), "streed", run.params)
    finish_with_result(run.pk, result)
    run.refresh_from_db()
    return run, result


def test_an_f1_run_shows_the_front_and_a_tree_per_point(alice_client, alice):
    run, result = make_streed_run(alice, {"objective": "f1", "max_depth": 2})
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert result.status == "optimal"
    assert "Pareto front at the root" in page and "fig-streed-front-trees" in page
    assert "fig-trace" in page


def test_charlie_cannot_see_a_streed_run(alice, charlie_client):
    run, _ = make_streed_run(alice, {"objective": "accuracy", "max_depth": 2})
    assert charlie_client.get(run.get_absolute_url()).status_code == 404


POLICY_CSV = b"a,b,treatment,outcome\n" + b"".join(
    f"{i % 2},{(i // 2) % 2},{0 if i % 3 else 1},{(i % 2) * (1 if i % 3 else 3) + (i % 5) / 10}\n".encode()
    for i in range(90)
)


def test_a_capacity_constrained_policy_run_shows_its_front_and_treats_at_most_the_capacity(alice_client, alice):
    dataset = make_dataset(alice, data=POLICY_CSV, name="trial", roles={"treatment": "treatment", "outcome": "outcome"})
    run = make_run(
        alice,
        dataset,
        status=Run.Status.RUNNING,
        algorithm="streed",
        params={"objective": "policy", "max_depth": 2, "teacher": "direct", "capacity": 0.2},
    )
    result = solve(load_problem(run.dataset), "streed", run.params)
    finish_with_result(run.pk, result)
    assert result.status == "optimal"
    assert result.extras["value"]["treated_share"] <= 0.2
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert "Share of rows treated" in page and "Treatment capacity" in page
    assert "fig-streed-policy" in page
    assert "Treated: sent to any treatment but 0." in page  # no reference given: the first in sorted order


def test_a_cost_sensitive_run_takes_its_misclassification_costs_from_the_form(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    dataset = make_dataset(alice, data=CSV, name="xor")
    url = reverse("run-new", args=[dataset.pk, "streed"])
    assert 'name="p_misclassification_costs"' in alice_client.get(url).content.decode()
    form = {
        "time_limit": 30,
        "memory_limit_mb": 1024,
        "p_objective": "cost_sensitive",
        "p_max_depth": 2,
        "p_min_samples_leaf": 1,
        "p_delta": 0.01,
        "p_teacher": "doubly_robust",
    }
    bad = alice_client.post(url, {**form, "p_misclassification_costs": "0 1; 5"})
    assert bad.status_code == 400 and "must be a square table" in bad.content.decode()
    assert not Run.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(url, {**form, "p_misclassification_costs": "0 1; 5 0"})
    run = Run.objects.get()
    assert run.status == Run.Status.OPTIMAL and run.params["misclassification_costs"] == "0 1; 5 0"
    # The reported cost is a false 1 at 1 and a missed 1 at 5, by the training confusion matrix.
    C = run.result["metrics"]["confusion_matrix"]
    assert run.result["extras"]["value"]["cost"] == C[0][1] * 1 + C[1][0] * 5
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert "0 1; 5 0" in page


NUMERIC_CSV = b"x,label\n" + b"".join(f"{i / 7:.4f},{int((i % 50) > 20)}\n".encode() for i in range(400))


def test_the_parameters_table_says_which_threshold_search_auto_ran(alice_client, alice):
    # Found by trying the app: an F1 run on every threshold of a numeric file said "Threshold search: auto",
    # not that it searched one 0/1 feature per threshold (F1 has no ordered search).
    dataset = make_dataset(alice, data=NUMERIC_CSV, name="numeric")
    for objective, ran in (("f1", "auto: ran binary"), ("accuracy", "auto: ran ordered")):
        run = make_run(alice, dataset, status=Run.Status.RUNNING, algorithm="streed", params={"objective": objective})
        finish_with_result(run.pk, solve(load_problem(run.dataset), "streed", {"objective": objective, "max_depth": 2}))
        page = alice_client.get(run.get_absolute_url()).content.decode()
        assert f"<th>Threshold search</th><td>{ran}" in page, objective


# Check a run stopped before any lower bound above 0 was proved says so in words, not as "0.000000 (gap 100 %)".
def test_a_run_without_a_proved_bound_says_so(alice_client, alice):
    from solver.api import Limits

    import numpy as np

    rng = np.random.default_rng(0)
    rows = [b"a,b,c,d,label"] + [
        b"%.4f,%.4f,%.4f,%.4f,%d" % (*rng.normal(size=4), rng.integers(0, 2)) for _ in range(600)
    ]
    dataset = make_dataset(alice, data=b"\n".join(rows) + b"\n", name="noise")
    run = make_run(alice, dataset, status=Run.Status.RUNNING, algorithm="streed", params={"max_depth": 4})
    result = solve(load_problem(run.dataset), "streed", run.params, Limits(time_limit=1e-6))
    assert result.status == "time_limit" and result.lower_bound == 0
    finish_with_result(run.pk, result)
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert "0 — none proved yet" in page
    assert "No lower bound above 0 is proved yet" in page
