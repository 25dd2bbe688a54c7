"""``RashomonSet``: same parameter names as the registry, votes and predictions from the whole set."""

from __future__ import annotations

import numpy as np

from solver import registry
from solver.rashomon.report import tree_predict
from solver.sklearn import RashomonSet


def test_parameters_are_the_registrys():
    names = {p.name for p in registry.get("rashomon").params}
    assert names <= set(RashomonSet().get_params())


def test_votes_predict_and_ambiguity():
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 2, dtype=float)
    y = np.array([int(a) ^ int(b) for a, b, c in X])
    y[0] = 1 - y[0]
    est = RashomonSet(regularization=0.02, epsilon=0.5).fit(X, y)
    assert est.count_ == est.set_.count() > 1
    per_tree = np.array([tree_predict(est.set_, t, X.astype(np.uint8)) for _, t in est.set_.trees()])
    share, disagree = est.ambiguity(X)
    assert np.allclose(share, per_tree.mean(axis=0))
    assert (disagree == ((per_tree.min(axis=0) == 0) & (per_tree.max(axis=0) == 1))).all()
    assert (est.predict(X) == (per_tree.mean(axis=0) >= 0.5)).all()
    assert np.allclose(est.predict_proba(X)[:, 1], share)
    assert len(est.trees(3)) == 3 and len(est.sample(4)) == 4
