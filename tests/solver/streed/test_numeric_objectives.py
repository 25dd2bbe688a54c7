# Check issue 29 item 4: STreeD's F1 on numeric columns runs as Dinkelbach iterations of the ordered search and
# finds the optimum of the 0/1 search; fairness on more thresholds than its search can take runs on a labelled,
# automatic threshold budget (quantile thresholds per column) instead of returning a constant tree silently.
import numpy as np
import pytest

from solver.api import solve
from solver.data import Roles
from solver.data.binarize import make_problem
from solver.data.table import Table
from solver.streed import budget
from solver.streed.dinkelbach import DinkelbachF1Search
from solver.streed.params import ALGORITHM
from solver.streed.search import BudgetedSTreeDSearch, make_search
from solver.testing import assert_bound_trace_valid


def numeric_problem(seed, n=60, columns=3, distinct=None, group=False):
    rng = np.random.default_rng(seed)
    data = {f"x{j}": rng.integers(0, distinct or n, n).astype(float) for j in range(columns)}
    score = data["x0"] - data["x1"] * 0.5 + rng.normal(0, n / 4, n)
    data["label"] = np.where(score > np.quantile(score, 0.75), "yes", "no").astype(object)
    roles = {"label": "label"}
    if group:
        data["g"] = np.where(rng.random(n) < 0.4, "a", "b").astype(object)
        roles["group"] = "g"
    return make_problem(Table(data), Roles(**roles))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "params", [{"max_depth": 2}, {"max_depth": 3}, {"max_depth": 3, "max_nodes": 2, "min_samples_leaf": 4}]
)
def test_dinkelbach_f1_finds_the_optimum_of_the_binary_search(seed, params):
    problem = numeric_problem(seed)
    ordered = solve(problem, "streed", {"objective": "f1", "threshold_search": "ordered", **params})
    binary = solve(problem, "streed", {"objective": "f1", "threshold_search": "binary", **params})
    assert ordered.status == binary.status == "optimal"
    assert ordered.objective == pytest.approx(binary.objective, abs=1e-12)
    assert ordered.lower_bound == pytest.approx(ordered.objective, abs=1e-12)
    assert ordered.extras["search"] == "ordered" and ordered.extras["dinkelbach"]
    # The reported value is the model's own: its F1 on the training rows.
    assert ordered.metrics["f1"] == pytest.approx(1 - ordered.objective, abs=1e-12)
    assert_bound_trace_valid(ordered.trace, status=ordered.status)


def test_f1_on_many_thresholds_picks_the_ordered_search_by_itself():
    problem = numeric_problem(7, n=3000, columns=4)
    config = ALGORITHM.clean({"objective": "f1", "max_depth": 2})
    assert isinstance(make_search(problem, config), DinkelbachF1Search)
    result = solve(problem, "streed", {"objective": "f1", "max_depth": 2})
    assert result.status == "optimal" and result.model.n_leaves > 1 and result.metrics["f1"] > 0.5


def test_the_budget_keeps_quantile_thresholds_of_every_numeric_column():
    problem = numeric_problem(3, n=400, columns=3)
    kept = budget.reduce_thresholds(problem, depth=3, kinds=4)
    assert kept is not None and kept.kept < kept.thresholds == problem.n_features
    reduced = kept.problem
    # Every kept feature is a feature of the full problem, with the same rows.
    index = {(f["column"], f.get("threshold")): j for j, f in enumerate(problem.features)}
    for j, f in enumerate(reduced.features):
        assert np.array_equal(reduced.X[:, j], problem.X[:, index[(f["column"], f.get("threshold"))]])
    per_column = [sum(f["column"] == c for f in reduced.features) for c in ("x0", "x1", "x2")]
    assert max(per_column) == kept.per_column and kept.kept <= budget.feature_budget(400, 3, 4)


def test_fairness_on_too_many_thresholds_runs_on_a_labelled_budget(monkeypatch):
    # A budget as small as a test can afford: 3,000 rows with about 2,000 thresholds per column.
    monkeypatch.setattr(budget, "WORK_BUDGET", 2e7)
    problem = numeric_problem(5, n=3000, columns=3, group=True)
    config = ALGORITHM.clean({"objective": "demographic_parity", "delta": 0.05})
    search = make_search(problem, config)
    assert isinstance(search, BudgetedSTreeDSearch)
    result = solve(problem, "streed", {"objective": "demographic_parity", "delta": 0.05})
    note = result.extras["threshold_budget"]
    assert note["thresholds"] == problem.n_features > note["kept"]
    assert f"{note['kept']:,} were kept" in note["note"] and "Thresholds reduced" in note["note"]
    assert result.status == "optimal" and result.model.n_leaves > 1
    assert result.extras["value"]["discrimination"] <= 0.05 + 1e-9
