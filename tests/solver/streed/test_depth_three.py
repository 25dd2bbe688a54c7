"""The depth-three kernel (``bitcount.solve_depth_three_bits``) and its feature reduction against brute force.

Random small data with repeated and complemented columns (as binarised data has: a threshold and its
negation), so that the in-kernel similarity bounds and the twin-feature reduction of
``bitcount.distinct_splits`` both get exercised: with or without them, the kernel returns the brute-force optimum
(when below the upper bound) and the same tree.
"""

from functools import lru_cache

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.streed import bitcount
from solver.streed.front import decode


@st.composite
def node(draw):
    n = draw(st.integers(2, 40))
    m = draw(st.integers(1, 5))
    K = draw(st.integers(2, 3))
    X = np.array(
        draw(st.lists(st.lists(st.integers(0, 1), min_size=m, max_size=m), min_size=n, max_size=n)), dtype=np.uint8
    )
    # Append repeats and complements of random columns, in random places.
    for _ in range(draw(st.integers(0, 4))):
        source = draw(st.integers(0, X.shape[1] - 1))
        column = X[:, source] ^ np.uint8(draw(st.integers(0, 1)))
        X = np.insert(X, draw(st.integers(0, X.shape[1])), column, axis=1)
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)), dtype=np.int64)
    budget = draw(st.integers(1, 7))
    ub = draw(st.one_of(st.just(np.inf), st.integers(0, n).map(float)))
    return X, y, K, budget, ub


def brute_force(X, y, K, budget):
    """Return the fewest misclassifications of a tree of depth ≤ 3 with ≤ ``budget`` branching nodes."""

    @lru_cache(maxsize=None)
    def opt(rows, depth, nodes):
        ids = np.array(rows, dtype=np.int64)
        best = len(ids) - np.bincount(y[ids], minlength=K).max()
        if depth == 0 or nodes == 0:
            return best
        for f in range(X.shape[1]):
            right = X[ids, f] == 1
            if right.all() or not right.any():
                continue
            for n_left in range(nodes):
                best = min(
                    best,
                    opt(tuple(ids[~right]), depth - 1, n_left) + opt(tuple(ids[right]), depth - 1, nodes - 1 - n_left),
                )
        return best

    return opt(tuple(range(len(y))), 3, budget)


def kernel(X, y, K, budget, ub, use_sim, free, worst):
    L = (1 - np.eye(K))[:, None, :]  # misclassification: label k costs every row of another class
    ids = np.arange(len(y), dtype=np.int64)
    bits = bitcount.distinct_splits(X, ids)[0]
    value, f, left, right, label, bounds = bitcount.solve_depth_three_bits(
        bits[free], ids, y, L, 1, budget, ub, worst, use_sim, np.zeros(len(free))
    )
    tree = (int(label),) if f < 0 else (int(free[f]), decode(left, free), decode(right, free))
    return value, tree, bounds


def tree_errors(X, y, tree, ids):
    if len(tree) == 1:
        return int((y[ids] != tree[0]).sum())
    right = X[ids, tree[0]] == 1
    return tree_errors(X, y, tree[1], ids[~right]) + tree_errors(X, y, tree[2], ids[right])


@settings(max_examples=150, deadline=None)
@given(node(), st.booleans())
def test_depth_three_kernel_is_optimal_with_and_without_its_reductions(case, uneven):
    X, y, K, budget, ub = case
    # A row adds at most 1 to a leaf; any larger per-row bound is valid too (and takes the kernel's
    # per-row sums of the similarity bound for unequal values).
    worst = 1.0 + (np.arange(len(y)) % 3 == 0) if uneven else np.ones(len(y))
    expected = brute_force(X, y, K, budget)
    ones = X.sum(axis=0)
    varying = np.flatnonzero((ones > 0) & (ones < len(y)))
    bits, distinct, twin = bitcount.distinct_splits(X, np.arange(len(y), dtype=np.int64))
    assert all(
        bits[f, i >> 6] >> np.uint64(i & 63) & np.uint64(1) == X[i, f] for f in range(X.shape[1]) for i in range(len(y))
    )
    dropped = np.flatnonzero(twin >= 0)
    assert set(distinct) | set(dropped) == set(varying) and set(twin[dropped]) <= set(distinct)
    for f in dropped:
        assert (X[:, f] == X[:, twin[f]]).all() or (X[:, f] != X[:, twin[f]]).all()
    results = [
        kernel(X, y, K, budget, ub, use_sim, free, worst) for use_sim in (False, True) for free in (varying, distinct)
    ]
    for value, tree, bounds in results:
        if expected < ub:
            assert value == expected
            assert tree_errors(X, y, tree, np.arange(len(y))) == expected
        else:
            assert value == np.inf
    # The reductions skip only splits that cannot be strictly better: the same tree comes out.
    assert len({repr(tree) for _, tree, _ in results}) == 1
    # Every split bound the kernel hands to the next node is at most that split's optimum here
    # (both children of depth two with three nodes each: the least over every budget).
    for use_sim, free in ((True, varying), (True, distinct)):
        _, _, bounds = kernel(X, y, K, budget, ub, use_sim, free, worst)
        for j, f in enumerate(free):
            right = X[:, f] == 1
            assert bounds[j] <= _depth_two(X, y, K, ~right) + _depth_two(X, y, K, right)


def _depth_two(X, y, K, rows):
    """Return the fewest misclassifications of a depth-two tree (3 nodes) on the rows ``rows``."""
    ids = np.flatnonzero(rows)
    Xs, ys = X[ids], y[ids]

    def leaf(mask):
        return int(mask.sum() - (np.bincount(ys[mask], minlength=K).max() if mask.any() else 0))

    def depth_one(mask):
        best = leaf(mask)
        for f in range(X.shape[1]):
            r = mask & (Xs[:, f] == 1)
            l = mask & (Xs[:, f] == 0)
            if r.any() and l.any():
                best = min(best, leaf(l) + leaf(r))
        return best

    everything = np.ones(len(ids), dtype=bool)
    best = depth_one(everything)
    for f in range(X.shape[1]):
        r = Xs[:, f] == 1
        if r.any() and (~r).any():
            best = min(best, depth_one(~r) + depth_one(r))
    return best
