"""The CART warm start of Section 4: its objective seeds the incumbent, so OSDT is never worse than CART.

The settings are the authors' code's (spec §3.7): at least ⌈2λN⌉ rows to
split, ⌈λN⌉ per leaf, at most ⌊1/(2λ)⌋ leaves, impurity decrease at least λ.
A fixed ``random_state`` makes the run reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from solver.cart.search import from_sklearn, rank_matrix


def cart_warm_start(problem, lam, max_depth=None):
    """Return ``(objective, model)`` of the paper's CART tree, or None when its settings allow no tree.

    The objective is computed as the authors' code does, ``1 − accuracy + λ × leaves``
    (weighted shares when rows carry weights).
    """
    from sklearn.tree import DecisionTreeClassifier

    n = problem.n_samples
    max_leaves = math.floor(1 / (2 * lam))
    if max_leaves < 2:
        return None
    clf = DecisionTreeClassifier(
        max_depth=max_depth,
        min_samples_split=max(math.ceil(lam * 2 * n), 2),
        min_samples_leaf=math.ceil(lam * n),
        max_leaf_nodes=max_leaves,
        min_impurity_decrease=lam,
        random_state=0,
    )
    weights = problem.weights
    ordered = problem.ordered_columns()
    X = rank_matrix(ordered)  # one column per family of nested features, as the CART baseline
    clf.fit(X, problem.y, sample_weight=None if problem.sample_weight is None else weights)
    model = from_sklearn(clf.tree_, X, ordered.offset, problem.y, weights, problem.features, problem.classes)
    correct = model.predict(problem) == problem.y
    accuracy = np.mean(correct) if problem.sample_weight is None else float(weights[correct].sum() / weights.sum())
    return 1 - accuracy + lam * model.n_leaves, model
