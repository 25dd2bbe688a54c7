# Check that run and compare pages tell the whole truth (issue 21, items 1-7): test beside training, ℓ₀ of the
# run's own objective, fairness with the group named, only usable test files, one meaning per row, the features
# searched, and a word on overfitting.
import numpy as np
import pytest
from django.urls import reverse

from corelsweb.figures.streed import front_figure
from corelsweb.runs.views import comparison_rows
from tests.factories import run_form_data
from tests.pages.helpers import solved_run, upload

SURVIVAL = {"time": "time", "event": "event"}


@pytest.fixture
def veterans(alice):
    return upload(alice, "veterans-surv.csv", SURVIVAL)


def test_survival_runs_show_test_metrics_beside_training_on_the_run_and_compare_pages(alice_client, alice, veterans):
    runs = [
        solved_run(
            alice, veterans, "osst", {"max_depth": 2, "regularization": lam}, evaluation={"holdout": 0.3, "seed": 0}
        )
        for lam in (0.01, 0.02)
    ]
    page = alice_client.get(runs[0].get_absolute_url()).content.decode()
    table = page[page.index('id="metrics-table"') : page.index("</table>", page.index('id="metrics-table"'))]
    test = runs[0].result["holdout"]["metrics"]
    for key, title in (
        ("ibs", "Integrated Brier score"),
        ("ibs_ratio", "IBS ratio"),
        ("harrell_c", "Harrell"),
        ("uno_c", "Uno"),
    ):
        assert title in table and f"{test[key]:.4f}" in table, key
    assert "Survival metrics (training and test)" in page
    compare = alice_client.get(reverse("dataset-compare", args=[veterans.pk]), {"runs": [r.pk for r in runs]})
    text = compare.content.decode()
    assert "test Harrell&#x27;s C" in text or "test Harrell's C" in text
    assert "test integrated Brier score" in text and "test IBS ratio" in text


def test_at_most_l_leaves_uses_the_single_leaf_ibs_and_a_single_leaf_optimum_says_so(alice_client, alice, veterans):
    url = reverse("run-form-estimate", args=[veterans.pk, "osst"])
    data = run_form_data("osst", lambda_mode="max_leaves", lambda_target=8)
    data.update(lambda_mode="max_leaves", lambda_target=8)
    answer = alice_client.post(url, data).json()
    from solver.regularization import single_leaf_loss
    from corelsweb.datasets.services import load_problem

    problem = load_problem(veterans)
    loss0 = single_leaf_loss("ibs", params={}, survival=(problem.event, problem.time))
    assert 0.01 < loss0 < 0.5
    assert answer["regularization"] == pytest.approx(loss0 / 7)
    assert f"{loss0:.6g}" in answer["lambda_text"]
    run = solved_run(alice, veterans, "osst", {"max_depth": 2, "regularization": 0.5})
    assert run.result["model"]["feature"] == [-1]
    page = alice_client.get(run.get_absolute_url()).content.decode()
    gain = run.result["stats"]["best_split_gain"]
    assert 'id="single-leaf"' in page and "The optimum is a single leaf" in page
    assert gain > 0 and f"{gain:.6g}"[:5] in page


def test_gosdt_objectives_get_their_own_single_leaf_loss():
    from solver.regularization import single_leaf_loss

    assert single_leaf_loss("accuracy", [30, 10]) == 0.25
    assert single_leaf_loss("balanced_accuracy", [30, 10, 5]) == pytest.approx(2 / 3)
    assert single_leaf_loss("f1", [10, 30]) == pytest.approx(10 / 70)
    assert single_leaf_loss("f1", [30, 10]) == 1.0
    assert single_leaf_loss("weighted_accuracy", [30, 10], {"cost_weight": 2}) == pytest.approx(20 / 50)
    assert single_leaf_loss("auc", [30, 10]) == 0.5
    assert single_leaf_loss("pauc", [30, 10], {"pauc_theta": 0.2}) == pytest.approx(0.98)


def test_group_fairness_matches_a_count_by_hand():
    from solver.metrics import group_fairness

    y = np.array([1, 1, 0, 0, 1, 0, 0, 0])
    pred = np.array([1, 0, 0, 1, 1, 1, 1, 0])
    group = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    out = group_fairness(y, pred, group)
    assert out["groups"][1]["positive_rate"] == 0.5 and out["groups"][0]["positive_rate"] == 0.75
    assert out["demographic_parity"] == pytest.approx(0.25)
    assert out["equality_of_opportunity"] == pytest.approx(0.5)  # TPR 1/2 in group 1, 1/1 in group 0
    assert out["groups"][1]["confusion_matrix"] == [[1.0, 1.0], [1.0, 1.0]]


def test_fairness_is_reported_on_training_and_test_data_with_the_group_named(alice_client, alice):
    roles = {"label": "two_year_recid", "group": "sex=female"}
    dataset = upload(alice, "compas-gosdt.csv", roles)
    run = solved_run(alice, dataset, "cart", {"max_depth": 2}, evaluation={"holdout": 0.2, "seed": 0})
    assert run.result["metrics"]["fairness"]["demographic_parity"] is not None
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="fairness"' in page and "sex=female" in page and "group a = <strong>1</strong>" in page
    for data in ("training", "test"):
        value = (run.result["metrics"] if data == "training" else run.result["holdout"]["metrics"])["fairness"]
        assert f'data-data="{data}">{value["demographic_parity"]:.4f}' in page
    assert "Predicted 1" in page and "True positive rate" in page


def test_the_fairness_front_plots_only_non_dominated_points():
    front = [
        {"values": {"misclassifications": 567, "discrimination": 0.049}},
        {"values": {"misclassifications": 565, "discrimination": 0.043}, "chosen": True},
        {"values": {"misclassifications": 600, "discrimination": 0.01}},
    ]
    figure = front_figure({"task": "demographic_parity", "front": front, "delta": 0.05})
    assert sorted(figure["data"][0]["x"]) == [565, 600]


def test_only_test_files_with_the_needed_columns_are_offered_and_others_are_refused(alice_client, alice, veterans):
    dataset = upload(alice, "tic-tac-toe.csv")
    twin = upload(alice, "tic-tac-toe.csv", name="tic-tac-toe again")
    url = reverse("run-new", args=[dataset.pk, "cart"])
    page = alice_client.get(url).content.decode()
    assert f'value="test:{twin.pk}"' in page and f'value="test:{veterans.pk}"' not in page
    data = run_form_data("cart", max_depth=2)
    data["evaluation"] = f"test:{veterans.pk}"
    response = alice_client.post(url, data)
    assert response.status_code == 400
    assert "The test file lacks columns this run needs" in response.content.decode()


def test_compare_rows_never_mix_objectives_and_columns_name_the_objective(alice_client, alice):
    dataset = upload(alice, "tic-tac-toe.csv")
    runs = [
        solved_run(alice, dataset, "cart", {"max_depth": 2}),
        solved_run(alice, dataset, "corels", {"regularization": 0.01}),
    ]
    rows = {row["title"]: row["values"] for row in comparison_rows(runs)}
    assert "objective" not in rows
    cart_row = rows["objective: misclassification rate + λ × leaves (training)"]
    corels_row = rows["objective: misclassification rate + λ × rules (training)"]
    assert cart_row[1] == "—" and corels_row[0] == "—" and cart_row[0] != "—" and corels_row[1] != "—"
    page = alice_client.get(reverse("dataset-compare", args=[dataset.pk]), {"runs": [r.pk for r in runs]})
    assert "misclassification rate + λ × rules" in page.content.decode()


def test_the_run_lists_the_features_it_searched_and_why_they_differ_from_the_preview(alice_client, alice):
    dataset = upload(alice, "bank.csv")
    preview = alice_client.get(dataset.get_absolute_url())  # the preview the dataset page shows
    assert preview.status_code == 200
    run = solved_run(alice, dataset, "cart", {"max_depth": 2}, evaluation={"holdout": 0.2, "seed": 0})
    searched = run.result["problem"]["searched"]
    assert {c["column"] for c in searched} == {"x0", "x1", "x2", "x3"}
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="searched-features"' in page and 'id="searched-why"' in page
    assert "from all 1,097 rows" in page and "training rows" in page
    first = searched[0]["thresholds"][0]
    from solver.predicates import format_number

    assert format_number(first) in page


def test_a_model_much_worse_on_test_data_gets_an_overfitting_warning(alice_client, alice):
    rng = np.random.default_rng(1)
    rows = "\n".join(f"{a},{b},{c}" for a, b, c in zip(rng.random(300), rng.random(300), rng.integers(0, 2, 300)))
    dataset = upload(alice, "noise.csv", data=f"u,v,label\n{rows}\n".encode())
    run = solved_run(alice, dataset, "cart", {"max_depth": 8}, evaluation={"holdout": 0.3, "seed": 0})
    assert run.result["metrics"]["auc"] - run.result["holdout"]["metrics"]["auc"] >= 0.1
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="overfitting-warning"' in page and "overfitting" in page
    calm = solved_run(alice, upload(alice, "bank.csv"), "cart", {"max_depth": 2}, evaluation={"holdout": 0.3})
    assert 'id="overfitting-warning"' not in alice_client.get(calm.get_absolute_url()).content.decode()
