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
    ours = run(make_problem(X, y), {"objective": "accuracy", "max_depth": depth, "max_nodes": nodes})
    assert ours.front.values[0, 0] == int((reference.predict(X) != y).sum())


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("depth, nodes", LIMITS[:3] + DEEP)
def test_f1_matches_pystreed(name, depth, nodes):
    X, y = load(name)
    reference = pystreed.STreeDClassifier(optimization_task="f1-score", **reference_options(depth, nodes)).fit(X, y)
    predicted = reference.predict(X)
    fn, fp = int(((predicted == 0) & (y == 1)).sum()), int(((predicted == 1) & (y == 0)).sum())
    ours = run(make_problem(X, y), {"objective": "f1", "max_depth": depth, "max_nodes": nodes})
    assert ours.task.describe(ours.chosen()[0])["F1"] == pytest.approx(f1_task.f1_score(fn, fp, y.sum()), **TOL)


# Depth-4 fairness cases pystreed 1.4.0 cannot prove: it stops at its time limit (seconds given), or its fit
# crashes. Tic-tac-toe demographic parity gets the benchmark's 120 s: with 20 s its fit crashed too.
UNPROVED = {
    ("tic-tac-toe", "demographic_parity"): ("limit", 120),
    ("tic-tac-toe", "equality_of_opportunity"): ("limit", 20),
    ("car-evaluation", "equality_of_opportunity"): ("crash", 20),
}
DELTA = 0.05


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("depth", (2, 3, 4))
@pytest.mark.parametrize(
    "task, reference_task",
    [("demographic_parity", "group-fairness"), ("equality_of_opportunity", "equality-of-opportunity")],
)
def test_fairness_matches_pystreed(name, depth, task, reference_task):
    # The first column is the protected group; pystreed never branches on it, and here it is not a feature.
    if depth == 4 and (name, task) in UNPROVED:
        check_fairness_pystreed_cannot_prove(name, task, reference_task, *UNPROVED[name, task])
        return
    X, y = load(name)
    reference = pystreed.STreeDGroupFairnessClassifier(
        optimization_task=reference_task,
        discrimination_limit=DELTA,
        sensitive_feature=0,
        **reference_options(depth, None, complexity=False),
    ).fit(X, y)
    errors = int((reference.predict(X) != y).sum())
    ours = run(make_problem(X[:, 1:], y, group=X[:, 0]), {"objective": task, "max_depth": depth, "delta": DELTA})
    assert ours.chosen()[0][0] == errors


def check_fairness_pystreed_cannot_prove(name, task, reference_task, how, seconds):
    """Depth 4 where pystreed proves nothing: check ours by itself, and against what pystreed does give.

    Our tree's errors and discrimination are recomputed from its predictions; its errors are at most
    the depth-3 optimum (which pystreed confirms above). pystreed runs in its own process with a time
    limit: where it stops at the limit, its (feasible) tree has at least our errors; where it crashes,
    the crash is asserted, so that a fixed pystreed turns this back into an exact comparison.
    """
    from bench.harness import run_isolated

    X, y = load(name)
    problem = make_problem(X[:, 1:], y, group=X[:, 0])
    value, tree = run(problem, {"objective": task, "max_depth": 4, "delta": DELTA}).chosen()
    predicted = _predict(tree, X[:, 1:])
    assert int((predicted != y).sum()) == value[0]
    assert _discrimination(predicted, X[:, 0], y, task) <= DELTA
    assert value[0] <= run(problem, {"objective": task, "max_depth": 3, "delta": DELTA}).chosen()[0][0]
    reference = run_isolated(
        "tests.solver.streed.test_reference:reference_fairness",
        timeout=seconds + 100,
        name=name,
        reference_task=reference_task,
        time_limit=seconds,
    )
    if how == "crash":
        assert reference.get("error", "").startswith("process died"), reference
        return
    if (reference.get("error") or "").startswith("process died"):
        # pystreed 1.4.0 sometimes crashes on these cases instead of stopping at its limit (seen here on
        # tic-tac-toe, demographic parity, in one run of three): there is no tree of its own to compare with;
        # ours was checked above (its errors, its discrimination, no worse than depth 3).
        return
    assert reference.get("error") is None and not reference["optimal"], reference
    theirs = np.array(reference["predicted"])
    assert _discrimination(theirs, X[:, 0], y, task) <= DELTA
    assert value[0] <= int((theirs != y).sum())


def reference_fairness(name, reference_task, time_limit):
    """pystreed's depth-4 fairness fit (run in a process of its own: it may crash): its predictions, proved or not."""
    X, y = load(name)
    options = {**reference_options(4, None, complexity=False), "time_limit": time_limit}
    model = pystreed.STreeDGroupFairnessClassifier(
        optimization_task=reference_task, discrimination_limit=DELTA, sensitive_feature=0, **options
    ).fit(X, y)
    return {"predicted": model.predict(X).tolist(), "optimal": bool(model.fit_result.is_optimal())}


def _predict(tree, X):
    # The class of each row under a nested-tuple tree: (label,) or (feature, x = 0 subtree, x = 1 subtree).
    out = np.empty(len(X), dtype=np.int64)
    for i, x in enumerate(X):
        node = tree
        while len(node) == 3:
            node = node[2] if x[node[0]] else node[1]
        out[i] = node[0]
    return out


def _discrimination(predicted, group, y, task):
    # |P(ŷ = 1 | group 1) − P(ŷ = 1 | group 0)|, among the positive rows for equality of opportunity.
    rows = (y == 1) if task == "equality_of_opportunity" else np.ones(len(y), dtype=bool)
    return abs(predicted[rows & (group == 1)].mean() - predicted[rows & (group == 0)].mean())


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
        teacher_method=reference_teacher, **reference_options(depth, nodes, complexity=False)
    ).fit(X, table)
    problem = make_problem(X, treatment=k, outcome=outcome)
    ours = run(
        problem,
        {"objective": "policy", "teacher": teacher, "max_depth": depth, "max_nodes": nodes},
        outcomes=predicted,
        propensity=propensity,
    )
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
        X, y, CostSpecifier(M.tolist(), specs)
    )
    costs = TestCosts(full, discount, np.arange(m), group)
    ours = run(
        make_problem(X, y), {"objective": "cost_sensitive", "max_depth": depth}, costs=costs, misclassification=M
    )
    theirs = tree_value(ours.task, X, _nested(reference.get_tree()))[0]
    assert ours.front.values[0, 0] == pytest.approx(theirs, **TOL)
