"""The ordered search cut into pieces by root feature (``solver.ordered.split``) against the one-process search.

The combined optimum and bounds equal the one-process search's; the tree is byte-identical whenever the
one-process search keeps its first root feature's tree (or a leaf), and whatever the order the pieces ran in
it is the same tree; a split search stopped early holds a real tree and a valid lower bound.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import shared_dataset
from solver import driver
from solver.data.binarize import Roles, make_problem
from solver.data.table import Table
from solver.ordered import split
from solver.ordered.engine import tree_cost
from tests.solver.ordered import oracle


@st.composite
def numeric(draw):
    # A small raw table: 1-4 numeric columns with few distinct values (ties), 2-3 classes, 6-30 rows.
    n = draw(st.integers(6, 30))
    k = draw(st.integers(1, 4))
    classes = draw(st.integers(2, 3))
    columns = {
        f"x{j}": np.array(draw(st.lists(st.integers(0, 7), min_size=n, max_size=n)), dtype=float) for j in range(k)
    }
    columns["x0"][:2] = [0.0, 7.0]
    y = draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n))
    y[:classes] = list(range(classes))
    columns["label"] = np.array([f"c{v}" for v in y], dtype=object)
    return make_problem(Table(columns), Roles(label="label"))


ALGORITHMS = st.one_of(
    st.builds(
        lambda d: ("streed", {"objective": "accuracy", "max_depth": d, "threshold_search": "ordered"}),
        st.integers(1, 3),
    ),
    st.builds(
        lambda d, lam: (
            "gosdt",
            {"objective": "accuracy", "max_depth": d, "regularization": lam, "threshold_search": "ordered"},
        ),
        st.integers(2, 4),
        st.sampled_from([0.01, 0.02, 0.05]),
    ),
)


def one_process(problem, algorithm, params):
    _, _, search = split.base_search(problem, algorithm, params)
    outcome = driver.run(search)
    assert outcome.status == "optimal"
    return search


def split_search(problem, algorithm, params, pieces=None, order=None, parts=1):
    _, _, base = split.base_search(problem, algorithm, params)
    search = split.SplitSearch(base, pieces, order=order, parts=parts)
    assert driver.run(search).status == "optimal"
    return search


def same_answer(whole, parts):
    """Assert equal optima and proved bounds, and the same tree when the one-process search keeps its first root's.

    Optima agree to the search's tolerance ``eps``: equal trees summed in another order (another path through
    the search: the depth-two routine, a child's frame) may differ in the last bit, even when the tree is the same.
    """
    eps = whole.engine.params.eps
    assert abs(parts.base.best[0] - whole.best[0]) <= eps
    assert parts.lower_bound == parts.upper_bound
    first = parts.groups[0][0] if parts.groups else None
    tree = whole.best[1]
    if len(tree) == 1 or tree[0] == first:
        assert parts.base.best[1] == tree
    if parts.base.best[1] == tree:  # the same tree (its value may be summed in another order: within eps)
        assert parts.best_model().to_dict() == whole.best_model().to_dict()


@settings(max_examples=150, deadline=None)
@given(numeric(), ALGORITHMS, st.one_of(st.none(), st.integers(1, 5)), st.integers(1, 3))
def test_split_equals_one_process_search(problem, algorithm_params, pieces, ranges):
    # Check the split search (by root feature, and by ranges of root thresholds) against the one-process search:
    # optimum, bound, and the tree where it is defined.
    algorithm, params = algorithm_params
    whole = one_process(problem, algorithm, params)
    parts = split_search(problem, algorithm, params, pieces, parts=ranges)
    same_answer(whole, parts)
    rank, cost = whole.engine.inputs.rank, whole.engine.inputs.cost
    value = tree_cost(parts.base.best[1], rank, cost, whole.cc)
    assert value == pytest.approx(parts.base.best[0], abs=1e-9)  # the tree held is worth what is reported


@settings(max_examples=80, deadline=None)
@given(numeric(), ALGORITHMS, st.randoms(use_true_random=False), st.integers(1, 2))
def test_same_tree_whatever_order_the_pieces_ran_in(problem, algorithm_params, rng, ranges):
    # Check that the pieces run in another order (another incumbent history) give the same tree, byte for byte.
    algorithm, params = algorithm_params
    a = split_search(problem, algorithm, params, parts=ranges)
    order = list(range(len(a.groups)))
    rng.shuffle(order)
    b = split_search(problem, algorithm, params, order=order, parts=ranges)
    assert b.base.best[1] == a.base.best[1]
    assert b.best_model().to_dict() == a.best_model().to_dict()


@settings(max_examples=60, deadline=None)
@given(numeric(), st.integers(2, 3), st.integers(1, 12))
def test_bounds_valid_when_stopped_early(problem, depth, steps):
    # Check a split search stopped after a few steps: its tree is real and worth its upper bound, and its lower
    # bound is at most the brute-force optimum.
    params = {"objective": "accuracy", "max_depth": depth, "threshold_search": "ordered"}
    _, _, base = split.base_search(problem, "streed", params)
    rank, cost = base.engine.inputs.rank, base.engine.inputs.cost
    best = oracle.best(rank, cost, depth)
    search = split.SplitSearch(base, pieces=3)
    for _ in range(steps):
        if search.step(1):
            break
        value, tree = base.best[0], base.best[1]
        assert tree_cost(tree, rank, cost, 0.0) == pytest.approx(value, abs=1e-9)
        assert base.to_objective(best) >= search.lower_bound - 1e-12
        assert search.upper_bound >= base.to_objective(best) - 1e-12
        assert search.lower_bound <= search.upper_bound


def test_combine_keeps_the_leaf_and_the_least_bound():
    # Check the combine step by hand: the leaf unless a piece beats it, the first piece among equals, the least bound.
    rank = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    problem = make_problem(
        Table({"a": rank[0].astype(float), "b": rank[1].astype(float), "label": np.array(["p", "p", "q", "q"])}),
        Roles(label="label"),
    )
    _, _, base = split.base_search(problem, "streed", {"max_depth": 2, "threshold_search": "ordered"})
    leaf_value = split.leaf(base)[0]
    assert leaf_value == 2.0
    piece = {"features": [0], "value": 0.0, "tree": [0, 2, [0], [1]], "lower": 0.0, "done": True, "work": 1}
    other = {**piece, "features": [1], "tree": [1, 2, [1], [0]]}
    assert split.combine(base, [None, None])[0] == leaf_value
    assert split.combine(base, [None, None])[2] == 0.0
    value, tree, lower, winner = split.combine(base, [other, piece])
    assert (value, tree, lower, winner) == (0.0, (1, 2, (1,), (0,)), 0.0, 0)
    half = {**piece, "value": 2.0, "tree": [0, 1, [0], [1]], "lower": 1.0, "done": False}
    assert split.combine(base, [half, None])[:2] == (2.0, (0,))  # not better than the leaf: the leaf
    assert split.combine(base, [half, {**other, "value": 1.0, "lower": 1.0, "done": False}])[2] == 1.0


def numeric_file(name, rows=None):
    data = pd.read_csv(shared_dataset(f"{name}.csv"))
    if rows is not None:
        data = data.iloc[:rows]
    label = data.columns[-1]  # the label is the last column of the shared numeric and 0/1 files
    columns = {c: data[c].to_numpy(dtype=float) for c in data.columns if c != label}
    columns["label"] = np.array([str(v) for v in data[label]], dtype=object)
    return make_problem(Table(columns), Roles(label="label"))


@pytest.mark.parametrize(
    ("name", "rows", "algorithm", "params"),
    [
        ("bank", None, "streed", {"max_depth": 2}),
        ("bank", None, "streed", {"max_depth": 3}),
        ("raisin", None, "streed", {"max_depth": 2}),
        ("raisin", None, "streed", {"max_depth": 3}),
        ("wilt", 1500, "streed", {"max_depth": 3}),
        ("segment", 600, "streed", {"max_depth": 3}),
        ("bank", None, "gosdt", {"max_depth": 3, "regularization": 0.005}),
        ("raisin", None, "gosdt", {"max_depth": 3, "regularization": 0.002}),
        ("monk1", None, "streed", {"max_depth": 3}),
        ("tic-tac-toe", None, "streed", {"max_depth": 3}),
        ("compas-osdt-binary", None, "gosdt", {"max_depth": 3, "regularization": 0.005}),
    ],
)
def test_split_equals_one_process_search_on_shared_files(name, rows, algorithm, params):
    # Check the split search on shared numeric and 0/1 files where both finish in seconds, by root feature and
    # with each feature's thresholds cut in two ranges.
    problem = numeric_file(name, rows)
    params = {**params, "threshold_search": "ordered"}
    whole = one_process(problem, algorithm, params)
    for ranges in (1, 2):
        parts = split_search(problem, algorithm, params, parts=ranges)
        same_answer(whole, parts)
        assert math.isfinite(parts.upper_bound)
        cut = any(not isinstance(e, int) for g in parts.groups for e in g)
        assert cut == (ranges == 2 and problem.ordered_columns().size.max() >= 4)  # 0/1 columns have one threshold
