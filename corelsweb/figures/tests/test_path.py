# Check the path's frontier: score against mean leaves per λ, for the path's algorithm and its stored CART baseline.
import json

from corelsweb.figures.path import frontier_figure


def row(lam, leaves, train, valid, cart=None, folds_done=3):
    return {
        "lambda": lam,
        "folds_done": folds_done,
        "leaves_mean": leaves,
        "train_mean": train,
        "valid_mean": valid,
        "valid_std": 0.01,
        "cart": cart,
    }


SUMMARY = [
    row(0.2, 1.0, 0.60, 0.58, {"leaves_mean": 1.0, "train_mean": 0.60, "valid_mean": 0.58}),
    row(0.01, 6.0, 0.95, 0.90, {"leaves_mean": 7.0, "train_mean": 0.90, "valid_mean": 0.84}),
    row(0.05, 3.0, 0.85, 0.83, {"leaves_mean": 2.5, "train_mean": 0.70, "valid_mean": 0.66}),
    row(0.1, None, None, None, folds_done=0),  # not started: no point
]


def test_it_draws_training_and_validation_of_both_algorithms_by_leaves():
    fig = frontier_figure(json.loads(json.dumps(SUMMARY)), "gosdt", "accuracy")
    by_name = {d["name"]: d for d in fig["data"]}
    assert list(by_name) == ["gosdt validation", "gosdt training", "CART validation", "CART training"]
    assert by_name["gosdt validation"]["x"] == [1.0, 3.0, 6.0]
    assert by_name["gosdt validation"]["y"] == [0.58, 0.83, 0.90]
    assert by_name["gosdt training"]["y"] == [0.60, 0.85, 0.95]
    assert by_name["gosdt validation"]["customdata"] == [0.2, 0.05, 0.01]
    assert by_name["CART validation"]["x"] == [1.0, 2.5, 7.0]
    assert by_name["CART validation"]["y"] == [0.58, 0.66, 0.84]
    assert by_name["CART training"]["y"] == [0.60, 0.70, 0.90]
    assert by_name["CART training"]["customdata"] == [0.2, 0.05, 0.01]
    assert all("λ=%{customdata:g}" in d["hovertemplate"] for d in fig["data"])
    assert fig["layout"]["xaxis"]["title"]["text"].startswith("leaves")


def test_a_path_without_a_baseline_draws_only_its_own_points():
    fig = frontier_figure([{**r, "cart": None} for r in SUMMARY], "cart", "balanced accuracy")
    assert [d["name"] for d in fig["data"]] == ["cart validation", "cart training"]


def test_it_escapes_the_labels():
    fig = frontier_figure(SUMMARY, "<b>x</b>", "<i>metric</i>")
    assert fig["data"][0]["name"] == "&lt;b&gt;x&lt;/b&gt; validation"
    assert "<" not in fig["layout"]["yaxis"]["title"]["text"]
