# Check GOSDT on the web side: the run page draws its tree and bound trace; a λ path runs, with its CART frontier.
from corelsweb.figures import panels_for_result
from corelsweb.runs import paths
from corelsweb.runs.models import RegularizationPath, Run
from corelsweb.runs.lifecycle import finish_with_result
from solver import solve
from tests.factories import make_dataset, make_run

CSV = b"age,priors,label\n" + b"".join(
    f"{20 + (i * 7) % 40},{i % 6},{int((i % 6) > 3 or (i * 7) % 40 < 5)}\n".encode() for i in range(60)
)


def make_gosdt_run(owner, **params):
    from corelsweb.datasets.services import load_problem

    dataset = make_dataset(owner, data=CSV, name="people")
    run = make_run(
        owner,
        dataset,
        status=Run.Status.RUNNING,
        algorithm="gosdt",
        params={"regularization": 0.02, "max_depth": 3, **params},
    )
    result = solve(load_problem(run.dataset), "gosdt", run.params)
    finish_with_result(run.pk, result)
    run.refresh_from_db()
    return run, result


def test_the_run_page_draws_the_optimal_tree_and_its_bounds(alice_client, alice):
    run, result = make_gosdt_run(alice, objective="balanced_accuracy")
    assert run.status == Run.Status.OPTIMAL
    page = alice_client.get(run.get_absolute_url()).content.decode()
    assert 'id="fig-model"' in page and 'data-metric="accuracy"' in page
    ids = [p["id"] for p in panels_for_result(result.to_dict())]
    assert "trace" in ids
    assert "graph_size" in result.trace and "queue_size" in result.trace


def test_a_gosdt_path_runs_every_cell_and_refits(alice, eager_celery, django_capture_on_commit_callbacks):
    dataset = make_dataset(alice, CSV)
    with django_capture_on_commit_callbacks(execute=True):
        path = paths.create_path(alice, dataset, "gosdt", {"max_depth": 3}, {"time_limit": 30}, [0.005, 0.02, 0.1], 3)
    path.refresh_from_db()
    cells = paths.cells(path)
    assert len(cells) == 9 and all(run.status == Run.Status.OPTIMAL for run in cells.values())
    assert path.status == RegularizationPath.Status.COMPLETE and path.metric == "accuracy"
    rows = sorted(path.summary, key=lambda row: row["lambda"])
    assert rows[0]["leaves_mean"] >= rows[-1]["leaves_mean"]  # fewer leaves as λ grows
    assert path.refit_run.status == Run.Status.OPTIMAL


def test_a_finished_gosdt_path_stores_the_cart_baseline_and_draws_the_frontier(
    alice_client, alice, eager_celery, django_capture_on_commit_callbacks
):
    dataset = make_dataset(alice, CSV)
    with django_capture_on_commit_callbacks(execute=True):
        path = paths.create_path(alice, dataset, "gosdt", {"max_depth": 3}, {"time_limit": 30}, [0.005, 0.02, 0.1], 3)
    path.refresh_from_db()
    assert path.status == RegularizationPath.Status.COMPLETE
    for row in path.summary:
        cart, lam = row["cart"], row["lambda"]
        assert cart["leaves_mean"] >= 1 and 0 <= cart["valid_mean"] <= 1
        # On every fold CART's pruned tree is one GOSDT searched over, so GOSDT's proved optimum is no worse
        gosdt_objective = 1 - row["train_mean"] + lam * row["leaves_mean"]
        assert gosdt_objective <= 1 - cart["train_mean"] + lam * cart["leaves_mean"] + 1e-9
    page = alice_client.get(path.get_absolute_url()).content.decode()
    assert 'id="fig-frontier"' in page and "Frontier: accuracy against number of leaves" in page
    assert "CART validation" in page
