"""The spec's worked examples (§7.1 A–E) and cross-task equivalences (§7.4 item 7) hold exactly."""

import numpy as np
import pytest

from solver.streed import depth_two
from solver.streed.tasks import TestCosts
from tests.solver.streed.conftest import make_problem, root_front, run

# Example A: features a, b; |D+| = 4, |D−| = 3; ids 3, 4, 5 share a feature vector.
XA = np.array([[0, 0], [0, 0], [0, 1], [0, 1], [0, 1], [1, 0], [1, 1]])
YA = np.array([0, 0, 0, 1, 1, 1, 1])


@pytest.mark.parametrize(
    "depth, nodes, errors, front",
    [
        (1, None, 2, {(0, 3), (1, 1), (2, 0)}),
        (2, None, 1, {(0, 1), (2, 0)}),
        (2, 1, 2, {(0, 3), (1, 1), (2, 0)}),
        (2, 2, 1, {(0, 1), (2, 0)}),
    ],
)
def test_example_a_misclassification_and_f1_front(depth, nodes, errors, front):
    problem = make_problem(XA, YA)
    accuracy = run(problem, {"objective": "accuracy", "max_depth": depth, "max_nodes": nodes})
    assert accuracy.front.values[0, 0] == errors
    f1 = run(problem, {"objective": "f1", "max_depth": depth, "max_nodes": nodes})
    assert root_front(f1) == front
    assert min(sum(v) for v in root_front(f1)) == errors  # min(FN + FP) over the front = accuracy optimum


def test_example_a_best_f1():
    # Check d = 1 picks split b (F1 0.75) and d = 2 reaches 8/9.
    problem = make_problem(XA, YA)
    one = run(problem, {"objective": "f1", "max_depth": 1})
    assert one.task.describe(one.chosen()[0])["F1"] == pytest.approx(0.75)
    assert one.chosen()[1][0] == 1
    two = run(problem, {"objective": "f1", "max_depth": 2})
    assert two.task.describe(two.chosen()[0])["F1"] == pytest.approx(8 / 9)


XB = np.array([[0, 1], [1, 0], [1, 1], [1, 0], [0, 0], [0, 0], [1, 0], [1, 0]])
SB = np.array([1, 1, 1, 1, 0, 0, 0, 0])
YB = np.array([1, 1, 1, 0, 0, 0, 1, 0])


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize(
    "delta, errors, front",
    [
        (1.0, 2, None),
        (0.3, 3, {(3, 1.25, 0.75), (4, 1.0, 1.0), (5, 0.75, 1.25)}),
        (0.01, 4, {(4, 1.0, 1.0)}),
    ],
)
def test_example_b_demographic_parity(depth, delta, errors, front):
    # The complete front needs the root relaxation off (use_upper_bound); with it on (the default) the
    # root keeps only trees with the fewest errors it has seen: same optimum, points on the front.
    scale = 16.0  # N(a)·N(ā)
    for relaxed in (True, False):
        search = run(
            make_problem(XB, YB, group=SB),
            {"objective": "demographic_parity", "max_depth": depth, "delta": delta, "use_upper_bound": relaxed},
        )
        value = search.chosen()[0]
        assert value[0] == errors
        assert search.task.describe(value)["discrimination"] <= delta + 1e-12
        if front is not None:
            got = {(v[0], v[1] / scale, v[2] / scale) for v in root_front(search)}
            assert got <= front if relaxed else got == front


@pytest.mark.parametrize("depth, discount, optimum", [(0, True, 6.0), (1, True, 5.7), (2, True, 2.85), (2, False, 3.0)])
def test_example_c_cost_sensitive(depth, discount, optimum):
    M = np.array([[0.0, 2.0], [3.0, 0.0]])
    costs = TestCosts([0.1, 0.1], [0.05, 0.05] if discount else [0.1, 0.1], [0, 1], [0, 0])
    search = run(
        make_problem(XA, YA),
        {"objective": "cost_sensitive", "max_depth": max(depth, 1), "max_nodes": None if depth else 0},
        costs=costs,
        misclassification=M,
    )
    assert search.front.values[0, 0] == pytest.approx(optimum, abs=1e-12)
    if depth == 2:
        assert search.front.trees[0][0] == 1  # root b


XD = np.array([[0], [0], [1], [1]])
KD = np.array([0, 1, 1, 0])
YD = np.array([1.0, 0.2, 1.0, 0.0])
MUD = np.array([0.5, 0.5, 0.8, 0.2])
VD = np.array([[0.9, 0.4], [0.8, 0.3], [0.2, 0.9], [0.1, 0.7]])


@pytest.mark.parametrize(
    "teacher, leaf, split", [("direct", 2.3, 3.3), ("ipw", 2.0, 3.25), ("doubly_robust", 2.225, 3.625)]
)
def test_example_d_policy(teacher, leaf, split):
    problem = make_problem(XD, treatment=KD, outcome=YD)
    for depth, nodes, best in ((1, 0, leaf), (1, None, split)):
        search = run(
            problem,
            {"objective": "policy", "teacher": teacher, "max_depth": depth, "max_nodes": nodes},
            outcomes=VD,
            propensity=MUD,
        )
        assert search.task.describe(search.chosen()[0])["policy_value"] == pytest.approx(best, abs=1e-12)
    assert search.chosen()[1] == (0, (0,), (1,))  # a=0 → 0, a=1 → 1


def test_example_e_pair_counts():
    # Pair counts of Example A by "predict 0" (positives) and "predict 1" (negatives) contributions.
    A = np.stack([YA == 1, YA == 0], axis=1).astype(float)
    S, C, tot = depth_two.count_pairs(XA.astype(np.uint8), np.arange(7), A)
    assert tot.tolist() == [4, 3]
    assert S[0, 0].tolist() == [2, 0] and S[1, 1].tolist() == [3, 1] and S[0, 1].tolist() == [1, 0]
    assert C[0, 0] == 2 and C[1, 1] == 4 and C[0, 1] == 1


def test_cost_sensitive_with_unit_costs_is_accuracy():
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 2, (60, 6)), rng.integers(0, 2, 60)
    problem = make_problem(X, y)
    accuracy = run(problem, {"objective": "accuracy", "max_depth": 3})
    cost = run(problem, {"objective": "cost_sensitive", "max_depth": 3})
    f1 = run(problem, {"objective": "f1", "max_depth": 3})
    fair = run(
        make_problem(X, y, group=rng.integers(0, 2, 60)),
        {"objective": "demographic_parity", "max_depth": 3, "delta": 1.0},
    )
    assert accuracy.front.values[0, 0] == cost.front.values[0, 0] == min(f1.front.values.sum(axis=1))
    assert fair.chosen()[0][0] == accuracy.front.values[0, 0]


def test_policy_with_indicator_scores_is_accuracy():
    # DM scores 1(t = k_i) make the policy value |D| − misclassifications.
    rng = np.random.default_rng(4)
    X, y = rng.integers(0, 2, (50, 5)), rng.integers(0, 3, 50)
    accuracy = run(make_problem(X, y, n_classes=3), {"objective": "accuracy", "max_depth": 3})
    problem = make_problem(X, treatment=y, outcome=np.zeros(50))
    policy = run(problem, {"objective": "policy", "teacher": "direct", "max_depth": 3}, outcomes=np.eye(3)[y])
    assert policy.task.describe(policy.chosen()[0])["policy_value"] == pytest.approx(50 - accuracy.front.values[0, 0])
