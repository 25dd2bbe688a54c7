# Check issue 19's first defect: the same data and parameters give the same optimum on every surface, because every
# surface takes each algorithm's default binarization from the registry.
import json
import subprocess
import sys

import pandas as pd
import pytest

from conftest import shared_dataset
from solver import registry, sklearn

ESTIMATORS = {
    "cart": sklearn.CARTClassifier,
    "corels": sklearn.CorelsClassifier,
    "osdt": sklearn.OSDTClassifier,
    "gosdt": sklearn.GOSDTClassifier,
    "streed": sklearn.STreeDClassifier,
    "osst": sklearn.OSSTSurvivalTree,
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimators_default_to_the_registry_binarization(name):
    estimator = ESTIMATORS[name]()
    assert estimator.binarize is None
    assert sklearn.binarization(estimator) == registry.get(name).binarization
    assert sklearn.binarization(sklearn.STreeDPolicyTree()) == registry.get("streed").binarization


def test_cli_and_estimator_find_the_same_streed_optimum_on_compas(tmp_path):
    # compas-gosdt.csv, depth 3: the CLI's tree made 2,171 errors and STreeDClassifier's 2,187 (quantile:16).
    path = shared_dataset("compas-gosdt.csv")
    out = tmp_path / "result.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "solver",
            "fit",
            str(path),
            "--algorithm",
            "streed",
            "--param",
            "max_depth=3",
            "--out",
            str(out),
            "--quiet",
        ],
        check=True,
    )
    cli = json.loads(out.read_text())
    frame = pd.read_csv(path)
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1].to_numpy()
    estimator = sklearn.STreeDClassifier(max_depth=3).fit(X, y)
    errors = int((estimator.predict(X) != y).sum())
    assert cli["params"]["objective"] == "accuracy" and cli["status"] == "optimal"
    assert errors == round(cli["objective"] * len(y)) == 2171


def test_the_web_resolves_the_dataset_default_per_algorithm(alice):
    # A dataset left on "each algorithm's default" runs CORELS on quantile:8 and the others exactly, as the CLI does.
    from corelsweb.runs.services import new_run
    from tests.factories import make_dataset

    dataset = make_dataset(alice)
    assert dataset.binarization == ""
    assert new_run(alice, dataset, "corels", {}, {}).binarization == "quantile:8"
    assert new_run(alice, dataset, "streed", {}, {}).binarization == "exact"
    dataset.binarization = "quantile:4"
    assert new_run(alice, dataset, "corels", {}, {}).binarization == "quantile:4"
