"""Greedy CART (scikit-learn) converted into a ``solver.models.Tree``.

scikit-learn grows the tree on the problem's ranks (``solver.data.ordered``: one column per raw column, its
buckets between the binarization's cuts), never on one 0/1 column per cut, so a table of 337k rows with
thousands of thresholds is fitted in seconds and a few hundred MB.

scikit-learn grows the tree in one call that cannot be interrupted, and on thousands of thresholds it takes
seconds (eeg at every midpoint, no depth limit: about 8 s). So it runs in the background
(``solver.background``) while the steps return to the driver every 0.1 s: a time limit or a cancel ends the
run on time with the best model so far, the majority leaf.
"""

from __future__ import annotations

import math

import numpy as np

from solver.background import Background
from solver.models import LEAF, Tree


def warmup():
    """Import scikit-learn's tree module, so its import is not counted as solve time."""
    import sklearn.tree  # noqa: F401


def make_search(problem, config):
    return CartSearch(problem, config)


def reads_binary(problem, config):
    """CART fits on the ranks, never on the 0/1 matrix (``solver.api.within_budget``)."""
    return False


class CartSearch:
    finished_status = "heuristic"
    initial_budget = 1

    def __init__(self, problem, config):
        self.problem = problem
        self.config = config
        self.lower_bound = -math.inf  # CART proves nothing
        self.nodes = 0
        self.tree = majority_leaf(problem)
        self.upper_bound = objective(self.tree, problem.weights.sum(), config["regularization"])
        self._grown_leaves = 0
        self._grower = None

    def step(self, budget):
        if self._grower is None:
            self._grower = Background(self._grow)
        if not self._grower.wait():
            return False
        self.tree, self._grown_leaves, self.nodes = self._grower.result()
        self.upper_bound = objective(self.tree, self.problem.weights.sum(), self.config["regularization"])
        return True

    def _grow(self):
        """Return (pruned tree, leaves grown, nodes grown): the whole fit, in the background thread."""
        from sklearn.tree import DecisionTreeClassifier

        p = self.problem
        clf = DecisionTreeClassifier(
            max_depth=self.config["max_depth"],
            min_samples_leaf=self.config["min_samples_leaf"],
            criterion=self.config["criterion"],
            random_state=0,
        )
        weights = p.weights
        ordered = p.ordered_columns()
        X = rank_matrix(ordered)
        clf.fit(X, p.y, sample_weight=weights)
        grown = from_sklearn(clf.tree_, X, ordered.offset, p.y, weights, p.features, p.classes)
        return prune(grown, self.config["regularization"] * weights.sum()), grown.n_leaves, clf.tree_.node_count

    def progress(self):
        return {}

    def best_model(self):
        return self.tree

    def stats(self):
        return {"grown_leaves": self._grown_leaves}


def majority_leaf(problem):
    """Return the one-leaf tree that predicts the weighted majority class."""
    counts = np.bincount(problem.y, weights=problem.weights, minlength=len(problem.classes))[None, :]
    return Tree(
        feature=[LEAF],
        left=[LEAF],
        right=[LEAF],
        prediction=counts.argmax(axis=1),
        counts=counts,
        features=problem.features,
        classes=problem.classes,
    )


def rank_matrix(ordered):
    """Return the families' ranks as scikit-learn's input: array of float32, shape (n, F).

    A split of family ``f`` at ``k + 0.5`` sends rows of rank ≤ ``k`` left: exactly the rows where binary
    feature ``offset[f] + k`` holds. So the greedy search sees the binarization's every cut, one column per
    raw column (not per cut), and ranks below 2²⁴ are exact in float32.
    """
    return np.ascontiguousarray(ordered.rank.T, dtype=np.float32)


def node_counts(tree_, X, y, weights, n_classes):
    """Return weighted class counts of the training rows through each node.

    Returns
    -------
    counts : array of float64, shape (n_nodes, n_classes)
    """
    path = tree_.decision_path(X)
    onehot = np.zeros((len(y), n_classes))
    onehot[np.arange(len(y)), y] = weights
    return np.asarray(path.T @ onehot)


def from_sklearn(tree_, X, offset, y, weights, features, classes):
    """Convert a scikit-learn ``Tree`` fitted on ``rank_matrix`` into a ``Tree`` over the binary features.

    scikit-learn's left child holds the rows where the cut's predicate is true: our ``right``.
    """
    counts = node_counts(tree_, X, y, weights, len(classes))
    split = tree_.children_left != -1
    cut = np.floor(tree_.threshold).astype(np.int64)
    feature = np.where(split, offset[np.maximum(tree_.feature, 0)] + cut, LEAF)
    return Tree(
        feature=feature,
        left=np.where(split, tree_.children_right, LEAF),
        right=np.where(split, tree_.children_left, LEAF),
        prediction=counts.argmax(axis=1),
        counts=counts,
        features=features,
        classes=classes,
    )


def prune(tree, leaf_cost):
    """Return the subtree of ``tree`` minimising misclassified weight + ``leaf_cost`` × leaves.

    A bottom-up pass: each node keeps its split only when the best subtree
    below it beats making it a leaf (ties prefer the smaller tree).
    """
    n = tree.n_nodes
    best = np.zeros(n)
    keep = np.zeros(n, dtype=bool)
    for i in range(n - 1, -1, -1):  # children have larger indices than parents in sklearn trees
        as_leaf = tree.counts[i].sum() - tree.counts[i].max() + leaf_cost
        if tree.feature[i] == LEAF:
            best[i] = as_leaf
            continue
        split = best[tree.left[i]] + best[tree.right[i]]
        keep[i] = split < as_leaf - 1e-12 * max(1.0, as_leaf)
        best[i] = split if keep[i] else as_leaf
    return _compact(tree, keep)


def _compact(tree, keep):
    order, stack = [], [0]
    while stack:
        i = stack.pop()
        order.append(i)
        if keep[i]:
            stack += [tree.right[i], tree.left[i]]
    new_index = {old: new for new, old in enumerate(order)}
    feature = [tree.feature[i] if keep[i] else LEAF for i in order]
    left = [new_index[tree.left[i]] if keep[i] else LEAF for i in order]
    right = [new_index[tree.right[i]] if keep[i] else LEAF for i in order]
    return Tree(
        feature=feature,
        left=left,
        right=right,
        prediction=tree.counts[order].argmax(axis=1),
        counts=tree.counts[order],
        features=tree.features,
        classes=tree.classes,
    )


def objective(tree, total_weight, lam):
    """Return misclassification rate + λ × leaves of a classification tree."""
    leaves = tree.is_leaf
    errors = (tree.counts[leaves].sum(axis=1) - tree.counts[leaves].max(axis=1)).sum()
    return float(errors / total_weight + lam * tree.n_leaves)
