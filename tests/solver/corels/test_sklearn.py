# Check CorelsClassifier: the scikit-learn contract, and that it finds the same rule list as solve().
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from conftest import shared_dataset
from solver.data import read_file
from solver.sklearn import CorelsClassifier


@parametrize_with_checks([CorelsClassifier(time_limit=2, binarize="quantile:4", max_clauses=1)])
def test_it_follows_the_scikit_learn_contract(estimator, check):
    check(estimator)


def compas_binary():
    table = read_file(shared_dataset("compas-corels-binary.csv"))
    names = table.names[:-1]
    return np.column_stack([table[n] for n in names]), table[table.names[-1]], names


def test_it_fits_the_given_columns_as_antecedents():
    X, y, _ = compas_binary()
    clf = CorelsClassifier(regularization=0.01, antecedents="given", binarize="none").fit(X, y)
    assert clf.optimal_ and clf.lower_bound_ == clf.objective_
    assert clf.rule_list_ is clf.model_ and clf.rule_list_.length >= 1
    assert set(np.unique(clf.predict(X))) <= set(clf.classes_)
    proba = clf.predict_proba(X[:10])
    assert proba.shape == (10, 2) and np.allclose(proba.sum(axis=1), 1)
    assert clf.score(X, y) == pytest.approx(clf.result_.metrics["accuracy"])
    assert clone(clf).get_params() == clf.get_params()


def test_it_refuses_three_classes_in_plain_words():
    X, y, _ = compas_binary()
    y = y.copy()
    y[:5] = 2
    with pytest.raises(ValueError, match="Only binary classification"):
        CorelsClassifier(antecedents="given", binarize="none").fit(X, y)
