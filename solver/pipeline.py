"""The one way a raw table becomes a fitted, scored ``Result``: the command line, the web's runs and λ paths use it.

``fit(table, roles, algorithm, params, limits, binarization, evaluation)`` is ``run(prepare(...))``:

``prepare``
    splits the rows for the evaluation (``Holdout``, ``Fold`` or a ``TestTable``), binarizes the training
    rows (the algorithm's default binarization from the registry unless one is given) and compiles the
    algorithm's kernels. The web does this in the supervising process, before it forks the solve.
``run``
    solves, attaches the test vectors of the exports and scores the model on the test rows.

Errors that are the data's or the settings' fault are ``DataError``, ``ParameterError`` or ``ProblemError``,
each one plain sentence.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from solver import api, export, metrics, registry
from solver.registry import ParameterError
from solver.timing import Stopwatch
from solver.data.binarize import make_problem
from solver.data.evaluation import holdout_rows, kfold_rows, problem_like, stratify_by
from solver.data.table import DataError


@dataclass(frozen=True)
class Holdout:
    """A stratified random ``fraction`` of the rows held out for testing."""

    fraction: float
    seed: int = 0

    def split(self, table, roles):
        train, test = holdout_rows(table.n_rows, self.fraction, self.seed, stratify_by(table, roles))
        return table.take(train), table.take(test), f"{self.fraction:.0%} held out (stratified, seed {self.seed})"

    def to_dict(self):
        return {"holdout": self.fraction, "seed": self.seed}


@dataclass(frozen=True)
class Fold:
    """Fold ``fold`` (0-based) of a stratified ``k``-fold split held out for testing."""

    k: int
    fold: int
    seed: int = 0

    def split(self, table, roles):
        train, test = kfold_rows(table.n_rows, self.k, self.fold, self.seed, stratify_by(table, roles))
        return table.take(train), table.take(test), f"fold {self.fold + 1} of {self.k} (stratified, seed {self.seed})"

    def to_dict(self):
        return {"kfold": self.k, "fold": self.fold, "seed": self.seed}


@dataclass(frozen=True)
class TestTable:
    """Every row trains; the rows of another table, named ``name``, test."""

    __test__ = False  # not a pytest class, despite the name

    table: object
    name: str

    def split(self, table, roles):
        return table, self.table, f"test file {self.name}"


def evaluation_from_dict(d, test_table=None):
    """Return the typed evaluation of a stored dict (``{"holdout", "seed"}``, ``{"kfold", "fold", "seed"}``).

    ``test_table``: ``(table, name)`` when the evaluation names a test file (read by the caller).
    """
    d = d or {}
    if test_table is not None:
        return TestTable(*test_table)
    if d.get("kfold"):
        return Fold(int(d["kfold"]), int(d.get("fold") or 0), int(d.get("seed") or 0))
    if d.get("holdout"):
        return Holdout(float(d["holdout"]), int(d.get("seed") or 0))
    return None


@dataclass
class Prepared:
    """A fit ready to solve: the binarized training problem and the raw rows to test and export with."""

    algorithm: str
    roles: object
    problem: object
    train: object
    test: object
    description: str
    warm_seconds: float = 0.0  # compiling (or waiting for another thread to compile) the kernels here
    prepare_seconds: float = 0.0  # splitting and binarizing the rows
    stopwatch: Stopwatch | None = None  # the fit's clock (``solver.timing``), lapped on by ``run``


def _config(spec, params):
    # Invalid parameters are reported by the solve; here they only mean "compile every kernel".
    try:
        return None if params is None else spec.clean(params)
    except ParameterError:
        return None


def prepare(table, roles, algorithm, binarization=None, evaluation=None, warm=True, stopwatch=None, params=None):
    """Split, binarize and (``warm``) compile what a fit with ``params`` uses (every kernel: None): return a ``Prepared``.

    ``stopwatch``: the fit's clock so far (the caller lapped ``reading``); without one, one started here.
    """
    watch = stopwatch or Stopwatch()
    spec = registry.get(algorithm)
    start = time.perf_counter()
    train, test, description = evaluation.split(table, roles) if evaluation is not None else (table, None, "")
    problem = make_problem(train, roles, spec.binarization_for(binarization))
    prepare_seconds = time.perf_counter() - start
    watch.lap("preparing")
    warm_seconds = api.warm(algorithm, _config(spec, params)) if warm else 0.0
    watch.lap("compiling")
    return Prepared(algorithm, roles, problem, train, test, description, warm_seconds, prepare_seconds, watch)


def run(prepared, params=None, limits=None, on_progress=None, on_incumbent=None):
    """Solve a ``Prepared`` fit; return its ``Result`` with test vectors and, with test rows, test metrics.

    ``result.timing`` splits the fit's time from the start of ``prepared.stopwatch`` (``solver.timing``).
    """
    watch = prepared.stopwatch or Stopwatch()
    start = time.perf_counter()
    # A 0/1 search's thresholds thinned to its memory budget here (the solve's first lap counts it as
    # preparing), so that what reads the search's features afterwards (the Rashomon set's test votes) reads
    # the ones it searched.
    prepared.problem = api.within_budget(prepared.problem, prepared.algorithm, params, limits)
    prepared.prepare_seconds += time.perf_counter() - start
    result = api.solve(prepared.problem, prepared.algorithm, params, limits, on_progress, on_incumbent, watch)
    # The kernels compiled while preparing count as this fit's compilation (a worker still warming up).
    result.stats["compile_seconds"] = result.stats.get("compile_seconds", 0.0) + prepared.warm_seconds
    result.stats["prepare_seconds"] = prepared.prepare_seconds
    start = time.perf_counter()
    result.test_vectors = export.test_vectors(result.model, prepared.train)
    if prepared.test is not None:
        result.holdout = score(result.model, prepared)
        if result.algorithm == "rashomon":  # the set's own votes on the test rows (per-row disagreement)
            from solver.rashomon.report import test_votes

            try:
                limit = (limits or api.Limits()).time_limit
                deadline = None if limit is None else time.perf_counter() + api.POST_SEARCH_SECONDS
                result.extras["test_votes"] = test_votes(
                    result.extras, prepared.problem, prepared.test, prepared.roles, deadline, result.live.get("set")
                )
            except (DataError, KeyError) as e:
                result.extras["test_votes"] = {"error": str(e).strip("'\"")}
    result.stats["evaluate_seconds"] = time.perf_counter() - start  # test vectors and test rows
    watch.lap("evaluating")
    result.timing = watch.split()
    return result


def score(model, prepared):
    """Return ``Result.holdout`` of ``model`` on the prepared test rows (a problem with them is reported, not raised)."""
    test = prepared.test
    narrow, _ = model.narrowed()  # only the model's splits are evaluated on the test rows
    try:
        return {
            "description": prepared.description,
            "n_samples": test.n_rows,
            "metrics": metrics.evaluate(narrow, problem_like(prepared.problem, test, prepared.roles, narrow.features)),
        }
    except (DataError, KeyError) as e:
        return {"description": prepared.description, "n_samples": test.n_rows, "error": str(e).strip("'\"")}


def fit(table, roles, algorithm, params=None, limits=None, binarization=None, evaluation=None, on_progress=None):
    """Fit ``algorithm`` to a raw ``table`` under ``roles``; return the scored ``Result``."""
    return run(prepare(table, roles, algorithm, binarization, evaluation), params, limits, on_progress)
