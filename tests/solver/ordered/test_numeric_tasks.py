"""Every STreeD task and GOSDT's additive objectives on raw numeric columns equal brute force over every threshold.

The brute force enumerates trees over the exact binarization (a 0/1 feature at every midpoint), which splits
the raw values in every possible way; the ordered search reaches the same optimum from the ranks.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solver.api import ProblemError, solve
from solver.data.binarize import Roles, make_problem
from solver.data.table import Table
from solver.streed.params import ALGORITHM as STREED
from solver.streed.search import make_search
from tests.solver.gosdt.helpers import ADDITIVE, brute_force, objective_of
from tests.solver.ordered import oracle as ordered_oracle
from tests.solver.streed import oracle


@st.composite
def numeric(draw, classes=2, roles=("label",)):
    # A tiny raw table: numeric columns with few distinct values (ties), a label, optional weights and roles.
    n = draw(st.integers(4, 12))
    k = draw(st.integers(1, 3))
    columns = {
        f"x{j}": np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float) / 2 for j in range(k)
    }
    columns["x0"][:2] = [0.0, 2.5]  # not constant
    y = draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n))
    y[:classes] = list(range(classes))
    columns["label"] = np.array([f"c{v}" for v in y], dtype=object)
    extra = {}
    if "weight" in roles:
        columns["w"] = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
        extra["weight"] = "w"
    if "group" in roles:
        g = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        g[:2] = [0, 1]
        columns["g"] = np.array([f"g{v}" for v in g], dtype=object)
        extra["group"] = "g"
    if "policy" in roles:
        t = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        t[:2] = [0, 1]
        columns["t"] = np.array([f"t{v}" for v in t], dtype=object)
        columns["o"] = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
        extra = {"treatment": "t", "outcome": "o"}
        return make_problem(Table(columns), Roles(features=tuple(f"x{j}" for j in range(k)), **extra))
    return make_problem(Table(columns), Roles(label="label", **extra))


DEPTH = st.integers(1, 3)
NODES = st.one_of(st.none(), st.integers(1, 4))


def streed_check(problem, params, expect_ordered):
    # Check the solver's optimum against the plain recursion over every split of the raw ranks (a scalar task
    # is a per-row cost under each label, ``A @ L[:, 0, :].T``).
    config = STREED.clean(params)
    search = make_search(problem, config)
    assert (type(search).__name__ == "OrderedSTreeDSearch") == expect_ordered
    result = solve(problem, "streed", params)
    task = search.task
    best = ordered_oracle.best(
        problem.ordered_columns().rank,
        task.A @ task.L[:, 0, :].T,
        config["max_depth"],
        config["max_nodes"],
        0.0,
        config["min_samples_leaf"],
    )
    assert result.status == "optimal"
    assert result.objective == pytest.approx(task.objective(np.array([best])), abs=1e-9), params
    return result


@settings(max_examples=80, deadline=None)
@given(
    numeric(classes=3, roles=("label", "weight")),
    DEPTH,
    NODES,
    st.sampled_from([1, 1, 2]),
    st.sampled_from(["ordered", "binary"]),
)
def test_accuracy_with_classes_and_weights(problem, depth, nodes, min_leaf, search):
    # Check multi-class weighted accuracy on numeric columns, by the ordered and the 0/1 search.
    params = {
        "objective": "accuracy",
        "max_depth": depth,
        "max_nodes": nodes,
        "min_samples_leaf": min_leaf,
        "threshold_search": search,
    }
    streed_check(problem, params, search == "ordered")


@settings(max_examples=50, deadline=None)
@given(numeric(classes=3), DEPTH, NODES, st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_misclassification_costs(problem, depth, nodes, costs):
    # Check a cost table (true class by row) on numeric columns.
    text = "; ".join(" ".join(str(c) for c in costs[3 * i : 3 * i + 3]) for i in range(3))
    params = {
        "objective": "cost_sensitive",
        "max_depth": depth,
        "max_nodes": nodes,
        "misclassification_costs": text,
        "threshold_search": "ordered",
    }
    streed_check(problem, params, True)


@settings(max_examples=40, deadline=None)
@given(numeric(roles=("policy",)), DEPTH, st.sampled_from(["direct", "ipw", "doubly_robust"]))
def test_policy_trees(problem, depth, teacher):
    # Check policy trees (no capacity) on numeric columns.
    params = {"objective": "policy", "max_depth": depth, "teacher": teacher, "threshold_search": "ordered"}
    streed_check(problem, params, True)


@settings(max_examples=40, deadline=None)
@given(numeric(), st.just(1) | st.just(2))
def test_f1_front_on_numeric_columns(problem, depth):
    # Check F1 (a front: the 0/1 search) on numeric columns: the reported tree has the best F1 of any tree.
    result = solve(problem, "streed", {"objective": "f1", "max_depth": depth})
    search = make_search(problem, STREED.clean({"objective": "f1", "max_depth": depth}))
    expected = oracle.front(search.task, problem.X, depth)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(min(search.task.objective(np.array(v)) for v in expected), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    numeric(roles=("label", "group")),
    st.integers(1, 2),
    st.sampled_from(["demographic_parity", "equality_of_opportunity"]),
    st.sampled_from([0.1, 0.3, 1.0]),
)
def test_fairness_constraints_on_numeric_columns(problem, depth, task, delta):
    # Check fewest errors under a fairness constraint on numeric columns against brute force.
    params = {"objective": task, "max_depth": depth, "delta": delta}
    try:
        search = make_search(problem, STREED.clean(params))
    except ProblemError:
        assume(False)  # equality of opportunity needs positive rows in both groups
    expected = oracle.front(search.task, problem.X, depth)
    result = solve(problem, "streed", params)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(min(search.task.objective(np.array(v)) for v in expected), abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(
    numeric(roles=("label", "weight")),
    st.sampled_from(ADDITIVE),
    st.sampled_from([0.0, 0.01, 0.05, 0.2]),
    st.sampled_from([1, 2, 3, None]),
    st.sampled_from([0.5, 2.0]),
)
def test_gosdt_additive_objectives(problem, objective, lam, depth, cost_weight):
    # Check GOSDT's additive objectives with λ and an optional depth limit on numeric columns (ordered search).
    params = {
        "objective": objective,
        "regularization": lam,
        "max_depth": depth,
        "cost_weight": cost_weight,
        "threshold_search": "ordered",
    }
    result = solve(problem, "gosdt", params)
    expected = brute_force(problem, objective, lam, depth, cost_weight)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(expected, abs=1e-9)
    assert objective_of(result.model, problem, objective, lam, cost_weight) == pytest.approx(result.objective)
    if depth is not None:
        assert result.model.depth <= depth
