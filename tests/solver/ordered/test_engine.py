"""The ordered search's optimum is proved: brute force on tiny data, the spec's worked examples, resumed steps."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ordered.engine import Engine, solve, stable_order, tree_cost
from tests.solver.ordered import oracle

SWITCHES = (
    "use_upper_bound",
    "use_interval",
    "use_cache",
    "use_depth_two",
    "order_features",
    "round_robin",
    "use_histograms",
)


def check(rank, cost, depth, nodes=None, cc=0.0, min_leaf=1, **switches):
    # Check the optimum against brute force, and that the returned tree is worth it and fits the budget.
    engine = solve(rank, cost, depth, nodes, cc, min_leaf=min_leaf, **switches)
    expected = oracle.best(rank, cost, depth, nodes, cc, min_leaf)
    tree = engine.tree()
    assert engine.best[0] == pytest.approx(expected, abs=1e-9), (depth, nodes, cc, min_leaf, switches, tree)
    assert tree_cost(tree, np.asarray(rank), np.asarray(cost, dtype=float), cc) == pytest.approx(engine.best[0])
    assert shape(tree)[0] <= depth and shape(tree)[1] <= (nodes if nodes is not None else 2**depth)
    assert engine.lower_bound == engine.upper_bound == engine.best[0]
    return engine


def shape(tree):
    """Return (depth, branching nodes) of a nested engine tree."""
    if len(tree) == 1:
        return 0, 0
    (dl, nl), (dr, nr) = shape(tree[2]), shape(tree[3])
    return 1 + max(dl, dr), 1 + nl + nr


@st.composite
def tiny(draw):
    depth = draw(st.integers(0, 3))
    F = draw(st.integers(1, 3))
    N = draw(st.integers(1, 16))
    values = draw(st.integers(1, 6))  # few distinct values: ties and repeated rows
    rank = np.array(
        draw(st.lists(st.lists(st.integers(0, values - 1), min_size=N, max_size=N), min_size=F, max_size=F))
    )
    K = draw(st.integers(2, 3))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=N, max_size=N)))
    kind = draw(st.sampled_from(["accuracy", "weighted", "costs"]))
    if kind == "accuracy":
        cost = 1.0 - np.eye(K)[y]
    elif kind == "weighted":
        weight = np.array(draw(st.lists(st.integers(0, 4), min_size=N, max_size=N)), dtype=float) / 2
        cost = (1.0 - np.eye(K)[y]) * weight[:, None]
    else:
        cost = np.array(
            draw(st.lists(st.lists(st.integers(0, 3), min_size=K, max_size=K), min_size=N, max_size=N)), dtype=float
        )
    nodes = draw(st.one_of(st.none(), st.integers(0, 2**depth - 1)))
    cc = draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, 1.5]))
    min_leaf = draw(st.sampled_from([1, 1, 1, 2]))
    switches = {name: draw(st.booleans()) for name in SWITCHES}
    return rank, cost, depth, nodes, cc, min_leaf, switches


@settings(max_examples=400, deadline=None)
@given(tiny())
def test_optimum_equals_brute_force_for_every_switch(case):
    # Check brute force over every threshold: ties, repeated rows, three cost forms, budgets, cc, min leaf.
    rank, cost, depth, nodes, cc, min_leaf, switches = case
    check(rank, cost, depth, nodes, cc, min_leaf, **switches)


def test_every_switch_combination_gives_the_same_optimum():
    # Check the optimum is invariant under all 32 switch combinations on a denser random problem.
    rng = np.random.default_rng(7)
    rank = rng.integers(0, 12, size=(3, 40))
    cost = 1.0 - np.eye(2)[rng.integers(0, 2, 40)]
    expected = oracle.best(rank, cost, 3)
    for flags in itertools.product([True, False], repeat=len(SWITCHES)):
        engine = solve(rank, cost, 3, **dict(zip(SWITCHES, flags)))
        assert engine.best[0] == expected, flags


# Spec contree.md §9.1 Example A: 8 rows, 2 features, 3 classes; r2 and r3 identical with different labels.
EXAMPLE_A = (np.array([[1, 1, 2, 2, 3, 3, 4, 4], [3, 1, 2, 2, 1, 3, 2, 3]]), np.array([0, 1, 0, 1, 1, 2, 2, 2]))


@pytest.mark.parametrize(
    ("depth", "cc", "expected"),
    [
        (0, 0, 5),
        (1, 0, 3),
        (2, 0, 1),
        (3, 0, 1),
        (0, 1, 5),
        (1, 1, 4),
        (2, 1, 3),
        (3, 1, 3),
        (2, 2, 5),
        (3, 2, 5),
    ],
)
def test_example_a(depth, cc, expected):
    # Check the spec's hand-checked optima by depth and node cost (§9.1).
    rank, y = EXAMPLE_A
    engine = check(rank, 1.0 - np.eye(3)[y], depth, cc=cc)
    assert engine.best[0] == expected


def test_example_a_two_node_tree_is_the_unique_optimum_at_cost_one():
    # Check that at depth 2 and cc = 1 the only optimum is x1 ≤ 1.5 ? 1 : (x0 ≤ 2.5 ? 0 : 2) (§9.1).
    rank, y = EXAMPLE_A
    tree = solve(rank, 1.0 - np.eye(3)[y], 2, cc=1.0).tree()
    assert shape(tree) == (2, 2)


def test_example_b():
    # Check Example B (§5.6): optimum 1 at depth one (x ≤ 4.5); at depth two x ≤ 6.5 fits every row.
    x = np.array([[1, 2, 2, 3, 4, 5, 6, 7, 8, 9]])
    y = np.array([0, 0, 0, 0, 0, 1, 1, 0, 1, 1])
    assert check(x, 1.0 - np.eye(2)[y], 1).tree() == (0, 5, (0,), (1,))  # left iff x < 5: x ≤ 4.5
    assert check(x, 1.0 - np.eye(2)[y], 2).best[0] == 0


def test_example_c_is_solved_to_zero():
    # Check the regression instance of the 61ebd49 fix (§6.3): optimum by depth 5, 4, 2, 0, whatever the order.
    X = np.array([(8, 14), (14, 12), (3, 2), (3, 7), (16, 13), (9, 11), (12, 6), (14, 11), (11, 12), (11, 3)]).T
    y = np.array([2, 1, 1, 0, 0, 2, 1, 0, 0, 0])
    for depth, expected in enumerate([5, 4, 2, 0]):
        for order in (True, False):
            assert check(X, 1.0 - np.eye(3)[y], depth, order_features=order).best[0] == expected


@settings(max_examples=60, deadline=None)
@given(tiny(), st.integers(1, 200), st.randoms(use_true_random=False))
def test_steps_of_any_size_resume_to_the_same_optimum(case, work, random):
    # Check resumption: stopping after any amount of work keeps valid bounds and reaches the same optimum.
    rank, cost, depth, nodes, cc, min_leaf, switches = case
    expected = oracle.best(rank, cost, depth, nodes, cc, min_leaf)
    engine = Engine(rank, cost, depth, nodes, cc, min_leaf=min_leaf, **switches)
    while not engine.step(random.randint(1, work)):
        assert engine.lower_bound <= expected + 1e-9 <= engine.upper_bound + 2e-9
        assert tree_cost(engine.tree(), np.asarray(rank), cost, cc) == pytest.approx(engine.upper_bound)
    assert engine.best[0] == pytest.approx(expected)


def test_bounds_move_monotonically_and_meet():
    # Check the anytime signals on a problem of thousands of steps: LB rises, UB falls, both end at the optimum.
    rng = np.random.default_rng(3)
    rank = rng.integers(0, 200, size=(4, 300))
    cost = 1.0 - np.eye(2)[(rank[0] + rank[1] + rng.integers(0, 60, 300) > 230).astype(int)]
    engine = Engine(rank, cost, 3)
    lows, highs = [], []
    while not engine.step(2000):
        lows.append(engine.lower_bound)
        highs.append(engine.upper_bound)
    assert len(lows) > 20
    assert all(a <= b for a, b in zip(lows, lows[1:]))
    assert all(a >= b for a, b in zip(highs, highs[1:]))
    assert max(lows) <= engine.best[0] <= min(highs)


@given(st.integers(0, 3), st.integers(0, 300), st.sampled_from([(0, 3), (0, 2**16 - 1), (-5, 5), (0, 2**20)]))
@settings(max_examples=60, deadline=None)
def test_the_radix_order_of_16_bit_ranks_is_numpys_stable_order(F, N, bounds):
    # Rows whose ranks fit 16 bits are sorted by radix; wider or negative ones as they are: the same stable order.
    rank = np.random.default_rng(F * 1000 + N).integers(bounds[0], bounds[1], (F, N), endpoint=True).astype(np.int32)
    order = stable_order(rank)
    assert order.dtype == np.int32 and order.shape == (F, N)
    assert np.array_equal(order, np.argsort(rank, axis=1, kind="stable"))
