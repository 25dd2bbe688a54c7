# Check the GOSDTClassifier estimator contract: registry parameters, fit/predict/score, weights, fitted attributes.
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from solver import registry
from solver.sklearn import GOSDTClassifier
from tests.solver.gosdt.helpers import shared


def test_its_parameters_are_the_registrys():
    names = {p.name for p in registry.get("gosdt").params}
    assert set(GOSDTClassifier().get_params()) == names | {"time_limit", "node_limit", "binarize"}
    defaults = {p.name: p.default for p in registry.get("gosdt").params}
    assert {k: v for k, v in GOSDTClassifier().get_params().items() if k in names} == defaults


def test_it_fits_monk1_to_the_proved_optimum():
    p = shared("monk1")
    clf = GOSDTClassifier(regularization=0.05, binarize="none").fit(p.X, p.y)
    assert clf.optimal_ and abs(clf.objective_ - 21 / 62) < 1e-12 and clf.lower_bound_ == clf.objective_
    assert clf.tree_.n_leaves == 5
    assert abs(clf.score(p.X, p.y) - 113 / 124) < 1e-12
    proba = clf.predict_proba(p.X)
    assert proba.shape == (124, 2) and np.allclose(proba.sum(axis=1), 1)


def test_it_binarizes_numbers_exactly_and_keeps_string_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] > 0.3, "yes", "no")
    clf = GOSDTClassifier(regularization=0.02, max_depth=2).fit(X, y)
    assert clf.optimal_ and clf.score(X, y) == 1.0 and clf.tree_.n_leaves == 2
    assert clone(clf).get_params() == clf.get_params()


def test_sample_weights_act_as_repeated_rows():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(40, 4))
    y = (X[:, 0] ^ X[:, 1]) | (rng.random(40) < 0.2)
    w = rng.integers(1, 4, 40)
    weighted = GOSDTClassifier(regularization=0.02, binarize="none").fit(X, y, sample_weight=w.astype(float))
    repeated = GOSDTClassifier(regularization=0.02, binarize="none").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert abs(weighted.objective_ - repeated.objective_) < 1e-12


def test_it_fits_three_classes_for_accuracy_and_refuses_them_for_balanced_accuracy():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    y = np.array([0, 1, 2, 2] * 5)
    clf = GOSDTClassifier(regularization=0.01, binarize="none").fit(X, y)
    assert clf.optimal_ and clf.score(X, y) == 1.0 and abs(clf.objective_ - 0.03) < 1e-12
    with pytest.raises(Exception, match="two classes"):
        GOSDTClassifier(objective="balanced_accuracy", binarize="none").fit(X, y)


def test_a_time_limit_returns_the_best_tree_with_its_gap():
    p = shared("tic-tac-toe")
    clf = GOSDTClassifier(regularization=0.002, binarize="none", node_limit=200).fit(p.X, p.y)
    assert not clf.optimal_ and clf.result_.status == "node_limit"
    assert clf.lower_bound_ <= clf.objective_ and clf.result_.gap > 0


@parametrize_with_checks([GOSDTClassifier(max_depth=2, time_limit=1)])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_it_keeps_feature_names_and_ignores_rows_of_weight_zero():
    import pandas as pd

    rng = np.random.default_rng(2)
    X = pd.DataFrame({"age": rng.integers(18, 70, 50).astype(float), "priors": rng.integers(0, 5, 50).astype(float)})
    y = (X["age"] < 30).astype(int).to_numpy()
    w = np.ones(50)
    w[:5] = 0
    clf = GOSDTClassifier(regularization=0.02, max_depth=2).fit(X, y, sample_weight=w)
    same = GOSDTClassifier(regularization=0.02, max_depth=2).fit(X.iloc[5:], y[5:])
    assert list(clf.feature_names_in_) == ["age", "priors"]
    assert abs(clf.objective_ - same.objective_) < 1e-12 and clf.tree_.to_dict() == same.tree_.to_dict()
