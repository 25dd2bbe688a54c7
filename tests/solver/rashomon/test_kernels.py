"""The numba build of the set's graph (``KernelBuilder``) makes the graph of the Python build (``Builder``).

Same vertices in the same order, same options, same cells and counts, same budgets, for every definition
and switch, whatever the number of vertex builds per step (the driver's chunks).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.problem import Problem, binary_problem
from solver.rashomon.graph import Builder, KernelBuilder, Overflow, data_of
from solver.rashomon.objective import make_rows
from solver.rashomon.params import ALGORITHM
from solver.rashomon.search import RashomonSearch
from conftest import shared_dataset


def graph_of(kind, rows, config, stages, work):
    depth = config["max_depth"]
    builder = kind(
        rows,
        depth,
        lookahead=config["use_lookahead_bound"],
        equivalent=config["use_equivalent_points_bound"],
        hierarchical=config["use_hierarchical_bound"],
        permutation=config["use_leaf_permutation_bound"],
        trivial=config["ignore_trivial_extensions"],
        any_label=config["leaf_labels"] == "any",
    )
    results = []
    for budget in stages:
        builder.request((rows.all, -1 if depth is None else depth, ()), budget)
        while builder.result is None and not builder.step(work):  # None: the root must be built
            pass
        results.append(builder.result)
    g = builder.graph
    return results, [list(x) for x in (g.support, g.leaf_m, g.label, g.budget, g.options, g.cells)], g.alt


@st.composite
def problems(draw):
    n = draw(st.integers(3, 40))
    m = draw(st.integers(1, 5))
    k = draw(st.sampled_from([2, 2, 3]))
    X = np.array([[draw(st.integers(0, 1)) for _ in range(m)] for _ in range(n)], dtype=np.uint8)
    y = np.array([draw(st.integers(0, k - 1)) for _ in range(n)], dtype=np.int64)
    y[:k] = np.arange(k)
    weights = draw(st.sampled_from([None, "varied"]))
    w = np.ones(n) if weights is None else np.array([draw(st.sampled_from([0.5, 1.0, 2.0])) for _ in range(n)])
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(m)]
    return Problem(X=X, features=features, y=y, classes=[str(c) for c in range(k)], sample_weight=w)


PARAMS = st.fixed_dictionaries(
    {
        "objective": st.sampled_from(["accuracy", "balanced_accuracy", "weighted_accuracy"]),
        "regularization": st.sampled_from([0.0, 0.02, 0.05, 0.1]),
        "max_depth": st.sampled_from([None, 1, 2, 3]),
        "cost_weight": st.sampled_from([1.0, 2.5]),
        "ignore_trivial_extensions": st.booleans(),
        "leaf_labels": st.sampled_from(["majority", "any"]),
        "integer_gamma": st.booleans(),
        "use_hierarchical_bound": st.booleans(),
        "use_lookahead_bound": st.booleans(),
        "use_equivalent_points_bound": st.booleans(),
        "use_leaf_permutation_bound": st.booleans(),
    }
)


@settings(max_examples=200, deadline=None)
@given(
    problem=problems(),
    params=PARAMS,
    fractions=st.lists(st.floats(0.0, 0.6), min_size=1, max_size=3),
    work=st.integers(1, 6),
)
def test_the_kernels_build_the_python_graph(problem, params, fractions, work):
    if problem.n_classes > 2:
        params = {**params, "objective": "accuracy"}
    config = ALGORITHM.clean(params)
    rows = make_rows(problem, config)
    top = rows.keys.key(rows.keys.scale, 1)  # the objective of a leaf that gets every row wrong
    stages = sorted({int(f * top) for f in fractions})
    want = graph_of(Builder, rows, config, stages, 1 << 30)
    assert graph_of(KernelBuilder, rows, config, stages, work) == want


def test_the_kernels_build_the_python_graph_on_shared_files():
    for name, depth, budgets in (("monk2", 4, (40, 50, 57)), ("tic-tac-toe", 3, (300, 306))):
        d = np.loadtxt(shared_dataset(f"{name}.csv"), delimiter=",", skiprows=1, dtype=np.int64)
        problem = binary_problem(d[:, :-1], d[:, -1])
        params = {"regularization": 0.01, "max_depth": depth, "leaf_labels": "any", "integer_gamma": True}
        config = ALGORITHM.clean({**params, "ignore_trivial_extensions": False})
        rows = make_rows(problem, config)
        want = graph_of(Builder, rows, config, budgets, 1 << 30)
        assert want[0][-1] >= 0 and len(want[1][0]) > 1000
        assert graph_of(KernelBuilder, rows, config, budgets, 97) == want


def test_keys_past_int64_are_built_with_python_integers():
    # Weights with 17 significant digits: every row's exact cost has a denominator near 10^17 · n.
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(12, 3)).astype(np.uint8)
    y = np.array([0, 1] * 6)
    weights = np.array([0.12345678901234567 + i * 1.1e-16 for i in range(12)])
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(3)]
    problem = Problem(X=X, features=features, y=y, classes=["0", "1"], sample_weight=weights)
    config = ALGORITHM.clean({"regularization": 0.01})
    search = RashomonSearch(problem, config)
    try:
        data_of(search.rows, search.builder)
        fits = True
    except Overflow:
        fits = False
    assert not fits and type(search.builder) is Builder
    while not search.step(1 << 20):
        pass
    assert search.tree_set().count() >= 1


def test_counts_past_int64_are_counted_with_python_integers():
    # Every row of 6 binary features once, λ = 0 and θ above every tree: each tree over the free features of a
    # cube is in the set, with either label at each leaf. T(d) = 2 + d·T(d - 1)² trees use d free features:
    # T(5) ≈ 5.8·10^18 fits in int64, T(6) ≈ 2·10^38 does not, so the kernels stop and Python integers count.
    X = np.array([[(i >> j) & 1 for j in range(6)] for i in range(64)], dtype=np.uint8)
    y = np.array([bin(i).count("1") % 2 for i in range(64)])
    params = {"regularization": 0.0, "objective_bound": 1.0, "leaf_labels": "any"}
    config = ALGORITHM.clean({**params, "ignore_trivial_extensions": False, "integer_gamma": True})
    problem = binary_problem(X, y)
    search = RashomonSearch(problem, config)
    assert type(search.builder) is KernelBuilder
    while not search.step(1 << 20):
        pass
    assert type(search.builder) is Builder
    want = 2
    for d in range(1, 7):
        want = 2 + d * want * want
    assert search.tree_set().count() == want > 2**63
