"""The estimators: sklearn contract, fairness and cost roles through fit, policy trees."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from solver.sklearn import STreeDClassifier, STreeDPolicyTree


# Several trees can share the optimum; weighted and duplicated rows may pick different ones (same objective).
TIES = {"check_sample_weight_equivalence_on_dense_data": "ties among optimal trees are broken differently"}


@parametrize_with_checks([STreeDClassifier(max_depth=2, binarize="exact")], expected_failed_checks=lambda e: TIES)
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_it_fits_accuracy_f1_and_fairness_on_raw_numbers():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int)
    group = (X[:, 2] > 0).astype(int)
    accuracy = STreeDClassifier(max_depth=2).fit(X, y)
    assert accuracy.optimal_ and accuracy.score(X, y) > 0.8
    f1 = STreeDClassifier(objective="f1", max_depth=2).fit(X, y)
    assert f1.front_ and any(p["chosen"] for p in f1.front_)
    fair = STreeDClassifier(objective="demographic_parity", delta=0.02, max_depth=2).fit(X, y, group=group)
    predicted = fair.predict(X)
    assert abs(predicted[group == 1].mean() - predicted[group == 0].mean()) <= 0.02 + 1e-12
    with pytest.raises(ValueError):
        STreeDClassifier(objective="demographic_parity").fit(X, y)


def test_it_charges_test_costs_once_per_column():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(100, 2)).astype(float)
    y = (X[:, 0] >= 2).astype(int)
    cheap = STreeDClassifier(objective="cost_sensitive", max_depth=2).fit(X, y, feature_cost=[0.0, 0.0])
    costly = STreeDClassifier(objective="cost_sensitive", max_depth=2).fit(X, y, feature_cost=[10.0, 10.0])
    assert cheap.tree_.n_nodes > 1 and costly.tree_.n_nodes == 1  # a test costing more than any error is never made


def test_policy_tree_assigns_the_better_treatment():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(300, 3)).astype(float)
    treatment = rng.integers(0, 2, size=300)
    outcome = np.where(treatment == X[:, 0], 1.0, 0.0) + 0.1 * rng.normal(size=300)
    policy = STreeDPolicyTree(max_depth=1, teacher="doubly_robust").fit(X, treatment, outcome)
    assigned = policy.predict(X)
    assert (assigned == np.where(X[:, 0] == 1, "1", "0")).mean() == 1.0


def test_policy_tree_capacity_counts_every_treatment_but_the_reference():
    # Treatment 1 is better where x0 = 1 and 0 elsewhere (half the rows each). With 1 as the reference,
    # the capacity limits the rows sent to 0: at most 20 % of them, against 50 % for the unconstrained tree.
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(300, 3)).astype(float)
    treatment = rng.integers(0, 2, size=300)
    outcome = np.where(treatment == X[:, 0], 1.0, 0.0) + 0.1 * rng.normal(size=300)
    policy = STreeDPolicyTree(max_depth=2, teacher="direct", capacity=0.2, reference_treatment=1)
    assigned = policy.fit(X, treatment, outcome).predict(X)
    assert (assigned == "0").mean() <= 0.2
    assert policy.result_.extras["reference_treatment"] == "1"
    default = STreeDPolicyTree(max_depth=2, teacher="direct", capacity=0.2).fit(X, treatment, outcome).predict(X)
    assert (default == "1").mean() <= 0.2  # no reference given: "0", the first in sorted order


def test_misclassification_costs_follow_classes_order():
    # Labels "no"/"yes" (classes_ order) with a missed "yes" costing 5: the table and its text give one tree,
    # whose reported cost is that of its training confusion matrix.
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (80, 4))
    y = np.where((X[:, 0] & X[:, 1]) | (rng.random(80) < 0.2), "yes", "no")
    table = STreeDClassifier(objective="cost_sensitive", max_depth=2, misclassification_costs=[[0, 1], [5, 0]]).fit(
        X, y
    )
    text = STreeDClassifier(objective="cost_sensitive", max_depth=2, misclassification_costs="0 1; 5 0").fit(X, y)
    predicted = table.predict(X)
    cost = np.sum((y == "no") & (predicted == "yes")) + 5 * np.sum((y == "yes") & (predicted == "no"))
    assert table.result_.extras["value"]["cost"] == cost == text.result_.extras["value"]["cost"]
    accuracy = STreeDClassifier(max_depth=2).fit(X, y).predict(X)
    assert np.sum((y == "yes") & (predicted == "no")) <= np.sum((y == "yes") & (accuracy == "no"))
    with pytest.raises(ValueError, match="needs a 2 × 2 table"):
        STreeDClassifier(objective="cost_sensitive", misclassification_costs=[[0, 1, 1]]).fit(X, y)
