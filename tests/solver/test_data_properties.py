# Check the binarization's promises on random tables (hypothesis): raw-row prediction equals binary-matrix
# prediction, exact cuts separate differing numbers, quantile cuts are exact cuts, the profile preview agrees.
import csv
import io

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from solver.data import Roles, make_problem, profile_file, read_table
from solver.data.features import preview_from_problem, preview_from_profile
from solver.data.thresholds import exact_cuts, histogram, histogram_quantiles, quantile_cuts
from solver.models import LEAF, RuleList, Tree

CELL_NUMBERS = st.one_of(
    st.none(), st.integers(-5, 5), st.floats(-100, 100, allow_nan=False).map(lambda x: round(x, 2))
)
CELL_TEXT = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d", "=cmd|x", "<i>"]))


@st.composite
def raw_tables(draw, min_rows=2, max_rows=25):
    """Return CSV bytes of a random table: numeric and text columns with missing values, and a label."""
    n = draw(st.integers(min_rows, max_rows))
    kinds = draw(st.lists(st.sampled_from(["num", "text"]), min_size=1, max_size=4))
    columns = {
        f"{kind}{j}": draw(st.lists(CELL_NUMBERS if kind == "num" else CELL_TEXT, min_size=n, max_size=n))
        for j, kind in enumerate(kinds)
    }
    columns["y"] = draw(st.lists(st.sampled_from(["no", "yes"]), min_size=n, max_size=n))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(list(columns))
    for i in range(n):
        writer.writerow(
            [
                ""
                if columns[c][i] is None
                else repr(columns[c][i])
                if isinstance(columns[c][i], float)
                else columns[c][i]
                for c in columns
            ]
        )
    return out.getvalue().encode()


def random_tree(rng, n_features, depth):
    """Return arrays of a random complete-ish tree over ``n_features`` binary features."""
    feature, left, right, prediction = [], [], [], []

    def grow(d):
        i = len(feature)
        feature.append(LEAF), left.append(LEAF), right.append(LEAF), prediction.append(int(rng.integers(0, 2)))
        if d < depth and n_features and rng.random() < 0.8:
            feature[i] = int(rng.integers(0, n_features))
            left[i] = grow(d + 1)
            right[i] = grow(d + 1)
        return i

    grow(0)
    return feature, left, right, prediction


def problem_of(data, method="exact"):
    table = read_table(data)
    return table, make_problem(table, Roles(label="y"), method)


@settings(max_examples=60, deadline=None)
@given(raw_tables(), st.integers(0, 2**31), st.sampled_from(["exact", "quantile:2"]))
def test_predicting_from_raw_rows_equals_predicting_from_the_binary_matrix(data, seed, method):
    try:
        table, problem = problem_of(data, method)
    except Exception as e:  # a random table may have no usable feature: that is a DataError, never anything else
        assert type(e).__name__ == "DataError", e
        return
    rng = np.random.default_rng(seed)
    feature, left, right, prediction = random_tree(rng, problem.n_features, 3)
    tree = Tree(feature, left, right, prediction, np.ones((len(feature), 2)), problem.features, problem.classes)
    rules = RuleList(
        rng.integers(0, problem.n_features, 3),
        rng.integers(0, 2, 3),
        1,
        np.ones((4, 2)),
        problem.features,
        problem.classes,
    )
    for model in (tree, rules):
        on_matrix = model.predict(problem.X)
        assert np.array_equal(model.predict(table.columns), on_matrix)
        # Through JSON and a fresh read of the same file, as `python -m solver predict` does.
        again = type(model).from_dict(model.to_dict())
        assert np.array_equal(again.predict(read_table(data).columns), on_matrix)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=2, max_size=40))
@example(values=[0.0, -5e-324])  # the midpoint of two adjacent subnormals rounds onto the larger one
@example(values=[1e308, 1.7e308])  # their sum overflows
def test_exact_binarization_separates_any_two_rows_that_differ_in_a_number(values):
    data = ("x,y\n" + "".join(f"{v!r},{i % 2}\n" for i, v in enumerate(values))).encode()
    table = read_table(data)
    if len(set(values)) < 2:
        return
    problem = make_problem(table, Roles(label="y"))
    X = problem.X
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if values[i] != values[j]:
                assert (X[i] != X[j]).any(), (values[i], values[j])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=60), st.integers(1, 8))
def test_quantile_cuts_are_exact_cuts_and_histogram_quantiles_match_numpy(values, k):
    values = np.array(values, dtype=np.float64)
    uniq, counts = histogram(values)
    q = np.linspace(0, 1, 7)
    assert np.allclose(histogram_quantiles(uniq, counts, q), np.quantile(values, q))
    cuts = quantile_cuts(uniq, counts, k)
    assert len(cuts) <= k and set(cuts.tolist()) <= set(exact_cuts(uniq).tolist())
    # The same picks as the direct definition: for each quantile, the nearest midpoint (the lower one on a tie).
    mids = exact_cuts(uniq)
    if len(mids) > k:
        targets = np.quantile(values, np.arange(1, k + 1) / (k + 1))
        expected = np.unique(mids[np.abs(mids[None, :] - targets[:, None]).argmin(axis=1)])
        assert np.array_equal(cuts, expected)


@settings(max_examples=40, deadline=None)
@given(raw_tables(min_rows=3), st.sampled_from(["exact", "quantile:2", "quantile:4"]))
def test_the_profile_preview_agrees_with_the_binarized_problem(data, method):
    try:
        _, problem = problem_of(data, method)
    except Exception as e:
        assert type(e).__name__ == "DataError", e
        return
    if problem.n_samples != read_table(data).n_rows:
        return  # rows were dropped (missing label): the profile counts the whole file
    light = preview_from_profile(profile_file(io.BytesIO(data)).columns, Roles(label="y"), method, problem.n_samples)
    full = preview_from_problem(problem)
    assert light["n_features"] == full["n_features"]
    assert sorted((f["text"], f["support"]) for f in light["features"]) == sorted(
        (f["text"], f["support"]) for f in full["features"]
    )


def test_every_exact_cut_lies_between_its_two_values():
    uniq = np.array([-1.7e308, -5e-324, 0.0, 5e-324, 1.0, np.nextafter(1.0, 2.0), 1e308, 1.7e308])
    cuts = exact_cuts(uniq)
    assert np.all(uniq[:-1] <= cuts) and np.all(cuts < uniq[1:])
