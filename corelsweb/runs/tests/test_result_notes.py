# Check issue 29 items 3 and 4 on the run page: a threshold budget is said with its numbers, a λ chosen from the
# data is said with its value and rule, and a constant model that is not the optimum says the search stopped.
import numpy as np

from corelsweb.datasets.services import load_problem
from corelsweb.runs.lifecycle import finish_with_result
from corelsweb.runs.models import Run
from solver import solve
from solver.api import Limits
from solver.streed import budget
from tests.factories import make_dataset, make_run


def numeric_csv(rows=1500, seed=0):
    rng = np.random.default_rng(seed)
    lines = ["a,b,g,label"]
    for _ in range(rows):
        a, b = rng.normal(size=2)
        lines.append(f"{a:.5f},{b:.5f},{'x' if rng.random() < 0.4 else 'y'},{int(a + 0.5 * rng.normal() > 0)}")
    return ("\n".join(lines) + "\n").encode()


def finished(alice, dataset, algorithm, params, limits=None):
    run = make_run(alice, dataset, status=Run.Status.RUNNING, algorithm=algorithm, params=params)
    finish_with_result(run.pk, solve(load_problem(run.dataset), algorithm, run.params, limits))
    run.refresh_from_db()
    return run


def test_a_threshold_budget_is_said_on_the_run_page(alice_client, alice, monkeypatch):
    monkeypatch.setattr(budget, "WORK_BUDGET", 2e7)  # a budget a test can afford, on 3,000 thresholds
    dataset = make_dataset(alice, numeric_csv(), roles={"label": "label", "group": "g"})
    run = finished(alice, dataset, "streed", {"objective": "demographic_parity", "delta": 0.05})
    kept = run.result["extras"]["threshold_budget"]
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="threshold-budget"' in page and "Thresholds reduced" in page
    assert f"{kept['thresholds']:,} thresholds of the raw data are too many" in page
    assert f"{kept['kept']:,} were kept (at most {kept['per_column']} per numeric column" in page


def test_a_lambda_chosen_from_the_data_is_said_with_its_value(alice_client, alice):
    rows = ["x,time,event"] + [f"{i % 2},{10 + i + 30 * (i % 2)},{int(i % 3 > 0)}" for i in range(60)]
    dataset = make_dataset(alice, ("\n".join(rows) + "\n").encode())
    run = finished(alice, dataset, "osst", {"max_depth": 1, "min_samples_leaf": 5})
    lam = run.result["params"]["regularization"]
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert run.params["regularization"] is None and lam > 0
    assert f"<th>Regularization λ</th><td>{lam:.4g} (from the data)" in page
    assert 'id="from-data-regularization"' in page and "ℓ₀ / N (N = 60 rows)" in page
    from corelsweb.runs.views import comparison_rows

    (row,) = [r for r in comparison_rows([run]) if r["title"] == "λ"]
    assert row["values"] == [f"{lam:g}"]


def test_a_constant_model_of_a_stopped_search_says_why(alice_client, alice):
    dataset = make_dataset(alice, numeric_csv(rows=600, seed=3))
    # GOSDT's F1 search holds the root leaf until its set-up, run beside the driver, is done: a limit that
    # ends before then stops it with that leaf. (CORELS's first step already adds a rule.)
    run = finished(alice, dataset, "gosdt", {"objective": "f1", "regularization": 0.001}, Limits(time_limit=1e-6))
    assert run.result["status"] == "time_limit"
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert "This model predicts &#x27;1&#x27; for every row: the majority class (53.5% of the training rows)" in page
    assert "The search stopped before it found a model" in page and "status: time limit" in page


# Check a CORELS run whose queue outgrew its queue memory says on its page how many prefixes it set aside, from
# which bound, and what to raise (a binary table whose search queues more than 16 MB of prefixes at λ = 0.001).
def test_prefixes_set_aside_for_memory_are_said_on_the_run_page(alice_client, alice):
    rng = np.random.default_rng(5)
    A = rng.random((3000, 40)) < 0.35
    y = (A[:, 0] & A[:, 1]) | (A[:, 2] & ~A[:, 3]) ^ (rng.random(3000) < 0.2)
    rows = [",".join(f"c{j}" for j in range(40)) + ",label"]
    rows += [",".join(str(int(v)) for v in a) + f",{int(t)}" for a, t in zip(A, y)]
    dataset = make_dataset(alice, ("\n".join(rows) + "\n").encode())
    params = {"regularization": 0.001, "antecedents": "given", "queue_memory": 16}
    run = finished(alice, dataset, "corels", params, Limits(time_limit=30))
    aside = run.result["extras"]["set_aside"]
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="set-aside"' in page and "filled their 16 MB of queue memory" in page
    assert f"set aside {aside['prefixes']:,} of them" in page and f"{aside['floor']:.6f} and above" in page
