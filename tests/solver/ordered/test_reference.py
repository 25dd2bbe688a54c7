"""Raw numeric data against ConTree: pycontree's optima on subsamples, and the certified optima of the shared files.

``../shared/datasets/README.md`` ("Raw numeric data") lists certified optimal training misclassifications.
ConTree reads values as float32 and merges values within 1e-7 of the previous one (spec ``contree.md``
§2.1); where that merges values of different classes (segment, wilt; occupancy's merges share a class) an
exact float64 search may find fewer errors, and reproducing the quantisation gives its numbers back.
"""

import zlib

import numpy as np
import pandas as pd
import pytest

from conftest import shared_dataset
from solver.api import Limits, solve
from solver.data import read_file
from solver.data.binarize import Roles, make_problem
from solver.data.table import Table

CERTIFIED = {  # (file, depth) -> certified optimal misclassifications
    ("bank", 2): 82,
    ("raisin", 2): 91,
    ("bank", 3): 19,
    ("raisin", 3): 76,
    ("rice", 3): 189,
    ("wilt", 3): 18,
    ("occupancy", 3): 47,
    ("segment", 3): 208,
    ("page", 3): 125,
    ("eeg", 3): 3495,
    ("bank", 4): 0,
    ("wilt", 4): 2,
    ("occupancy", 4): 26,
    ("segment", 4): 76,
    ("page", 4): 91,
}
MERGED = ("segment", "wilt", "occupancy")  # the reference's quantisation merges values here
SLOW = {("rice", 3), ("eeg", 3), ("occupancy", 4), ("segment", 4), ("page", 4)}


def frame(name):
    data = pd.read_csv(shared_dataset(f"{name}.csv"))
    return data.drop(columns=["label"]), data["label"].to_numpy()


def reference_quantized(X):
    """Return ``X`` as ConTree sees it: float32, and each value merged into its predecessor's when within 1e-7.

    The chain runs over the sorted values (the rank rises when a value exceeds the previous row's by at least
    1e-7f, compared in double precision, as ``dataset.cpp`` does); each merged group takes its smallest value.
    """
    out = np.empty_like(np.asarray(X, dtype=np.float64))
    for j in range(X.shape[1]):
        v = np.asarray(X)[:, j].astype(np.float32).astype(np.float64)
        order = np.argsort(v, kind="stable")
        sorted_v = v[order]
        new = np.concatenate([[True], np.diff(sorted_v) >= np.float64(np.float32(1e-7))])
        group = np.cumsum(new) - 1
        first = sorted_v[new]
        out[order, j] = first[group]
    return out


def our_errors(X, y, depth, time_limit=600):
    """Return the misclassifications of our optimal depth-``depth`` tree on the raw columns (STreeD, exact)."""
    columns = {f"x{j}": np.asarray(X, dtype=np.float64)[:, j] for j in range(X.shape[1])}
    columns["label"] = np.array([str(v) for v in y], dtype=object)
    problem = make_problem(Table(columns), Roles(label="label"))
    result = solve(problem, "streed", {"max_depth": depth, "threshold_search": "ordered"}, Limits(time_limit))
    assert result.status == "optimal"
    errors = int(round(result.objective * problem.n_samples))
    assert int((result.model.predict(columns) != problem.y).sum()) == errors
    return errors


def contree_errors(X, y, depth):
    from pycontree import ConTree

    model = ConTree(max_depth=depth, time_limit=600).fit(pd.DataFrame(X), y)
    return int((model.predict(pd.DataFrame(X)) != y).sum())


CASES = [
    pytest.param(name, depth, marks=[pytest.mark.slow] if (name, depth) in SLOW else []) for name, depth in CERTIFIED
]


@pytest.mark.parametrize(("name", "depth"), CASES)
def test_certified_optimum(name, depth):
    # Check the certified optimum: equal on the raw values, or on the files whose values the reference merges,
    # at most it, and equal with its quantisation reproduced.
    X, y = frame(name)
    errors = our_errors(X.to_numpy(), y, depth)
    if name in MERGED:
        assert errors <= CERTIFIED[name, depth]
        assert our_errors(reference_quantized(X.to_numpy()), y, depth) == CERTIFIED[name, depth]
    else:
        assert errors == CERTIFIED[name, depth]


@pytest.mark.reference
@pytest.mark.parametrize("name", ["bank", "raisin", "rice", "wilt", "occupancy", "segment", "page", "eeg"])
@pytest.mark.parametrize("depth", [2, 3])
def test_same_optimum_as_pycontree_on_subsamples(name, depth):
    # Check pycontree on random subsamples of rows and columns (seeded), with its quantisation reproduced.
    X, y = frame(name)
    rng = np.random.default_rng(zlib.crc32(f"{name}:{depth}".encode()))
    for _ in range(3):
        rows = rng.choice(len(y), size=min(len(y), 250), replace=False)
        cols = rng.choice(X.shape[1], size=min(X.shape[1], 4), replace=False)
        sub, labels = X.to_numpy()[np.ix_(rows, cols)], y[rows]
        reference = contree_errors(sub, labels, depth)
        assert our_errors(reference_quantized(sub), labels, depth) == reference
        assert our_errors(sub, labels, depth) <= reference


AGREEMENT = [
    ("bank", "exact", 2),
    ("raisin", "exact", 2),
    ("bank", "quantile:64", 3),
    ("wilt", "quantile:16", 3),
    ("segment", "quantile:8", 3),
    ("page", "quantile:8", 3),
    ("eeg", "quantile:4", 2),
    ("monk1", "none", 4),
    ("monk2", "none", 3),
    ("monk3", "none", 4),
    ("tic-tac-toe", "none", 3),
    ("car-evaluation", "none", 3),
    ("compas-osdt-binary", "none", 3),
    ("hypothyroid", "none", 3),
]


@pytest.mark.parametrize(("name", "method", "depth"), AGREEMENT)
def test_ordered_and_binary_searches_agree(name, method, depth):
    # Check today's exact-binarization path (0/1 features, bitset pair counts) against the ordered path, on
    # the shared numeric and binary files where both finish.
    table = read_file(shared_dataset(f"{name}.csv"))
    problem = make_problem(table, Roles(label=table.names[-1]), method)
    values = {
        search: solve(problem, "streed", {"max_depth": depth, "threshold_search": search}, Limits(600))
        for search in ("ordered", "binary")
    }
    assert all(r.status == "optimal" for r in values.values())
    assert values["ordered"].objective == pytest.approx(values["binary"].objective, abs=1e-12)
