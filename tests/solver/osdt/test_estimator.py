# Check the OSDTClassifier estimator contract: registry parameters, fit/predict/score, fitted attributes.
import numpy as np
import pytest
from sklearn.base import clone

from solver import ParameterError, registry
from solver.sklearn import OSDTClassifier
from tests.solver.osdt.helpers import shared


def test_its_parameters_are_the_registrys():
    names = {p.name for p in registry.get("osdt").params}
    assert set(OSDTClassifier().get_params()) == names | {"time_limit", "node_limit", "binarize"}
    defaults = {p.name: p.default for p in registry.get("osdt").params}
    assert {k: v for k, v in OSDTClassifier().get_params().items() if k in names} == defaults


def test_it_fits_binary_data_to_the_proved_optimum():
    p = shared("monk1")
    clf = OSDTClassifier(regularization=0.05, binarize="none").fit(p.X, p.y)
    assert clf.optimal_ and abs(clf.objective_ - 0.338710) < 1e-6 and clf.lower_bound_ == clf.objective_
    assert clf.model_.n_leaves == 5
    assert abs(clf.score(p.X, p.y) - (1 - 11 / 124)) < 1e-12
    proba = clf.predict_proba(p.X)
    assert proba.shape == (124, 2) and np.allclose(proba.sum(axis=1), 1)
    clear = np.abs(proba[:, 0] - proba[:, 1]) > 1e-12
    assert (clf.predict(p.X)[clear] == clf.classes_[proba[clear].argmax(axis=1)]).all()


def test_it_binarizes_numbers_and_keeps_string_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0.3, "yes", "no")
    clf = OSDTClassifier(regularization=0.05, time_limit=10).fit(X, y)
    assert set(clf.predict(X)) <= {"yes", "no"}
    assert clf.score(X, y) == 1.0 and clf.model_.n_leaves == 2
    assert clone(clf).get_params() == clf.get_params()


def test_it_refuses_a_zero_penalty():
    with pytest.raises(ParameterError, match="greater than 0"):
        OSDTClassifier(regularization=0.0).fit(np.eye(3), [0, 1, 1])
