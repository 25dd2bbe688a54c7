# Check the λ conversions against exhaustive search: the guarantees hold for the optimal tree.
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.regularization import regularization_for, single_leaf_loss
from tests.oracles import enumerate_trees


def optimal_leaf_counts(X, y, lam):
    """Return the leaf counts of every optimal tree (accuracy objective) by brute force."""
    n = len(y)
    scored = []
    for leaves in enumerate_trees(X, depth=X.shape[1]):
        errors = sum(len(r) - np.bincount(y[r], minlength=2).max() for r in leaves)
        scored.append((errors / n + lam * len(leaves), len(leaves)))
    best = min(s for s, _ in scored)
    return [h for s, h in scored if s <= best + 1e-12]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 6))
def test_at_most_l_leaves_holds_for_every_optimal_tree(seed, L):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(16, 4)).astype(np.uint8)
    y = rng.integers(0, 2, size=16)
    loss0 = single_leaf_loss("accuracy", np.bincount(y, minlength=2).tolist())
    lam, text = regularization_for("max_leaves", L, 16, loss0)
    assert max(optimal_leaf_counts(X, y, lam)) <= L
    assert f"at most {L} leaves" in text


def test_the_single_leaf_loss_is_the_minority_share_for_accuracy():
    assert single_leaf_loss("accuracy", [30, 10]) == 0.25
    assert single_leaf_loss("balanced_accuracy", [30, 10]) == 0.5
    assert single_leaf_loss("auc", [30, 10]) == 0.5  # a single leaf's ROC curve is the diagonal


def test_min_rows_is_k_over_n():
    lam, text = regularization_for("min_rows", 10, 200, 0.3)
    assert lam == 0.05 and "at least 10 rows" in text
