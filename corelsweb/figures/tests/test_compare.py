# Check the multi-run bound comparison: one colour per run, upper solid and lower dashed, nodes in the hover.
import json

import pytest

from corelsweb.figures.compare import run_labels, trace_comparison_figure
from solver.testing import assert_bound_trace_valid


def fake(algorithm, lam, lower, upper, nodes):
    n = len(lower)
    return {
        "algorithm": algorithm,
        "params": {"regularization": lam},
        "trace": {"elapsed": [0.5 * i for i in range(n)], "lower_bound": lower, "upper_bound": upper, "nodes": nodes},
    }


def test_it_draws_both_bounds_of_every_run_in_one_colour():
    runs = [
        fake("osdt", 0.005, [None, 0.30, 0.33, 0.356], [0.40, 0.36, 0.356, 0.356], [0, 100, 2000, 4065]),
        fake("gosdt", 0.005, [0.20, 0.356], [0.36, 0.356], [0, 50]),
    ]
    for run in runs:
        assert_bound_trace_valid(run["trace"], "optimal")
    fig = trace_comparison_figure(runs)
    lines = [d for d in fig["data"] if d["mode"] == "lines"]
    assert [d["name"] for d in lines] == [
        "osdt upper bound",
        "osdt lower bound",
        "gosdt upper bound",
        "gosdt lower bound",
    ]
    assert lines[0]["line"]["color"] == lines[1]["line"]["color"] != lines[2]["line"]["color"]
    assert [d["line"]["dash"] for d in lines] == ["solid", "dash", "solid", "dash"]
    # missing points are skipped, and the hover carries the nodes evaluated
    assert lines[1]["x"] == [0.5, 1.0, 1.5] and lines[1]["customdata"] == [100, 2000, 4065]
    assert all("nodes" in d["hovertemplate"] for d in fig["data"])
    stars = [d for d in fig["data"] if d["mode"] == "markers"]
    assert [(s["x"][0], s["y"][0]) for s in stars] == [(1.0, 0.356), (0.5, 0.356)]
    json.dumps(fig)


def test_labels_name_lambda_only_when_runs_differ_and_number_repeats():
    runs = [
        fake("osdt", 0.01, [0.1], [0.2], [1]),
        fake("osdt", 0.005, [0.1], [0.2], [1]),
        fake("osdt", 0.005, [0.1], [0.2], [1]),
    ]
    assert run_labels(runs) == ["osdt λ=0.01", "osdt λ=0.005 #1", "osdt λ=0.005 #2"]
    assert run_labels(runs[:1]) == ["osdt"]


def test_it_escapes_names_and_survives_empty_traces():
    fig = trace_comparison_figure([{"algorithm": "<b>x</b>", "trace": {}}], title="a<b")
    assert fig["data"] == [] and fig["layout"]["title"]["text"] == "a&lt;b"
    fig = trace_comparison_figure([fake("<i>", 0.1, [0.1], [0.2], [3])])
    assert fig["data"][0]["name"] == "&lt;i&gt; upper bound"


@pytest.mark.parametrize("policy", ["curiosity", "lower_bound"])
def test_it_draws_real_osdt_runs(policy):
    from solver import solve
    from solver.data import Roles, make_problem, read_file
    from conftest import shared_dataset

    table = read_file(shared_dataset("monk1.csv"))
    result = solve(
        make_problem(table, Roles(label=table.names[-1]), "none"), "osdt", {"regularization": 0.025, "policy": policy}
    ).to_dict()
    fig = trace_comparison_figure([result, result])
    upper = fig["data"][0]
    assert upper["name"] == "osdt #1 upper bound" and upper["y"][-1] == pytest.approx(0.2)
    assert upper["customdata"][-1] == result["stats"]["nodes"]
