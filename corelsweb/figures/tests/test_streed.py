# Check the STreeD panels: the root front with the reported point, a tree per point behind a drop-down, policy bars.
import json

import numpy as np

from corelsweb.figures import panels_for_result
from solver.api import solve
from solver.problem import Problem
from solver.testing import assert_bound_trace_valid


def problem(**roles):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (60, 4)).astype(np.uint8)
    features = [{"kind": "binary", "column": f"<b>x{j}</b>"} for j in range(4)]
    y = (X[:, 0] ^ (rng.random(60) < 0.2)).astype(np.int64)
    return Problem(X=X, features=features, y=y, classes=["no", "<i>yes</i>"], **roles)


def panels(result):
    return {p["id"]: p for p in panels_for_result(json.loads(json.dumps(result.to_dict())))}


def test_it_draws_the_f1_front_with_one_tree_per_point():
    result = solve(problem(), "streed", {"objective": "f1", "max_depth": 2})
    assert_bound_trace_valid(result.trace, result.status)
    shown = panels(result)
    front = shown["streed-front"]["figure"]
    points = result.extras["front"]
    assert len(front["data"][0]["x"]) == len(points)
    fn = [p["values"]["FN"] for p in points]
    fp = [p["values"]["FP"] for p in points]
    assert fn == sorted(fn) and fp == sorted(fp, reverse=True)  # a staircase: FP falls as FN grows
    assert front["data"][1]["name"] == "reported tree"
    trees = shown["streed-front-trees"]["figure"]
    buttons = trees["layout"]["updatemenus"][0]["buttons"]
    assert len(buttons) == len(points)
    assert sum(trees["data"][k]["visible"] for k in range(len(trees["data"]))) == 2  # one tree (edges + nodes)
    text = json.dumps(trees)
    assert "<b>x" not in text and "&lt;b&gt;x" in text  # feature names are escaped


def test_it_draws_the_fairness_front_with_the_delta_line():
    rng = np.random.default_rng(1)
    result = solve(
        problem(group=rng.integers(0, 2, 60)),
        "streed",
        {"objective": "demographic_parity", "max_depth": 2, "delta": 0.05},
    )
    front = panels(result)["streed-front"]["figure"]
    assert front["layout"]["shapes"][0]["y0"] == 0.05
    chosen = [p for p in result.extras["front"] if p["chosen"]][0]
    assert chosen["values"]["discrimination"] <= 0.05 + 1e-12
    assert chosen["values"]["misclassifications"] == min(
        p["values"]["misclassifications"] for p in result.extras["front"]
    )


def test_it_compares_the_policy_with_treating_everyone_alike():
    rng = np.random.default_rng(2)
    p = problem(treatment=rng.integers(0, 2, 60), treatments=["a", "<b>b</b>"], outcome=rng.normal(size=60))
    result = solve(p, "streed", {"objective": "policy", "max_depth": 2, "teacher": "direct"})
    bars = panels(result)["streed-policy"]["figure"]["data"][0]
    assert bars["x"] == ["tree", "all a", "all &lt;b&gt;b&lt;/b&gt;"]
    assert bars["y"][0] >= max(bars["y"][1:]) - 1e-9  # the optimal policy beats every constant one


def test_it_draws_the_capacity_constrained_policy_front():
    rng = np.random.default_rng(4)
    p = problem(treatment=rng.integers(0, 2, 60), treatments=["none", "<i>drug</i>"], outcome=rng.normal(size=60))
    result = solve(
        p,
        "streed",
        {
            "objective": "policy",
            "max_depth": 2,
            "teacher": "direct",
            "capacity": 0.25,
            "reference_treatment": "<i>drug</i>",
        },
    )
    chosen = [q for q in result.extras["front"] if q["chosen"]][0]
    assert chosen["values"]["treated_share"] <= 0.25
    assert result.extras["capacity"] == 0.25
    assert result.extras["reference_treatment"] == "<i>drug</i>"  # "none" is what uses capacity here
    treated = (result.model.predict(p.X) != 1).mean()
    assert treated == chosen["values"]["treated_share"]
    shown = panels(result)
    assert "any treatment but <i>drug</i>" in shown["streed-front"]["note"]  # raw: the page template escapes it
    front = shown["streed-front"]["figure"]
    assert front["layout"]["xaxis"]["title"]["text"] == "Share of rows treated"
    assert chosen["values"]["treated_share"] in front["data"][0]["x"]
    assert "streed-policy" in shown
    assert "<i>drug" not in json.dumps(shown["streed-front-trees"]["figure"])  # treatment names escaped
