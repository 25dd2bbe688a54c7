"""The ordered search's anytime answer: warm starts are sound, and the incumbent only improves.

A search told a tree's value (``upper``, ``tighten``) finds the optimum when it is below, or proves that there
is none below; CART's tree and the helper searches (shallower depths, a few thresholds per column) give trees
of the full problem; and the best tree held never worsens, is never worse than CART's once that is grown, nor
than a shallower optimum once that is proved, and ends as the brute-force optimum. The refiner leaves every
subtree below the root optimal for its rows; the root-block bound stays below every optimum and only rises.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ordered import anytime
from solver.ordered import search as ordered_search
from solver.ordered.engine import Engine, tree_cost
from solver.streed.params import ALGORITHM as STREED
from solver.streed.search import make_search
from tests.solver.ordered import oracle
from tests.solver.ordered.test_engine import shape, tiny
from tests.solver.ordered.test_numeric_tasks import numeric


def run(engine, work):
    while not engine.step(work):
        pass
    return engine


@settings(max_examples=150, deadline=None)
@given(tiny(), st.integers(-2, 2), st.integers(1, 40))
def test_a_search_told_a_value_finds_what_is_below_it_or_proves_there_is_none(case, offset, work):
    rank, cost, depth, nodes, cc, min_leaf, switches = case
    best = oracle.best(rank, cost, depth, nodes, cc, min_leaf)
    upper = best + offset * 0.5
    engine = run(Engine(rank, cost, depth, nodes, cc, min_leaf=min_leaf, upper=upper, **switches), work)
    if best < upper - 1e-6:
        assert engine.found and engine.best[0] == pytest.approx(best, abs=1e-9)
        assert tree_cost(engine.tree(), np.asarray(rank), np.asarray(cost, dtype=float), cc) == pytest.approx(best)
    elif best > upper + 1e-6:
        assert not engine.found and engine.lower_bound >= upper - 1e-9
    else:  # the optimum is the value told: either answer is right, and it never claims less
        assert engine.lower_bound >= best - 1e-6 and (not engine.found or engine.best[0] == pytest.approx(best))


@settings(max_examples=150, deadline=None)
@given(tiny(), st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(1, 30))
def test_tightening_during_the_search_keeps_it_exact(case, cuts, work):
    # The caller lowers the bound between steps, to values of trees it holds (never below the optimum).
    rank, cost, depth, nodes, cc, min_leaf, switches = case
    best = oracle.best(rank, cost, depth, nodes, cc, min_leaf)
    engine = Engine(rank, cost, depth, nodes, cc, min_leaf=min_leaf, **switches)
    held = float("inf")
    for c in cuts:
        if engine.step(work):
            break
        held = min(held, best + c * 0.5)
        engine.tighten(held)
    run(engine, work)
    result = engine.best[0] if engine.found else held
    assert result == pytest.approx(best, abs=1e-9)
    assert engine.found or engine.lower_bound >= held - 1e-9


@settings(max_examples=60, deadline=None)
@given(tiny(), st.sampled_from([2, 3, 4]))
def test_coarse_ranks_split_the_rows_as_the_full_ranks_do(case, bins):
    rank = np.asarray(case[0])
    order = np.argsort(rank, axis=1, kind="stable")
    coarse, cuts, fewer = anytime.coarse_ranks(rank, order, bins)
    distinct = [len(np.unique(r)) - 1 for r in rank]
    assert fewer == any(len(c) < d for c, d in zip(cuts, distinct))
    for f in range(rank.shape[0]):
        assert len(cuts[f]) <= bins - 1
        for v in range(1, len(cuts[f]) + 1):
            assert np.array_equal(coarse[f] < v, rank[f] < cuts[f][v - 1])


@settings(max_examples=80, deadline=None)
@given(tiny())
def test_the_seed_is_a_tree_of_the_budget_no_worse_than_cart(case):
    from sklearn.tree import DecisionTreeClassifier

    rank, cost, depth, nodes, cc, min_leaf, _ = case
    rank, cost = np.asarray(rank), np.asarray(cost, dtype=float)
    groups = cost.argmin(axis=1)
    weights = np.ones(rank.shape[1])
    budget = (1 << depth) - 1 if nodes is None else nodes
    seed = anytime.seed_tree(rank, cost, groups, weights, depth, budget, cc, min_leaf)
    if seed is None:
        assert depth == 0 or budget == 0 or len(np.unique(groups)) < 2
        return
    value, tree = seed
    assert tree_cost(tree, rank, cost, cc) == pytest.approx(value)
    assert shape(tree)[0] <= depth and shape(tree)[1] <= budget
    clf = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=min_leaf, random_state=0)
    clf.fit(rank.T.astype(np.float32), groups)
    t = clf.tree_
    if t.node_count - 1 <= 2 * budget:  # CART's own tree fits the budget: ours is no worse, labels at its best
        leaves = clf.apply(rank.T.astype(np.float32))
        cart = sum(cost[leaves == i].sum(axis=0).min() for i in np.unique(leaves)) + cc * (t.node_count // 2)
        assert value <= cart + 1e-9
    assert value >= oracle.best(rank, cost, depth, nodes, cc, min_leaf) - 1e-9


@settings(max_examples=40, deadline=None)
@given(numeric(classes=3), st.integers(2, 3), st.lists(st.integers(1, 8), min_size=1, max_size=30))
def test_the_incumbent_never_worsens_and_is_never_worse_than_cart_or_a_proved_shallower_optimum(
    problem, depth, budgets
):
    old = ordered_search.HELPERS_AFTER, ordered_search.WORK_PER_UNIT, anytime.BLOCK_ROWS
    ordered_search.HELPERS_AFTER, ordered_search.WORK_PER_UNIT = 0, 1  # helpers from the start, tiny steps
    anytime.BLOCK_ROWS = 3  # the root-block bound on tiny tables too
    try:
        config = STREED.clean({"max_depth": depth, "threshold_search": "ordered"})
        search = make_search(problem, config)
        rank = problem.ordered_columns().rank
        cost = search.cost
        optimum = oracle.best(rank, cost, depth)
        shallower = {d: oracle.best(rank, cost, d) for d in range(1, depth)}
        seed = anytime.seed_tree(rank, cost, search.groups, search.weights, depth, (1 << depth) - 1, 0.0, 1)
        upper, lower, seeded = float("inf"), -float("inf"), False
        for i, budget in enumerate(budgets * 50):
            done = search.step(budget)
            if search._seed is not None and i == 0:
                search._seed.wait(30)  # let CART's tree arrive while the search is still running
            assert search.upper_bound <= upper and search.lower_bound >= lower
            upper, lower = search.upper_bound, search.lower_bound
            value = search.best[0]
            assert value >= optimum - 1e-9 and search.lower_bound <= search.upper_bound
            assert search.to_objective(optimum) >= search.lower_bound - 1e-9
            assert tree_cost(search.best[1], rank, cost, 0.0) == pytest.approx(value)
            seeded = seeded or (search.helpers is not None and search._seed is None)
            if seeded and seed is not None:
                assert value <= seed[0] + 1e-9
            if search.helpers is not None:
                for h in search.helpers.list:
                    if h.finished and h.name.startswith("depth ") and "," not in h.name:
                        assert value <= shallower[int(h.name.split()[1])] + 1e-9
            if done:
                break
        while not search.step(64):
            pass
        assert search.best[0] == pytest.approx(optimum)
        assert search.lower_bound == search.upper_bound == search.to_objective(search.best[0])
        model = search.best_model()
        assert model.n_leaves == shape(search.best[1])[1] + 1
    finally:
        ordered_search.HELPERS_AFTER, ordered_search.WORK_PER_UNIT, anytime.BLOCK_ROWS = old


@settings(max_examples=200, deadline=None)
@given(tiny())
def test_the_equivalent_points_bound_is_below_every_optimum_and_reached_without_limits(case):
    rank, cost, depth, nodes, cc, min_leaf, _ = case
    rank, cost = np.asarray(rank), np.asarray(cost, dtype=float)
    bound = anytime.equivalent_points_bound(rank, cost)
    assert bound <= oracle.best(rank, cost, depth, nodes, cc, min_leaf) + 1e-9
    if rank.shape[1] <= 6:  # deep enough to separate every distinct row: the bound is the optimum
        assert bound == pytest.approx(oracle.best(rank, cost, rank.shape[1], None, 0.0, 1), abs=1e-9)
    groups = {}
    for r in range(rank.shape[1]):  # the same bound by a dictionary of rows
        groups.setdefault(tuple(rank[:, r]), []).append(r)
    assert bound == pytest.approx(sum(cost[rows].sum(axis=0).min() for rows in groups.values()), abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(tiny(), st.integers(1, 4), st.integers(1, 40))
def test_the_root_block_bound_rises_stays_below_every_optimum_and_its_last_level_is_the_halves_bound(
    case, first_rows, work
):
    rank, cost, depth, nodes, cc, _, _ = case
    rank, cost = np.asarray(rank), np.asarray(cost, dtype=float)
    optimum = oracle.best(rank, cost, depth, nodes, cc, 1)
    order = np.argsort(rank, axis=1, kind="stable").astype(np.int32)
    bound = anytime.BlockBound(rank, order, cost, depth, nodes, cc, first_rows=first_rows)
    before = 0.0
    while not bound.finished:
        bound.step(work)
        assert before - 1e-9 <= bound.bound <= optimum + 1e-9
        before = bound.bound
    if bound.levels_done:  # the last level: each feature's two halves, each solved to its optimum one depth down
        F, N = rank.shape
        budget = None if nodes is None else max(0, nodes - 1)
        halves = [
            [
                oracle.best(rank[:, h], cost[h], depth - 1, budget, 0.0, 1)
                for h in (order[f, : N // 2], order[f, N // 2 :])
            ]
            for f in range(F)
        ]
        expected = min(cost.sum(axis=0).min(), cc + min(min(pair) for pair in halves))
        assert bound.level_bound() == pytest.approx(expected, abs=1e-9) and bound.bound >= expected - 1e-9


@settings(max_examples=60, deadline=None)
@given(tiny(), st.integers(3, 4), st.integers(1, 40))
def test_the_refiner_leaves_every_subtree_below_the_root_optimal_for_its_rows(case, depth, work):
    rank, cost, _, _, cc, min_leaf, _ = case
    rank, cost = np.asarray(rank), np.asarray(cost, dtype=float)
    groups = cost.argmin(axis=1)
    seed = anytime.seed_tree(rank, cost, groups, np.ones(len(groups)), depth, (1 << depth) - 1, cc, min_leaf)
    if seed is None:
        return
    value, tree = seed
    refiner = anytime.Refiner(rank, cost, depth, 1 << 40, cc, {"min_leaf": min_leaf})
    refiner.follow(tree)
    while not refiner.finished:
        found = refiner.step(work, value)
        if found is not None:
            assert found[0] < value - 1e-9 and tree_cost(found[1], rank, cost, cc) == pytest.approx(found[0])
            value, tree = found
            refiner.follow(tree)
    for path, sub, k in anytime.subtrees(tree, depth):
        if k > 0 and depth - k >= 2:
            rows = anytime.rows_at(tree, path, rank)
            best = oracle.best(rank[:, rows], cost[rows], depth - k, None, cc, min_leaf)
            assert tree_cost(sub, rank, cost, cc, rows) == pytest.approx(best, abs=1e-9)
