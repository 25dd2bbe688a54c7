"""pystreed 1.4.0 on the shared datasets reaches the same optimum (spec §7.4 item 7), to 1e-9.

pystreed returns one tree; its training value is recomputed here from its
predictions and must equal our optimum (accuracy, best F1, fewest errors
under the fairness constraint, policy value). Cost-sensitive classification
is compared on random data with misclassification and grouped test costs
given to pystreed's ``CostSpecifier``: its tree, valued by our task, costs
our optimum.
"""

import numpy as np
import pandas as pd
import pytest

from conftest import shared_dataset
from solver.streed.tasks import f1 as f1_task
from tests.solver.streed.conftest import make_problem, run

pystreed = pytest.importorskip("pystreed")

pytestmark = pytest.mark.reference

DATASETS = ("monk1", "monk2", "monk3", "car-evaluation", "tic-tac-toe", "compas-osdt-binary")
ALL = DATASETS + ("hypothyroid",)  # every shared binary classification file
LIMITS = ((2, None), (3, None), (3, 2), (3, 4))
DEEP = ((4, None), (4, 9))  # depth 4, and a node budget below its 15
TOL = dict(rel=1e-9, abs=1e-9)


def load(name):
    frame = pd.read_csv(shared_dataset(f"{name}.csv"))
    return frame.iloc[:, :-1].to_numpy(dtype=np.int64), frame.iloc[:, -1].to_numpy(dtype=np.int64)


def reference_options(depth, nodes, complexity=True):
    out = dict(max_depth=depth, max_num_nodes=nodes, time_limit=600, random_seed=1)
    return {**out, "cost_complexity": 0.0} if complexity else out


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("depth, nodes", LIMITS + DEEP)
def test_accuracy_matches_pystreed(name, depth, nodes):
    X, y = load(name)
    reference = pystreed.STreeDClassifier(optimization_task="accuracy", **reference_options(depth, nodes)).fit(X, y)
    ours = run(make_problem(X, y), {"task": "accuracy", "max_depth": depth, "max_nodes": nodes})
    assert ours.front.values[0, 0] == int((reference.predict(X) != y).sum())


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("depth, nodes", LIMITS[:3] + DEEP)
def test_f1_matches_pystreed(name, depth, nodes):
    X, y = load(name)
    reference = pystreed.STreeDClassifier(optimization_task="f1-score", **reference_options(depth, nodes)).fit(X, y)
    predicted = reference.predict(X)
    fn, fp = int(((predicted == 0) & (y == 1)).sum()), int(((predicted == 1) & (y == 0)).sum())
    ours = run(make_problem(X, y), {"task": "f1", "max_depth": depth, "max_nodes": nodes})
    assert ours.task.describe(ours.chosen()[0])["F1"] == pytest.approx(f1_task.f1_score(fn, fp, y.sum()), **TOL)


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("depth", (2, 3, 4))
@pytest.mark.parametrize("task, reference_task", [("demographic_parity", "group-fairness"),
                                                  ("equality_of_opportunity", "equality-of-opportunity")])
def test_fairness_matches_pystreed(name, depth, task, reference_task):
    # The first column is the protected group; pystreed never branches on it, and here it is not a feature.
    if depth == 4 and name == "tic-tac-toe":
        pytest.skip("pystreed does not finish in minutes (demographic parity: stopped at 120 s with 152 errors where "
                    "ours proves 139, bench/README.md)")
    if depth == 4 and name == "car-evaluation" and task == "equality_of_opportunity":
        pytest.skip("pystreed 1.4.0 crashes on this one (segmentation fault in its fit)")
    X, y = load(name)
    delta = 0.05
    reference = pystreed.STreeDGroupFairnessClassifier(
        optimization_task=reference_task, discrimination_limit=delta, sensitive_feature=0,
        **reference_options(depth, None, complexity=False)).fit(X, y)
    errors = int((reference.predict(X) != y).sum())
    ours = run(make_problem(X[:, 1:], y, group=X[:, 0]), {"task": task, "max_depth": depth, "delta": delta})
    assert ours.chosen()[0][0] == errors


@pytest.mark.parametrize("name", DATASETS[:4])
@pytest.mark.parametrize("depth, nodes", LIMITS[:3])
@pytest.mark.parametrize("teacher, reference_teacher", [("direct", "DM"), ("ipw", "IPW"), ("doubly_robust", "DR")])
def test_policy_matches_pystreed(name, depth, nodes, teacher, reference_teacher):
    # Treatment = the label, a seeded outcome and teacher; both solvers get the same per-row numbers.
    X, k = load(name)
    rng = np.random.default_rng(7)
    n = len(k)
    outcome = rng.normal(size=n) + X[:, 0] * (2 * k - 1)
    predicted = np.stack([rng.normal(size=n), rng.normal(size=n)], axis=1)
    propensity = rng.uniform(0.2, 0.9, size=n)
    table = np.column_stack([k, outcome, propensity, predicted])
    reference = pystreed.STreeDPrescriptivePolicyGenerator(
        teacher_method=reference_teacher, **reference_options(depth, nodes, complexity=False)).fit(X, table)
    problem = make_problem(X, treatment=k, outcome=outcome)
    ours = run(problem, {"task": "policy", "teacher": teacher, "max_depth": depth, "max_nodes": nodes},
               outcomes=predicted, propensity=propensity)
    from solver.streed.tasks.policy import scores
    q = scores(problem, teacher, predicted, propensity)
    theirs = q[np.arange(n), reference.predict(X)].sum()
    assert ours.task.describe(ours.chosen()[0])["policy_value"] == pytest.approx(theirs, **TOL)


def _nested(node):
    # pystreed's tree as our nested tuples: (label,) or (feature, x_f = 0 subtree, x_f = 1 subtree).
    if node.is_leaf_node():
        return (int(node.label),)
    return (int(node.feature), _nested(node.left_child), _nested(node.right_child))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("depth", (2, 3))
def test_cost_sensitive_matches_pystreed(seed, depth):
    # Misclassification costs M[true, predicted] and test costs with shared groups (one binary feature per
    # attribute), handed to pystreed through its CostSpecifier: its tree, valued by Eq. 4 with our task,
    # costs as much as our optimum.
    from pystreed import CostSpecifier, FeatureCostSpecifier

    from solver.streed.tasks import TestCosts
    from tests.solver.streed.test_exhaustive import tree_value

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(30, 80)), int(rng.integers(3, 7))
    X = rng.integers(0, 2, (n, m))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(n) < 0.15)).astype(np.int64)  # needs both tests
    M = np.array([[0.0, float(rng.integers(1, 6))], [float(rng.integers(1, 6)), 0.0]])
    full = rng.integers(0, 11, m) / 10.0  # per row, against 1–5 per misclassified row
    discount = np.minimum(full, rng.integers(0, 5, m) / 20.0)
    group = rng.integers(0, 3, m)  # three named groups
    group[1] = group[0] if seed % 2 else (group[0] + 1) % 3  # the two useful tests share a group, or not
    specs = [FeatureCostSpecifier(float(full[f]), float(discount[f]), f"g{group[f]}", f, f) for f in range(m)]
    reference = pystreed.STreeDCostSensitiveClassifier(max_depth=depth, time_limit=600).fit(
        X, y, CostSpecifier(M.tolist(), specs))
    costs = TestCosts(full, discount, np.arange(m), group)
    ours = run(make_problem(X, y), {"task": "cost_sensitive", "max_depth": depth}, costs=costs, misclassification=M)
    theirs = tree_value(ours.task, X, _nested(reference.get_tree()))[0]
    assert ours.front.values[0, 0] == pytest.approx(theirs, **TOL)
