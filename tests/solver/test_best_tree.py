# Check the one best-tree traversal: GOSDT's split pool and OSST's per-subproblem records give the same tree.
import numpy as np

from solver import best_tree
from solver.best_tree import NO_SPLIT

# Subproblems 0..7; the best tree is 5 → (2 on feature 4) → (7 / 1 on feature 0), and 5's right child 3.
ROOT = 5
LEAF = np.array([9.0, 0.5, 8.0, 0.25, 9.0, 9.0, 9.0, 0.125])
# OSST: each subproblem's own best split.
FEATURE = np.array([NO_SPLIT, NO_SPLIT, 0, NO_SPLIT, NO_SPLIT, 4, 1, NO_SPLIT])
LEFT = np.array([-1, -1, 7, -1, -1, 2, 0, -1])
RIGHT = np.array([-1, -1, 1, -1, -1, 3, 4, -1])
# GOSDT: a pool of splits (one unused), and each subproblem's best row in it.
BEST = np.array([NO_SPLIT, NO_SPLIT, 2, NO_SPLIT, NO_SPLIT, 0, 1, NO_SPLIT])
POOL_FEATURE = np.array([4, 1, 0, 3])
POOL_LEFT = np.array([2, 0, 7, 1])
POOL_RIGHT = np.array([3, 4, 1, 6])

EXPECTED = {
    "ids": [5, 2, 3, 7, 1],
    "features": [4, 0, NO_SPLIT, NO_SPLIT, NO_SPLIT],
    "lefts": [1, 3, -1, -1, -1],
    "rights": [2, 4, -1, -1, -1],
}


def as_lists(tree):
    ids, features, lefts, rights, objective = tree
    return {"ids": ids.tolist(), "features": features.tolist(), "lefts": lefts.tolist(), "rights": rights.tolist()}


def test_it_reads_per_subproblem_records():
    tree = best_tree.extract(ROOT, best_tree.DIRECT, FEATURE, LEFT, RIGHT, LEAF, 9)
    assert as_lists(tree) == EXPECTED
    assert tree[4] == 0.125 + 0.5 + 0.25  # leaves in the order taken: 7, 1, then 3


def test_it_reads_a_split_pool_alike():
    tree = best_tree.extract(ROOT, BEST, POOL_FEATURE, POOL_LEFT, POOL_RIGHT, LEAF, 9)
    assert as_lists(tree) == EXPECTED
    assert tree[4] == 0.125 + 0.5 + 0.25


def test_a_leaf_root_is_a_one_node_tree():
    for best, feature, left, right in (
        (best_tree.DIRECT, FEATURE, LEFT, RIGHT),
        (BEST, POOL_FEATURE, POOL_LEFT, POOL_RIGHT),
    ):
        tree = best_tree.extract(3, best, feature, left, right, LEAF, 9)
        assert as_lists(tree) == {"ids": [3], "features": [NO_SPLIT], "lefts": [-1], "rights": [-1]}
        assert tree[4] == 0.25
