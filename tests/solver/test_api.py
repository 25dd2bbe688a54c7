# Check the solve() contract with the CART baseline: statuses, errors, metrics and the JSON round trip.
import json

import numpy as np
import pytest

from conftest import shared_dataset
from solver import Limits, ParameterError, ProblemError, Result, registry, solve
from solver.data import Roles, make_problem, read_file
from solver.problem import Problem


def monk1():
    table = read_file(shared_dataset("monk1.csv"))
    return make_problem(table, Roles(label="class_1"), "none")


def test_cart_solves_and_reports_everything():
    result = solve(monk1(), "cart", {"max_depth": 3})
    assert result.status == "heuristic"
    assert result.lower_bound is None and result.gap is None
    assert result.params == {"max_depth": 3, "min_samples_leaf": 1, "criterion": "gini", "regularization": 0.0}
    assert 0 < result.metrics["accuracy"] <= 1
    assert result.objective == pytest.approx(1 - result.metrics["accuracy"])
    assert {"solve_seconds", "compile_seconds", "peak_memory_bytes", "nodes"} <= set(result.stats)
    assert result.model.depth <= 3


def test_result_round_trips_through_json():
    result = solve(monk1(), "cart", {"max_depth": 4})
    back = Result.from_dict(json.loads(json.dumps(result.to_dict())))
    assert back.to_dict() == result.to_dict()
    X = monk1().X
    assert (back.model.predict(X) == result.model.predict(X)).all()


def test_result_from_dict_refuses_other_files():
    with pytest.raises(ValueError, match="not a corelsweb result"):
        Result.from_dict({"hello": 1})
    with pytest.raises(ValueError, match="newer"):
        Result.from_dict({"schema": "corelsweb.result", "version": 999})


def test_it_refuses_bad_parameters_before_solving():
    with pytest.raises(ParameterError, match="no parameter 'depth'"):
        solve(monk1(), "cart", {"depth": 3})
    with pytest.raises(ParameterError, match="at least 1"):
        solve(monk1(), "cart", {"max_depth": 0})
    with pytest.raises(ParameterError, match="whole number"):
        solve(monk1(), "cart", {"max_depth": "three"})
    with pytest.raises(ParameterError, match="no algorithm called"):
        solve(monk1(), "nope")
    with pytest.raises(ParameterError, match="reference_treatment must be a text of at most 200 characters"):
        solve(monk1(), "streed", {"objective": "policy", "reference_treatment": "x" * 201})
    with pytest.raises(ParameterError, match="reference_treatment must be a text"):
        solve(monk1(), "streed", {"objective": "policy", "reference_treatment": 3})


def test_it_refuses_a_label_with_one_class():
    p = Problem(X=np.zeros((4, 1)), features=[{"kind": "binary", "column": "a"}], y=[0, 0, 0, 0], classes=["a"])
    with pytest.raises(ProblemError, match="only one class"):
        solve(p, "cart")


def test_it_refuses_a_problem_without_a_label():
    p = Problem(X=np.zeros((4, 1)), features=[{"kind": "binary", "column": "a"}], time=[1, 2, 3, 4])
    with pytest.raises(ProblemError, match="needs a label column"):
        solve(p, "cart")


def test_regularization_prunes_cart_to_fewer_leaves():
    p = monk1()
    full = solve(p, "cart", {"max_depth": 6, "regularization": 0.0})
    pruned = solve(p, "cart", {"max_depth": 6, "regularization": 0.05})
    assert pruned.model.n_leaves < full.model.n_leaves
    lam = 0.05
    assert pruned.objective == pytest.approx(
        pruned.metrics["misclassifications"] / p.n_samples + lam * pruned.model.n_leaves
    )


def test_every_registered_algorithm_has_a_complete_schema():
    for algorithm in registry.algorithms().values():
        config = algorithm.clean({})
        assert set(config) == {p.name for p in algorithm.params}
        json.dumps(algorithm.to_dict())


def test_limits_round_trip():
    limits = Limits(time_limit=2.5, node_limit=10, memory_limit=2**20)
    assert Limits.from_dict(limits.to_dict()) == limits


def test_missing_parameters_take_their_defaults_and_none_means_no_limit():
    cart = registry.get("cart")
    assert cart.clean({})["max_depth"] == 4
    assert cart.clean({"max_depth": None})["max_depth"] is None
    assert cart.clean({"max_depth": ""})["max_depth"] is None
    with pytest.raises(ParameterError, match="min_samples_leaf needs a value"):
        cart.clean({"min_samples_leaf": None})
