# Check our optima against the osst 0.1.8 package on the shared survival datasets (one process per osst fit).
import numpy as np
import pytest

from bench.harness import run_isolated
from solver import survival as sv
from solver.api import solve
from tests.solver.osst.conftest import dataset_path, load_problem

CASES = [
    ("veterans", 3, 0.001, 1),
    ("veterans", 4, 0.0025, 1),
    ("veterans", 4, 0.0005, 7),
    ("gbsg2", 3, 0.0005, 7),
    ("whas500", 3, 0.001, 7),
    ("whas500", 2, 0.0002, 1),
]


@pytest.mark.reference
@pytest.mark.parametrize("name, depth, lam, m", CASES)
def test_same_optimum_as_the_osst_package(name, depth, lam, m):
    theirs = run_isolated(
        "bench.osst:reference_fit",
        timeout=300,
        path=str(dataset_path(name)),
        max_depth=depth,
        regularization=lam,
        min_samples_leaf=m,
    )
    assert theirs.get("error") is None, theirs.get("error")
    assert not theirs["timeout"] and theirs["lower_bound"] == theirs["objective"]
    problem = load_problem(name)
    ours = solve(problem, "osst", {"max_depth": depth, "regularization": lam, "min_samples_leaf": m})
    assert ours.status == "optimal"
    # osst computes in float32: its tree, rescored exactly with our loss, must tie our optimum to 1e-9.
    data = sv.prepare_loss(problem.event, problem.time)
    sorted_of_row = np.empty(problem.n_samples, dtype=np.int64)
    sorted_of_row[data.order] = np.arange(problem.n_samples)
    leaf_of_row = np.array(theirs["leaf_of_row"])
    rescored = sum(sv.leaf_loss(data, sorted_of_row[leaf_of_row == leaf]) + lam for leaf in np.unique(leaf_of_row))
    assert abs(rescored - ours.objective) < 1e-9
    assert theirs["objective"] == pytest.approx(ours.objective, rel=1e-6)
    assert theirs["leaves"] == ours.model.n_leaves
