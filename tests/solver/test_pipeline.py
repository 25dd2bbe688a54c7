# Check the one fit pipeline: typed evaluations split as described, and a fit is scored and exportable.
import numpy as np
import pytest

from conftest import shared_dataset
from solver import export, pipeline
from solver.api import Limits
from solver.data import DataError, Roles, read_file


@pytest.fixture(scope="module")
def monk():
    return read_file(shared_dataset("monk1.csv"))


def test_a_holdout_is_scored_on_rows_it_was_not_fitted_on(monk):
    roles = Roles(label=monk.names[-1])
    result = pipeline.fit(monk, roles, "streed", {"max_depth": 2}, Limits(60), evaluation=pipeline.Holdout(0.25, 3))
    assert result.holdout["description"] == "25% held out (stratified, seed 3)"
    assert result.holdout["n_samples"] + result.problem["n_samples"] == monk.n_rows
    assert 0 <= result.holdout["metrics"]["accuracy"] <= 1
    assert result.test_vectors and result.params["objective"] == "accuracy"


def test_the_folds_partition_the_rows(monk):
    roles = Roles(label=monk.names[-1])
    sizes = [
        pipeline.prepare(monk, roles, "cart", evaluation=pipeline.Fold(4, f), warm=False).test.n_rows for f in range(4)
    ]
    assert sum(sizes) == monk.n_rows and max(sizes) - min(sizes) <= 2


def test_a_test_file_trains_on_every_row(monk):
    roles = Roles(label=monk.names[-1])
    prepared = pipeline.prepare(monk, roles, "cart", evaluation=pipeline.TestTable(monk, "same.csv"), warm=False)
    assert prepared.problem.n_samples == monk.n_rows and prepared.description == "test file same.csv"


def test_stored_evaluations_read_back_typed():
    assert pipeline.evaluation_from_dict({"holdout": 0.2, "seed": 1}) == pipeline.Holdout(0.2, 1)
    assert pipeline.evaluation_from_dict({"kfold": 5, "fold": 2}) == pipeline.Fold(5, 2, 0)
    assert pipeline.evaluation_from_dict({}) is None
    assert pipeline.Holdout(0.2, 1).to_dict() == {"holdout": 0.2, "seed": 1}


def test_the_algorithm_default_binarization_applies(monk):
    # CORELS mines from quantile:8 unless told otherwise; a numeric column shows it (monk1's are small integers).
    table = read_file(shared_dataset("bank.csv"))
    roles = Roles(label="label")
    assert pipeline.prepare(table, roles, "corels", warm=False).problem.binarization["method"] == "quantile:8"
    assert pipeline.prepare(table, roles, "streed", warm=False).problem.binarization["method"] == "exact"
    with pytest.raises(DataError):
        pipeline.prepare(table, roles, "streed", "quantile:0", warm=False)


def test_exports_go_through_one_function(monk):
    result = pipeline.fit(monk, Roles(label=monk.names[-1]), "cart", {"max_depth": 2})
    for fmt in export.EXPORT_FORMATS:
        text, media, extension = export.render(result.model, fmt, result.test_vectors)
        assert text and "/" in media and extension
    with pytest.raises(ValueError):
        export.render(result.model, "xml")
    assert np.isfinite(result.objective)


def test_kernels_compiled_while_preparing_count_as_the_fits_compilation(monk, monkeypatch):
    # A worker still warming up compiles (or waits for its warm-up thread) while preparing a run: the run page's
    # "compilation" must include it, or a run that took minutes reads "0.00 s compilation" (found by a QA pass).
    from solver import api

    real = api.warm
    monkeypatch.setattr(api, "warm", lambda algorithm, config=None: real(algorithm, config) + 2.5)
    prepared = pipeline.prepare(monk, Roles(label=monk.names[-1]), "cart")
    assert prepared.warm_seconds >= 2.5
    result = pipeline.run(prepared, {"max_depth": 2}, Limits(60))
    assert result.stats["compile_seconds"] >= prepared.warm_seconds
