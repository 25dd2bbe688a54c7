# Check the ROC hull panels: valid hulls, one segment per leaf in the tree panel's colours, θ shaded, names escaped.
import json

import numpy as np
import pytest

from corelsweb.figures import panels_for_result, roc_panels
from corelsweb.figures.common import class_color
from corelsweb.figures.roc import roc_hull_figure, roc_overlay_figure, roc_path_figure, tree_roc
from solver import solve
from solver.metrics import evaluate
from solver.problem import Problem
from solver.roc import auc_ch
from solver.testing import assert_roc_hull_valid


def make_problem(seed=0, n=80):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4)).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & (rng.random(n) < 0.7))).astype(np.int64)
    features = [{"kind": "binary", "column": f"<b>col{j}</b>"} for j in range(4)]
    return Problem(X=X, features=features, y=y, classes=["no", "<i>yes</i>"])


RUNS = [
    ("gosdt", {"objective": "auc", "regularization": 0.01, "max_depth": 3}),
    ("gosdt", {"objective": "pauc", "regularization": 0.005, "pauc_theta": 0.2, "max_depth": 3}),
    ("gosdt", {"objective": "f1", "regularization": 0.01, "max_depth": 2}),
    ("cart", {"regularization": 0.01}),
    ("osdt", {"regularization": 0.02}),
]


@pytest.fixture(scope="module")
def results():
    p = make_problem()
    return [solve(p, algorithm, params).to_dict() for algorithm, params in RUNS]


@pytest.mark.parametrize("k", range(len(RUNS)))
def test_it_draws_a_valid_hull_for_every_classification_tree(results, k):
    result = results[k]
    fig = roc_hull_figure(result)
    hull = fig["layout"]["meta"]["hull"]
    assert_roc_hull_valid(hull)
    segments = [d for d in fig["data"] if d.get("hovertext")]
    n_leaves = sum(1 for f in result["model"]["feature"] if f == -1)
    assert len(segments) == n_leaves
    # Each segment has the colour of its leaf in the tree panel (the class it predicts).
    roc = tree_roc(result["model"])
    for segment, node in zip(segments, roc["leaves"]):
        assert segment["line"]["color"] == class_color(result["model"]["prediction"][node])
    assert fig["layout"]["meta"]["auc"] == pytest.approx(auc_ch(roc["pos"], roc["neg"]))
    assert any(p["id"] == "roc" for p in panels_for_result(result))


def test_it_shades_the_partial_auc_region_up_to_theta(results):
    fig = roc_hull_figure(results[1])
    shaded = [d for d in fig["data"] if d.get("fill") == "toself"]
    assert len(shaded) == 1 and max(shaded[0]["x"]) == pytest.approx(0.2)
    assert "θ=0.2" in shaded[0]["name"]
    assert not any(d.get("fill") for d in roc_hull_figure(results[0])["data"])


def test_it_escapes_names_from_the_file(results):
    text = json.dumps(roc_hull_figure(results[0]))
    assert "<b>col" not in text and "<i>yes" not in text
    assert "&lt;b&gt;col" in text


def test_it_draws_the_held_out_curve_with_leaves_in_training_order():
    p = make_problem(1, 120)
    train, test = p.take(np.arange(80)), p.take(np.arange(80, 120))
    result = solve(train, "gosdt", {"objective": "auc", "regularization": 0.01, "max_depth": 2})
    result.holdout = {"description": "test rows", "metrics": evaluate(result.model, test)}
    fig = roc_hull_figure(result.to_dict())
    held = fig["layout"]["meta"]["holdout"]
    assert held["fpr"][0] == 0 and held["fpr"][-1] == pytest.approx(1) and held["tpr"][-1] == pytest.approx(1)
    assert all(b >= a for a, b in zip(held["fpr"], held["fpr"][1:]))
    # Its area is the AUC of the leaf scores on the held-out rows.
    curve = next(d for d in fig["data"] if d.get("name", "").startswith("held out"))
    assert f"{result.holdout['metrics']['auc']:.4f}" in curve["name"]


def test_it_leaves_out_results_without_a_binary_tree(results):
    rules = dict(results[0], model={"type": "rule_list", "antecedents": [], "classes": ["no", "yes"]})
    assert roc_hull_figure(rules) is None
    assert roc_panels(rules) == []


def test_the_overlay_links_each_hull_to_its_run(results):
    runs = [(f"#{k} <run>", f"/runs/{k}/?a=1&b=2", r) for k, r in enumerate(results)]
    fig = roc_overlay_figure(runs)
    curves = fig["data"][1:]
    assert len(curves) == len(results)
    assert '<a href="/runs/0/?a=1&amp;b=2">#0 &lt;run&gt;</a>' in curves[0]["name"]
    for curve in curves:
        assert_roc_hull_valid(list(zip(curve["x"], curve["y"])))
    assert len({c["line"]["color"] for c in curves}) == len(curves)


def test_the_path_figure_has_one_hull_per_lambda_in_order():
    p = make_problem(2)
    entries = [
        (lam, f"/runs/{k}/", solve(p, "gosdt", {"objective": "auc", "regularization": lam, "max_depth": 2}).to_dict())
        for k, lam in enumerate((0.05, 0.002, 0.02))
    ]
    fig = roc_path_figure(entries)
    curves = fig["data"][1:]
    assert [c["name"].split("λ=")[1].split("<")[0] for c in curves] == ["0.002", "0.02", "0.05"]
    for curve in curves:
        assert_roc_hull_valid(list(zip(curve["x"], curve["y"])))
    # A smaller λ never gives a smaller training AUC.
    aucs = [float(c["name"].rsplit("AUC ", 1)[1]) for c in curves]
    assert aucs == sorted(aucs, reverse=True)
