# Check the spec's worked examples (§7.2) and the optimal-tree invariants (§7.1) with exact answers.
from fractions import Fraction

import numpy as np
import pytest

from solver.api import solve
from solver.data import Roles, Table, make_problem
from solver.gosdt.dpb.search import DPBSearch
from solver.gosdt.params import ALGORITHM
from solver.models import LEAF
from tests.solver.gosdt.helpers import objective_of, problem, row_weights, shared


def rows(*patterns):
    """Return (X, y) from ``((x1, x2, ..., y), count)`` pairs."""
    X, y = [], []
    for pattern, count in patterns:
        X += [pattern[:-1]] * count
        y += [pattern[-1]] * count
    return np.array(X, dtype=np.uint8), np.array(y)


XOR = problem(*rows(((0, 0, 0), 2), ((0, 1, 1), 2), ((1, 0, 1), 2), ((1, 1, 0), 2)))
D2 = problem(*rows(((1, 1, 1), 2), ((1, 0, 0), 2), ((0, 1, 0), 3), ((0, 0, 0), 3)))
D3_COUNTS = {
    (0, 0, 0): (0, 6),
    (0, 0, 1): (1, 2),
    (0, 1, 0): (1, 1),
    (0, 1, 1): (2, 0),
    (1, 0, 0): (0, 4),
    (1, 0, 1): (0, 1),
    (1, 1, 0): (3, 0),
    (1, 1, 1): (1, 1),
}
D3 = problem(*rows(*[((*k, 1), v[0]) for k, v in D3_COUNTS.items()], *[((*k, 0), v[1]) for k, v in D3_COUNTS.items()]))


def run(p, **params):
    result = solve(p, "gosdt", params)
    assert result.status == "optimal" and result.lower_bound == result.objective
    return result


@pytest.mark.parametrize("lam, expected, leaves", [(0.1, 0.4, 4), (0.2, 0.7, 1), (1 / 6, 2 / 3, 1)])
def test_xor_needs_a_non_greedy_search(lam, expected, leaves):
    # Spec §7.2(a): a greedy first split gains nothing; at λ = 1/6 the tie goes to the single leaf.
    result = run(XOR, regularization=lam)
    assert abs(result.objective - expected) < 1e-12 and result.model.n_leaves == leaves


@pytest.mark.parametrize(
    "objective, lam, omega, expected, leaves",
    [
        ("accuracy", 0.05, 1, Fraction(15, 100), 3),
        ("balanced_accuracy", 0.05, 1, Fraction(15, 100), 3),
        ("weighted_accuracy", 0.05, 3, Fraction(15, 100), 3),
        ("weighted_accuracy", 0.05, 0.5, Fraction(15, 100), 3),
        ("accuracy", 0.2, 1, Fraction(4, 10), 1),
        ("balanced_accuracy", 0.2, 1, Fraction(21, 40), 2),
        ("weighted_accuracy", 0.2, 3, Fraction(19, 35), 2),
        ("weighted_accuracy", 0.2, 0.5, Fraction(14, 45), 1),
    ],
)
def test_imbalanced_toy_set_d2(objective, lam, omega, expected, leaves):
    # Spec §7.2(b): balanced accuracy splits where accuracy keeps one leaf.
    result = run(D2, objective=objective, regularization=lam, cost_weight=omega)
    assert abs(result.objective - float(expected)) < 1e-12 and result.model.n_leaves == leaves


@pytest.mark.parametrize(
    "objective, lam, omega, expected",
    [
        ("accuracy", 0.01, 1, Fraction(173, 1150)),
        ("accuracy", 0.03, 1, Fraction(219, 1150)),
        ("balanced_accuracy", 0.01, 1, Fraction(179, 1200)),
        ("balanced_accuracy", 0.03, 1, Fraction(227, 1200)),
        ("weighted_accuracy", 0.01, 3, Fraction(139, 975)),
        ("weighted_accuracy", 0.03, 3, Fraction(367, 1950)),
    ],
)
def test_three_objectives_on_d3(objective, lam, omega, expected):
    # Spec §7.2(c), found there by enumerating all 244 trees.
    result = run(D3, objective=objective, regularization=lam, cost_weight=omega)
    assert abs(result.objective - float(expected)) < 1e-12
    assert abs(objective_of(result.model, D3, objective, lam, omega) - result.objective) < 1e-12


def test_d3_root_bounds_and_the_tight_start():
    # Spec §7.2(c): ep(root) = 3/23; root starts at [λ + 3/23, λ + 8/23], or 2λ + 3/23 with the lookahead.
    config = ALGORITHM.clean({"regularization": 0.01})
    search = DPBSearch(D3, config)
    assert abs(search.graph.lb[search.root] - (0.02 + 3 / 23)) < 1e-15
    assert abs(search.graph.ub[search.root] - (0.01 + 8 / 23)) < 1e-15
    search = DPBSearch(D3, ALGORITHM.clean({"regularization": 0.01, "use_lookahead_bound": False}))
    assert abs(search.graph.lb[search.root] - (0.01 + 3 / 23)) < 1e-15
    search = DPBSearch(
        D3,
        ALGORITHM.clean({"regularization": 0.01, "use_lookahead_bound": False, "use_equivalent_points_bound": False}),
    )
    assert abs(search.graph.lb[search.root] - 0.01) < 1e-15


@pytest.mark.parametrize("lam, expected, leaves, accuracy", [(0.01, 0.08, 8, 1.0), (0.05, 21 / 62, 5, 113 / 124)])
def test_monk1_with_k_minus_one_encoding(lam, expected, leaves, accuracy):
    # Spec §7.2(e) and the paper's Figure 18: at λ = 0.01 an 8-leaf tree with 100% training accuracy.
    p = shared("monk1")
    assert p.n_features == 11
    result = run(p, regularization=lam)
    assert abs(result.objective - expected) < 1e-12 and result.model.n_leaves == leaves
    assert abs(result.metrics["accuracy"] - accuracy) < 1e-12


BUCKET_POINTS = {"x1": [1, 3, 5, 4, 6, 2], "x2": [4, 1, 2, 6, 3, 5], "y": [0, 0, 1, 0, 0, 1]}


@pytest.mark.parametrize("lam, exact, bucketized", [(0.01, 0.04, 0.05), (0.1, 0.4, 13 / 30)])
def test_every_midpoint_threshold_beats_bucketization(lam, exact, bucketized):
    # Spec §7.2(f) / Theorem 3.1: the data layer's exact binarization keeps the 3.5 thresholds that
    # bucketization drops, and the optimum needs them.
    table = Table({k: np.array(v, dtype=float if k != "y" else object) for k, v in BUCKET_POINTS.items()})
    table.columns["y"] = np.array([str(v) for v in BUCKET_POINTS["y"]], dtype=object)
    p = make_problem(table, Roles(label="y"), "exact")
    assert p.n_features == 10
    assert abs(run(p, regularization=lam).objective - exact) < 1e-12
    raw = np.array([BUCKET_POINTS["x1"], BUCKET_POINTS["x2"]]).T
    kept = (1.5, 2.5, 4.5, 5.5)
    X = np.hstack([(raw[:, [axis]] <= np.array(kept)).astype(np.uint8) for axis in (0, 1)])
    assert abs(run(problem(X, BUCKET_POINTS["y"]), regularization=lam).objective - bucketized) < 1e-12


@pytest.mark.parametrize("name, lam, depth", [("monk2", 0.01, 4), ("car-evaluation", 0.005, 5), ("monk3", 0.02, None)])
def test_optimal_trees_have_no_unprofitable_split(name, lam, depth):
    # Spec §7.1 items 3–4: every internal node gains at least λ per extra leaf (B.6/B.7), and H* ≤ R*/λ.
    p = shared(name)
    result = run(p, regularization=lam, max_depth=depth)
    tree = result.model
    assert tree.n_leaves <= result.objective / lam + 1e-9
    weights = row_weights(p, "accuracy")
    node_of = np.zeros((p.n_samples, tree.n_nodes), dtype=bool)
    for i in range(tree.n_nodes):
        node_of[:, i] = _reaches(tree, p.X, i)
    for i in np.flatnonzero(~tree.is_leaf):
        members = node_of[:, i]
        mass = np.bincount(p.y[members], weights=weights[members], minlength=2)
        as_leaf = mass.sum() - mass.max()
        wrong = (tree.predict(p.X) != p.y) & members
        leaves = sum(1 for j in np.flatnonzero(tree.is_leaf) if (node_of[:, j] & members).any())
        assert as_leaf - weights[wrong].sum() >= lam * (leaves - 1) - 1e-12


def _reaches(tree, X, target):
    node = np.zeros(len(X), dtype=np.int64)
    hit = node == target
    for _ in range(tree.n_nodes):
        inner = tree.feature[node] != LEAF
        rows_ = np.flatnonzero(inner)
        go = X[rows_, tree.feature[node[rows_]]] != 0
        node[rows_] = np.where(go, tree.right[node[rows_]], tree.left[node[rows_]])
        hit |= node == target
    return hit
