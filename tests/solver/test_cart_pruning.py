# Check that CART's pruning finds the best subtree of the grown tree (against brute force over prunings).
import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.cart.search import from_sklearn, objective, prune
from solver.models import LEAF


def all_prunings(tree, i=0):
    """Yield (misclassified weight, leaves) of every pruning of the subtree at ``i``."""
    as_leaf = (tree.counts[i].sum() - tree.counts[i].max(), 1)
    yield as_leaf
    if tree.feature[i] != LEAF:
        for (el, ll), (er, lr) in itertools.product(
            list(all_prunings(tree, tree.left[i])), list(all_prunings(tree, tree.right[i]))
        ):
            yield el + er, ll + lr


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0, 0.2))
def test_pruning_is_optimal_among_subtrees(seed, lam):
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(30, 4)).astype(np.uint8)
    y = rng.integers(0, 2, size=30)
    ranks = (1 - X).astype(np.float32)  # each 0/1 feature a family of one cut: rank 0 where it holds
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(ranks, y)
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(4)]
    grown = from_sklearn(clf.tree_, ranks, np.arange(4), y, np.ones(30), features, ["0", "1"])
    # The 0/1 rows reach the leaves whose training counts the conversion recorded (children not swapped).
    leaf = grown.apply(X)
    for i in np.flatnonzero(grown.is_leaf):
        assert np.bincount(y[leaf == i], minlength=2).tolist() == grown.counts[i].tolist()
    best = min(e / 30 + lam * leaves for e, leaves in all_prunings(grown))
    assert abs(objective(prune(grown, lam * 30), 30, lam) - best) < 1e-12
