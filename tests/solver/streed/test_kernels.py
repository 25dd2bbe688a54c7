"""Specialised kernels against the general ones they replace: same fronts on random data."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.streed import depth_two, f1_fronts, fronts
from solver.streed.front import count_nodes
from tests.solver.streed.conftest import make_problem, root_front, run
from tests.solver.streed.test_exhaustive import tree_value


@st.composite
def counted(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 6))
    X = np.array(
        draw(st.lists(st.lists(st.integers(0, 1), min_size=m, max_size=m), min_size=n, max_size=n)), dtype=np.uint8
    )
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    ids = np.flatnonzero(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
    return X, y, ids


@settings(max_examples=300, deadline=None)
@given(counted(), st.integers(1, 3), st.integers(1, 3), st.one_of(st.none(), st.integers(0, 30)))
def test_f1_depth_two_fronts_equal_the_general_solver(case, budget, min_leaf, cap):
    X, y, ids = case
    A = np.zeros((len(y), 2))
    A[np.arange(len(y)), y] = 1.0
    L = _f1_leaves()
    S, C, tot = depth_two.count_pairs(X, ids, A)
    q = X.shape[1]
    caps = np.array([np.inf if cap is None else float(cap), np.inf])
    general = depth_two.solve(L, S, C, tot, len(ids), caps, np.zeros(q), np.zeros((q, q)), min_leaf, budget)
    fast = f1_fronts.solve_f1(S, C, tot, len(ids), caps, min_leaf, budget)
    for t in range(3):
        expected, got = general[2 * t], fast[2 * t]
        expected = expected[np.lexsort(expected.T[::-1])]
        assert np.array_equal(expected, got), (t, expected, got)
        # Same fewest branching nodes per value, and every code's tree has its value.
        assert sorted(depth_two._nodes(general[2 * t + 1]).tolist()) == sorted(
            depth_two._nodes(fast[2 * t + 1]).tolist()
        )
        for value, code in zip(got, fast[2 * t + 1]):
            assert np.array_equal(_code_value(X, y, ids, code), value)


def _f1_leaves():
    L = np.zeros((2, 2, 2))
    L[0, 0, 1] = 1.0
    L[1, 1, 0] = 1.0
    return L


def _code_value(X, y, ids, code):
    # (FN, FP) of a depth-two code on the rows ids.
    f1_, fl, la, lb, fr, ra, rb = code
    if f1_ == depth_two.NONE:
        predicted = np.full(len(ids), la)
    else:
        right = X[ids, f1_] == 1
        predicted = np.where(right, ra, la)
        if fl != depth_two.NONE:
            predicted = np.where(~right & (X[ids, fl] == 1), lb, predicted)
        if fr != depth_two.NONE:
            predicted = np.where(right & (X[ids, fr] == 1), rb, predicted)
    truth = y[ids]
    return np.array([np.sum((truth == 1) & (predicted == 0)), np.sum((truth == 0) & (predicted == 1))], dtype=float)


def _pareto_by_definition(values, nodes, caps):
    # Eq. 5 read literally, in pareto's order: feasible and not weakly dominated by an earlier kept point.
    by_nodes = np.argsort(nodes, kind="mergesort")
    order = by_nodes[np.argsort(values[by_nodes].sum(axis=1), kind="mergesort")]
    keep = []
    for i in order:
        if (values[i] > caps).any() or any((values[j] <= values[i]).all() for j in keep):
            continue
        keep.append(i)
    return np.array(keep, dtype=np.int64)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(1, 40), st.integers(0, 12), st.booleans())
def test_pareto_fast_paths_keep_the_same_points(data, k, line, integral):
    # Two components (one-key sort for integer counts) and three on a line v1 + v2 = const (fairness).
    def draw(lo, hi):
        return np.array(data.draw(st.lists(st.integers(lo, hi), min_size=k, max_size=k)), dtype=float)

    nodes = draw(0, 3).astype(np.int64)
    v1 = draw(0, line)
    three = np.column_stack([draw(0, 9) + (0 if integral else 0.5), v1, line - v1])  # halves: the unpacked path
    if data.draw(st.booleans()):
        three[0, 2] += 1  # off the line: the general path
    two = np.column_stack([draw(0, 9), draw(0, 9)]) + (0 if integral else 0.5)
    for values in (three, two):
        caps = np.array([np.inf] + [float(data.draw(st.integers(0, 13)))] * (values.shape[1] - 1))
        got, expected = fronts.pareto(values, nodes, caps), _pareto_by_definition(values, nodes, caps)
        if values.shape[1] == 2:
            got, expected = np.sort(got), np.sort(expected)  # the 2-D sweep lists by first component
        assert np.array_equal(got, expected)


def _fewest_first_by_definition(left, right, left_nodes, right_nodes, extra, caps):
    best = None
    for a in range(len(left)):
        for b in range(len(right)):
            value = left[a] + right[b] + extra
            if (value <= caps).all() and (best is None or (value[0], left_nodes[a] + right_nodes[b]) < best[0]):
                best = (value[0], left_nodes[a] + right_nodes[b]), (a, b)
    return [] if best is None else [best[1]]


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(1, 40), st.integers(1, 40), st.integers(0, 30), st.integers(0, 30))
def test_fewest_first_pair_on_lines_is_the_full_scan(data, k_left, k_right, line_left, line_right):
    # Fairness fronts (v1 + v2 constant on each side) take the windowed search above 256 pairs: same pair.
    def side(k, line):
        ints = st.lists(st.integers(0, line), min_size=k, max_size=k)
        v1 = np.array(data.draw(ints), dtype=float)
        errors = np.array(data.draw(st.lists(st.integers(0, 12), min_size=k, max_size=k)), dtype=float)
        nodes = np.array(data.draw(st.lists(st.integers(0, 3), min_size=k, max_size=k)), dtype=np.int64)
        return np.column_stack([errors, v1, line - v1]), nodes

    left, left_nodes = side(k_left, line_left)
    right, right_nodes = side(k_right, line_right)
    extra = np.array(data.draw(st.lists(st.integers(0, 2), min_size=3, max_size=3)), dtype=float)
    caps = np.array(
        [data.draw(st.sampled_from([np.inf, 5.0, 12.0])), data.draw(st.integers(0, 60)), data.draw(st.integers(0, 60))],
        dtype=float,
    )
    got = fronts.fewest_first_pair(left, right, left_nodes, right_nodes, extra, caps)
    assert [tuple(p) for p in got.tolist()] == _fewest_first_by_definition(
        left, right, left_nodes, right_nodes, extra, caps
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 3), st.booleans())
def test_f1_depth_three_kernel_equals_the_recursion(seed, nodes, min_leaf, at_root):
    # The one-kernel depth-three F1 node (f1_fronts.solve_f1_depth_three) against the recursion over
    # depth-two children: same front and fewest nodes per value, at the root (depth 3) and below it (depth 4).
    problem = _noisy_problem(seed, (20, 90), (2, 7))
    params = {"objective": "f1", "max_depth": 3 if at_root else 4, "max_nodes": nodes, "min_samples_leaf": min_leaf}
    kernel = run(problem, params)
    recursion = run(problem, {**params, "use_depth_two_solver": False})
    assert root_front(kernel) == root_front(recursion)
    _assert_same_front(kernel, recursion, problem)
    if at_root and nodes >= 3:  # fewer nodes cap the depth below 3
        assert kernel.solver.counters["depth_three_calls"] == 1


def _root_kernel_and_recursion(problem, params):
    # The search with its depth-four root in one kernel, and with the recursion there.
    from solver.streed import terminal

    kernel = run(problem, params)
    cells, terminal.ROOT_KERNEL_CELLS = terminal.ROOT_KERNEL_CELLS, 0
    try:
        return kernel, run(problem, params)
    finally:
        terminal.ROOT_KERNEL_CELLS = cells


def _noisy_problem(seed, rows, columns, twin=False):
    # Random 0/1 columns (the last one the complement of the first with ``twin``); the label is x0 with 30 % noise.
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(*rows)), int(rng.integers(*columns))
    X = rng.integers(0, 2, (n, m))
    if twin:
        X[:, -1] = 1 - X[:, 0]
    y = (X[:, 0] ^ (rng.random(n) < 0.3)).astype(np.int64)
    return make_problem(X, y)


def _assert_same_front(kernel, recursion, problem):
    # The same values with the same fewest nodes each; every kernel point's tree has its value and size
    # (children shared between kernels keep their trees).
    fewest = {tuple(v): k for v, k in zip(recursion.front.values.tolist(), recursion.front.nodes.tolist())}
    assert {tuple(v): k for v, k in zip(kernel.front.values.tolist(), kernel.front.nodes.tolist())} == fewest
    for value, tree, k in zip(kernel.front.values, kernel.front.trees, kernel.front.nodes):
        assert np.allclose(tree_value(kernel.task, problem.X, tree), value)
        assert count_nodes(tree) == k


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 15), st.integers(1, 3), st.booleans(), st.booleans(), st.booleans())
def test_depth_four_root_kernel_equals_the_recursion(seed, nodes, min_leaf, similarity, upper, three_classes):
    # bitcount.solve_depth_four_root against recursion.Solver._branch over depth-three children: same value, same tree.
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(10, 120)), int(rng.integers(2, 8))
    X = rng.integers(0, 2, (n, m))
    X[:, -1] = 1 - X[:, 0]  # a complemented twin
    y = rng.integers(0, 3, n) if three_classes else (X[:, 0] ^ (rng.random(n) < 0.3)).astype(np.int64)
    problem = make_problem(X, y, n_classes=3 if three_classes else 2)
    params = {
        "objective": "accuracy",
        "max_depth": 4,
        "max_nodes": nodes,
        "min_samples_leaf": min_leaf,
        "use_similarity_lower_bound": similarity,
        "use_upper_bound": upper,
    }
    kernel, recursion = _root_kernel_and_recursion(problem, params)
    assert kernel.front.values[0, 0] == recursion.front.values[0, 0]
    assert kernel.front.trees[0] == recursion.front.trees[0]
    assert np.isclose(tree_value(kernel.task, problem.X, kernel.front.trees[0])[0], kernel.front.values[0, 0])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 15), st.integers(1, 3), st.booleans())
def test_f1_depth_four_root_kernel_equals_the_recursion(seed, nodes, min_leaf, caching):
    # f1_fronts.solve_f1_depth_four against recursion.Solver._branch over depth-three kernels: same front, same fewest
    # nodes per value, and every point's tree has its value (with and without the shared branch cache).
    problem = _noisy_problem(seed, (10, 120), (2, 8), twin=True)
    params = {
        "objective": "f1",
        "max_depth": 4,
        "max_nodes": nodes,
        "min_samples_leaf": min_leaf,
        "use_dataset_caching": caching,
        "use_branch_caching": caching,
    }
    kernel, recursion = _root_kernel_and_recursion(problem, params)
    _assert_same_front(kernel, recursion, problem)
