"""Every estimator takes exactly its algorithm's registry parameters, with the registry's defaults.

The registry (``solver/<name>/params.py``) is the one source of truth: the web form, the command line and
the estimators read it. This test walks every estimator in ``solver.sklearn`` (new ones are picked up by
themselves) and fails on a parameter that is missing, extra, or has another default.
"""

import inspect

import pytest
from sklearn.base import BaseEstimator

from solver import objectives, registry
from solver import sklearn as estimators

# What an estimator adds to its algorithm's parameters: the limits and the binarization of its fit.
FIT_OPTIONS = {"time_limit": None, "node_limit": None, "binarize": None}

# What an estimator adds to read its target: the survival tree maps a numeric event coding (R's 1/2) by value.
DATA_OPTIONS = {"OSSTSurvivalTree": {"event_value": None}}

# Estimators that fix a parameter's value (and so do not take it).
FIXED = {"STreeDPolicyTree": {"objective": "policy"}}


def all_estimators():
    return sorted(
        (
            obj
            for obj in vars(estimators).values()
            if inspect.isclass(obj)
            and issubclass(obj, BaseEstimator)
            and isinstance(getattr(obj, "algorithm", None), str)
        ),
        key=lambda cls: cls.__name__,
    )


def applies(param, config):
    return all(config.get(name, values[0]) in values for name, values in param.visible_when.items())


def test_every_algorithm_has_an_estimator():
    assert {cls.algorithm for cls in all_estimators()} == set(registry.algorithms())


@pytest.mark.parametrize("cls", all_estimators(), ids=lambda cls: cls.__name__)
def test_estimator_parameters_are_the_registrys(cls):
    signature = inspect.signature(cls.__init__).parameters
    taken = {name: p.default for name, p in signature.items() if name != "self"}
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for name, p in signature.items() if name != "self")
    fixed = FIXED.get(cls.__name__, {})
    expected = {
        p.name: p.default for p in registry.get(cls.algorithm).params if p.name not in fixed and applies(p, fixed)
    }
    data_options = DATA_OPTIONS.get(cls.__name__, {})
    assert {k: v for k, v in taken.items() if k not in FIT_OPTIONS and k not in data_options} == expected
    assert {k: taken.get(k, "missing") for k in FIT_OPTIONS} == FIT_OPTIONS
    assert {k: taken.get(k, "missing") for k in data_options} == data_options
    # get_params sees them all (sklearn's clone and grid search depend on it).
    assert set(cls().get_params()) == set(taken)


@pytest.mark.parametrize("algorithm", list(registry.algorithms().values()), ids=lambda a: a.name)
def test_objective_choices_are_the_objective_table(algorithm):
    # What an algorithm's objective parameter offers is what solver/objectives.py says it offers.
    choices = [p.choices for p in algorithm.params if p.name == "objective"]
    if choices:
        assert tuple(choices[0]) == objectives.offered_by(algorithm.name)
        for name in choices[0]:
            config = algorithm.clean({"objective": name})
            assert algorithm.required_roles(config) == objectives.get(name).roles
            # An algorithm may serve fewer classes than its objective allows (Rashomon sets: two), never more.
            assert algorithm.allows_multiclass(config) <= objectives.get(name).multiclass
    else:
        assert len(objectives.offered_by(algorithm.name)) == 1
