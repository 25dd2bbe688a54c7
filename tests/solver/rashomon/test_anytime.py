"""The anytime contract of a Rashomon run: a time limit returns the proved part of the set, with its report bounded too."""

from __future__ import annotations

import time

import numpy as np

from conftest import shared_dataset
from solver import api
from solver.driver import Limits
from solver.rashomon.report import load

from .helpers import problem

GENEROUS_SECONDS = 30  # not a timing assertion: only "does not run on for minutes past the limit"


def test_a_set_far_too_large_returns_its_proved_part_at_the_time_limit():
    # 60 rows x 18 features: the compiled graph builder counts the whole set of 50 x 14 (10^23 trees) in about
    # 2 s, so this one is larger; 18 features stop it within its first stages.
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(60, 18))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])) ^ (rng.random(60) < 0.15)
    started = time.perf_counter()
    result = api.solve(problem(X, y), "rashomon", {"regularization": 0.01, "epsilon": 2.0}, limits=Limits(time_limit=2))
    elapsed = time.perf_counter() - started - result.stats["compile_seconds"]
    extras = result.extras
    assert result.status == "time_limit"
    assert elapsed < 2 + GENEROUS_SECONDS
    assert all(isinstance(words, str) and "not computed" in words for words in extras["skipped"])
    if extras["proved_bound"] is None:  # a very slow machine: not even the optimum's trees were listed
        assert extras["count"] == 0 and extras["note"]
        return
    # The proved part: every tree up to proved_bound, counted exactly; the rest of the set is open.
    assert extras["count"] >= 1
    assert extras["optimum"] <= extras["proved_bound"] < extras["theta"]
    assert extras["open"] == [extras["proved_bound"], extras["theta"]]
    assert result.lower_bound <= result.objective == extras["optimum"]
    assert sum(cell["count"] for cell in extras["histogram"]) == extras["count"]
    if extras.get("graph"):
        s = load(extras["graph"])
        assert s.count() == extras["count"]
        assert all(float(s.objective(k)) <= extras["proved_bound"] + 1e-12 for k, _ in s.trees(limit=200))


def test_a_cancel_during_the_set_returns_its_proved_part():
    # 60 rows x 18 features: the compiled graph builder counts the whole set of 50 x 14 (10^23 trees) in about
    # 2 s, so this one is larger; 18 features stop it within its first stages.
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(60, 18))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])) ^ (rng.random(60) < 0.15)
    api.warm("rashomon")
    started = time.perf_counter()

    def on_progress(point):
        return time.perf_counter() - started < 1.5  # cancel once 1.5 s have passed

    result = api.solve(problem(X, y), "rashomon", {"regularization": 0.01, "epsilon": 2.0}, on_progress=on_progress)
    assert result.status == "cancelled"
    assert time.perf_counter() - started < 1.5 + GENEROUS_SECONDS
    extras = result.extras
    if extras["proved_bound"] is not None:
        assert extras["open"] == [extras["proved_bound"], extras["theta"]]
        assert sum(cell["count"] for cell in extras["histogram"]) == extras["count"] >= 1


def test_the_centre_reported_is_gosdts_incumbent_now_not_when_the_report_was_first_made():
    # Found on a run page: a Rashomon run stopped before its optimum showed, as "GOSDT's best so far", a single
    # leaf of objective 0.283 beside its own tree of 0.093 (the report kept the centre of its first snapshot).
    import importlib

    from solver import registry
    from solver.data import Roles, make_problem, read_file

    table = read_file(shared_dataset("tic-tac-toe.csv"))
    spec = registry.get("rashomon")
    search = importlib.import_module(spec.search_module).make_search(
        make_problem(table, Roles(label="target"), "exact"), spec.clean({"regularization": 0.001})
    )
    search.step(16)
    first = search.extras()["gosdt_optimum"]["objective"]
    for _ in range(30):
        search.step(64)
    assert search.gosdt.upper_bound < first  # GOSDT found better trees since the first report
    assert search.extras()["gosdt_optimum"]["objective"] == search.gosdt.upper_bound


# Check that a set stopped after GOSDT's proof, before its first stage, says so: its note agrees with gosdt_optimum.
def test_a_set_stopped_after_gosdts_proof_does_not_say_the_optimum_is_unproved():
    from solver.rashomon.params import ALGORITHM
    from solver.rashomon.search import RashomonSearch

    X = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 1], [0, 0]]
    search = RashomonSearch(problem(X, [0, 0, 1, 1, 0, 1]), ALGORITHM.clean({"regularization": 0.05}))
    while search.phase == "optimum":
        search.step(10_000)
    extras = search.extras()  # the set's graph is requested but not one step of it is built yet
    assert extras["count"] == 0 and extras["proved_bound"] is None
    assert extras["gosdt_optimum"]["proved"] is True
    assert "not proved" not in extras["note"].split(",")[0] and "GOSDT proved the optimum" in extras["note"]
