# Check the survival figures built from a stored OSST result: matching colours, valid curves, at-risk counts.
import json

import numpy as np
import pytest

from corelsweb.figures import model_figure, panels_for_result
from corelsweb.figures.common import class_color
from corelsweb.figures.survival import at_risk_at, km_figure, leaf_name, leaf_order
from solver.api import solve
from solver.testing import assert_bound_trace_valid, assert_survival_curve_valid
from tests.solver.osst.conftest import load_problem


@pytest.fixture(scope="module")
def stored():
    problem = load_problem("veterans")
    result = solve(problem, "osst", {"max_depth": 3, "regularization": 0.001, "min_samples_leaf": 1})
    return json.loads(json.dumps(result.to_dict())), problem


def test_the_run_page_gets_curves_composition_metrics_and_trace_panels(stored):
    result, _ = stored
    ids = [p["id"] for p in panels_for_result(result)]
    assert ids[:4] == ["km", "leaf-composition", "survival-metrics", "brier"] and "trace" in ids
    trace = next(p for p in panels_for_result(result) if p["id"] == "trace")
    assert trace["figure"]["data"][0]["y"]
    assert_bound_trace_valid(result["trace"], result["status"])


def test_each_leaf_curve_has_the_colour_of_its_leaf_in_the_tree(stored):
    result, _ = stored
    model = result["model"]
    tree = model_figure(result)
    leaf_boxes = {
        a["text"].split("<b>")[1].split("</b>")[0]: a["bordercolor"]
        for a in tree["layout"]["annotations"]
        if a["text"].startswith("<b>leaf ")
    }
    lines = [t for t in km_figure(model)["data"] if t.get("mode") == "lines" and t.get("showlegend", True)]
    assert len(lines) == len(leaf_boxes) == 8
    colors = set()
    for line in lines:
        label = line["name"].split(" (")[0]
        assert line["line"]["color"] == leaf_boxes[label]
        colors.add(line["line"]["color"])
    assert len(colors) == 8  # distinct leaf numbers give distinct colours
    for leaf in leaf_order(model):  # leaves are named 1, 2, ... as drawn, on both figures
        assert class_color(model["prediction"][leaf]) == leaf_boxes[leaf_name(model, leaf)]


def test_stored_curves_are_valid_and_are_the_leaves_kaplan_meier_curves(stored):
    result, problem = stored
    model = result["model"]
    from solver.models import Tree

    tree = Tree.from_dict(model)
    leaf_of_row = tree.apply(problem.X)
    for key, curve in model["curves"].items():
        assert_survival_curve_valid(curve)
        rows = leaf_of_row == int(key)
        assert curve["at_risk"][0] == rows.sum() == model["counts"][int(key)][0]
        assert sum(curve["events"]) == problem.event[rows].sum() == model["counts"][int(key)][1]


def test_at_risk_table_counts_the_rows_observed_at_or_after_each_time(stored):
    result, problem = stored
    model = result["model"]
    from solver.models import Tree

    leaf_of_row = Tree.from_dict(model).apply(problem.X)
    figure = km_figure(model)
    tables = [t for t in figure["data"] if t.get("yaxis") == "y2"]
    for row, leaf in enumerate(leaf_order(model)):
        times = problem.time[leaf_of_row == leaf]
        assert tables[row]["text"] == [str(int((times >= t).sum())) for t in tables[row]["x"]]
        assert at_risk_at(model["curves"][str(leaf)], float(times.max()) + 1) == 0


def test_band_menu_switches_only_band_traces(stored):
    result, _ = stored
    figure = km_figure(result["model"])
    bands = [i for i, t in enumerate(figure["data"]) if t.get("meta") == "band"]
    for button in figure["layout"]["updatemenus"][0]["buttons"]:
        visible, indices = button["args"]
        assert indices == bands and len(visible["visible"]) == len(bands)
    small = [figure["data"][i]["visible"] for i in bands]
    assert not all(small) and any(small)  # the tiny leaves' bands start hidden


def test_a_single_leaf_result_still_draws(stored):
    problem = load_problem("veterans")
    result = solve(problem, "osst", {"max_depth": 2, "regularization": 0.5}).to_dict()
    assert result["model"]["feature"] == [-1]
    figure = km_figure(result["model"])
    line = next(t for t in figure["data"] if t.get("mode") == "lines" and t.get("showlegend", True))
    assert line["y"][0] == 1.0 and np.all(np.diff(line["y"]) <= 0)


def test_the_brier_curve_integrates_to_the_training_ibs(stored):
    result, _ = stored
    curve = result["extras"]["brier_curve"]
    time = np.array(curve["time"])
    for key, metric in (("tree", "ibs"), ("root", "root_ibs")):
        area = (np.array(curve[key])[:-1] * np.diff(time)).sum() / (time[-1] - time[0])
        assert area == pytest.approx(result["metrics"][metric], abs=1e-15)


def test_leaf_names_match_the_figures_labels(stored):
    result, problem = stored
    from solver.models import Tree

    tree = Tree.from_dict(result["model"])
    leaves = tree.apply(problem.X)
    assert [tree.classes[p] for p in tree.predict(problem.X)] == [f"leaf {i}" for i in leaves]
