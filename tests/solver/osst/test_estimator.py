# Check the OSSTSurvivalTree estimator: the scikit-survival conventions and the solver underneath.
import numpy as np
import pytest
from sklearn.base import clone

from solver import survival as sv
from solver.api import solve
from solver.sklearn import OSSTSurvivalTree
from tests.solver.osst.conftest import load_problem


def veterans_xy():
    problem = load_problem("veterans")
    names = [f["column"] for f in problem.features]
    return problem, problem.X.astype(float), sv.survival_y(problem.event, problem.time), names


def test_it_fits_the_same_tree_as_solve_and_predicts_leaf_curves():
    problem, X, y, _ = veterans_xy()
    est = OSSTSurvivalTree(max_depth=3, regularization=0.001, min_samples_leaf=1).fit(X, y)
    result = solve(problem, "osst", {"max_depth": 3, "regularization": 0.001, "min_samples_leaf": 1})
    assert est.optimal_ and est.objective_ == pytest.approx(result.objective, abs=1e-12)
    assert est.model_.n_leaves == result.model.n_leaves == 8
    curves = est.predict_survival_function(X[:5])
    values = est.predict_survival_function(X[:5], return_array=True)
    assert values.shape == (5, len(est.unique_times_))
    for curve, row in zip(curves, values):
        assert np.array_equal(curve(est.unique_times_), row)
        assert (np.diff(row) <= 0).all() and row[0] <= 1
    # Every row's curve is its leaf's KM curve of the training rows in that leaf.
    leaves = est.apply(X)
    leaf = leaves[0]
    km = sv.kaplan_meier(problem.event[leaves == leaf], problem.time[leaves == leaf])
    assert np.array_equal(curves[0].x, km.time) and np.array_equal(curves[0].y, km.survival)


def test_risk_scores_order_rows_and_score_is_harrells_c():
    _, X, y, _ = veterans_xy()
    est = OSSTSurvivalTree(max_depth=2, regularization=0.001, min_samples_leaf=5).fit(X, y)
    risk = est.predict(X)
    area = (est.predict_survival_function(X, return_array=True)[:, :-1] * np.diff(est.unique_times_)).sum(axis=1)
    assert np.array_equal(np.argsort(risk, kind="stable"), np.argsort(-area, kind="stable"))
    metrics = est.metrics(X, y)
    assert est.score(X, y) == metrics["harrell_c"] == est.result_.metrics["harrell_c"]
    assert metrics["ibs"] == pytest.approx(est.objective_ - 0.001 * est.model_.n_leaves, abs=1e-12)


def test_it_accepts_sksurv_targets_and_dataframes_and_binarizes_numbers():
    import pandas as pd
    from sksurv.datasets import load_veterans_lung_cancer
    from sksurv.util import Surv

    X, y = load_veterans_lung_cancer()
    X = X[["Age_in_years", "Karnofsky_score"]]
    est = OSSTSurvivalTree(max_depth=2, regularization=0.005, time_limit=60).fit(X, y)
    assert est.feature_names_in_.tolist() == ["Age_in_years", "Karnofsky_score"]
    assert est.optimal_
    assert len(est.predict(X)) == len(X)
    used = {est.model_.features[j]["column"] for j in est.model_.feature if j >= 0}
    assert used <= {"Age_in_years", "Karnofsky_score"}
    renamed = Surv.from_arrays(y["Status"], y["Survival_in_days"], name_event="dead", name_time="days")
    assert clone(est).fit(pd.DataFrame(X), renamed).objective_ == pytest.approx(est.objective_, abs=1e-12)


def test_it_follows_the_estimator_contract():
    est = OSSTSurvivalTree(regularization=0.02, ipcw_ties="sksurv")
    assert est.get_params()["ipcw_ties"] == "sksurv"
    copy = clone(est).set_params(max_depth=2)
    assert copy.max_depth == 2 and est.max_depth == 4
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        est.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="structured"):
        est.fit(np.zeros((3, 2)), np.array([1.0, 2.0, 3.0]))
