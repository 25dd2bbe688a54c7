# Check the brute-force oracles themselves on hand-countable cases.
import numpy as np

from tests.oracles import best_additive, best_tree_objective, enumerate_trees, misclassification_leaf_cost


def test_it_counts_every_tree_of_two_features():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.uint8)
    trees = list(enumerate_trees(X, depth=2))
    # leaf; split on a (then leaf or split b on each side: 2*2); same for b: 1 + 4 + 4
    assert len(trees) == 9
    for leaves in trees:
        assert sorted(np.concatenate(leaves).tolist()) == [0, 1, 2, 3]


def test_xor_needs_four_leaves():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.uint8)
    y = np.array([0, 1, 1, 0])
    cost = misclassification_leaf_cost(y, np.full(4, 0.25), lam=0.01)
    assert abs(best_additive(X, cost, depth=2) - 0.04) < 1e-12
    assert abs(best_additive(X, cost, depth=1) - (0.5 + 0.01)) < 1e-12
    brute = best_tree_objective(X, lambda leaves: sum(cost(rows) for rows in leaves), depth=2)
    assert abs(brute - 0.04) < 1e-12
