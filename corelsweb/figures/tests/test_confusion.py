# Check a run with test rows shows its test confusion matrix beside the training one (found by a QA pass:
# a GOSDT run with a 20% holdout showed the training matrix only).
from conftest import shared_dataset
from corelsweb.figures import panels_for_result
from solver import pipeline
from solver.api import Limits
from solver.data import Roles, read_file


def test_a_holdout_run_shows_both_confusion_matrices():
    table = read_file(shared_dataset("monk1.csv"))
    roles = Roles(label=table.names[-1])
    held = pipeline.fit(table, roles, "cart", {"max_depth": 2}, Limits(60), evaluation=pipeline.Holdout(0.25, 3))
    panels = {p["id"]: p for p in panels_for_result(held.to_dict())}
    assert panels["confusion"]["title"] == "Confusion matrix (training)"
    assert panels["confusion-test"]["title"] == "Confusion matrix (test)"
    test_total = sum(map(sum, held.holdout["metrics"]["confusion_matrix"]))
    assert test_total == held.holdout["n_samples"]
    alone = pipeline.fit(table, roles, "cart", {"max_depth": 2}, Limits(60))
    assert "confusion-test" not in {p["id"] for p in panels_for_result(alone.to_dict())}
