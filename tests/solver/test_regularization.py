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


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from(["accuracy", "balanced_accuracy", "weighted_accuracy"]),
    st.sampled_from(["exact", "quantile:4"]),
)
def test_the_best_split_gain_is_the_same_from_raw_columns_and_from_the_binary_matrix(seed, objective, binarization):
    # Check the sweep over each raw column's sorted values (no 0/1 matrix) against the matrix product over every
    # binary feature, on numeric columns with ties, a binary column and three classes or two.
    import pytest

    from solver.data import Roles, Table, make_problem
    from solver.data import binarize
    from solver.regularization import best_split_gain

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    table = Table(
        {
            "a": rng.integers(0, 6, n).astype(float),
            "b": rng.normal(size=n).round(1),
            "c": rng.integers(0, 2, n).astype(float),
            "y": rng.choice(["no", "yes"] if objective == "weighted_accuracy" else ["p", "q", "r"], n),
        }
    )
    eager = make_problem(table, Roles(label="y"), binarization)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(binarize, "EAGER_CELLS", 0)
        lazy = make_problem(table, Roles(label="y"), binarization)
    assert eager.has_binary and not lazy.has_binary
    params = {"cost_weight": 3.0}
    expected = best_split_gain(eager, objective, params)
    got = best_split_gain(lazy, objective, params)
    assert not lazy.has_binary  # the sweep never builds the matrix
    assert (expected is None and got is None) or abs(expected - got) <= 1e-9
