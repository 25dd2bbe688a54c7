"""Runs of every algorithm stopped for real in every final state, for the page tests (issue 27, item 6).

Each result is a solve of a small file whose limits (a tiny time, node or memory limit, or a cancel at the first
progress report) stop it in that state; a failed run is stored as a worker stores one (with and without its best
model so far).
"""

import functools
import io
from dataclasses import dataclass, field

from conftest import shared_dataset
from corelsweb.runs import lifecycle
from corelsweb.runs.models import Run
from solver import pipeline, registry
from solver.api import Limits
from solver.data import ReadLimits, Roles, read_table

POLICY_CSV = b"a,b,c,d,e,f,treatment,outcome\n" + b"".join(
    (
        ",".join(str((i >> k) & 1) for k in range(6))
        + f",{i % 3},{((i >> (i % 3)) & 1) * (1 + i % 3) + (i * 7 % 11) / 10}\n"
    ).encode()
    for i in range(400)
)


@dataclass(frozen=True)
class Case:
    """An algorithm with settings that prove quickly (``easy``) and settings that cannot finish in one step."""

    algorithm: str
    filename: str
    easy: dict
    hard: dict
    roles: dict = field(default_factory=dict)
    data: bytes = None


TIC = "tic-tac-toe.csv"
SURVIVAL = {"time": "time", "event": "event"}
CASES = {
    "corels": Case("corels", TIC, {"regularization": 0.02}, {"regularization": 0.001}),
    "osdt": Case("osdt", TIC, {"regularization": 0.05}, {"regularization": 0.001}),
    "gosdt": Case("gosdt", TIC, {"regularization": 0.05}, {"regularization": 0.001}),
    "gosdt-auc": Case(
        "gosdt",
        TIC,
        {"objective": "auc", "regularization": 0.05, "max_depth": 2},
        {"objective": "auc", "regularization": 0.001},
    ),
    "rashomon": Case(
        "rashomon", "monk1.csv", {"regularization": 0.05, "max_depth": 2}, {"regularization": 0.005, "max_depth": 4}
    ),
    "streed": Case("streed", TIC, {"max_depth": 2}, {"max_depth": 6}),
    "streed-f1": Case("streed", TIC, {"objective": "f1", "max_depth": 2}, {"objective": "f1", "max_depth": 5}),
    "streed-fairness": Case(
        "streed",
        TIC,
        {"objective": "demographic_parity", "max_depth": 2},
        {"objective": "demographic_parity", "max_depth": 5},
        {"label": "target", "group": "Feat4_x"},
    ),
    "streed-policy": Case(
        "streed",
        "trial.csv",
        {"objective": "policy", "max_depth": 1, "teacher": "direct"},
        {"objective": "policy", "max_depth": 4, "teacher": "direct"},
        {"treatment": "treatment", "outcome": "outcome"},
        POLICY_CSV,
    ),
    "osst": Case(
        "osst",
        "veterans-surv.csv",
        {"regularization": 0.05, "max_depth": 2},
        {"regularization": 0.001, "max_depth": 5},
        SURVIVAL,
    ),
    "cart": Case("cart", TIC, {"max_depth": 3}, {"max_depth": 3}),
}
# How each final status is reached for real: the limits of the solve, and whether the first report cancels it.
STOPS = {
    "time_limit": (Limits(time_limit=1e-6), False),
    "node_limit": (Limits(node_limit=1), False),
    "memory_limit": (Limits(memory_limit=1), False),
    "cancelled": (Limits(time_limit=60), True),
}
STATUSES = ["optimal", *STOPS, "failed", "failed-with-model"]
# STreeD and the Rashomon search keep no count of their own arrays, so their memory limit is the process's
# resident-memory growth, which a small solve may or may not show: their memory-limit state is the node-limit
# result stored with that status.
RELABELLED = {("streed", "memory_limit"): "node_limit", ("rashomon", "memory_limit"): "node_limit"}
HOLDOUT = {"holdout": 0.25, "seed": 0}


def states(case):
    return ["heuristic", "failed"] if not registry.get(case.algorithm).proves_optimality else STATUSES


MATRIX = [(name, status) for name, case in CASES.items() for status in states(case)]


def roles_of(case):
    if case.roles:
        return dict(case.roles)
    with shared_dataset(case.filename).open("rb") as f:
        names = read_table(f, ReadLimits()).names
    return {"label": names[-1]}


@functools.cache
def solved(name, status, with_test):
    """Return the ``Result.to_dict()`` of ``CASES[name]`` stopped in ``status`` (cached: each solve runs once)."""
    case = CASES[name]
    body = case.data if case.data is not None else shared_dataset(case.filename).read_bytes()
    table = read_table(io.BytesIO(body), ReadLimits())
    evaluation = pipeline.evaluation_from_dict(HOLDOUT) if with_test else None
    prepared = pipeline.prepare(table, Roles.from_dict(roles_of(case)), case.algorithm, None, evaluation)
    reached = RELABELLED.get((case.algorithm, status), status)
    limits, cancel = STOPS.get(reached, (Limits(time_limit=60), False))
    params = case.hard if status in STOPS else case.easy
    result = pipeline.run(prepared, params, limits, (lambda point: False) if cancel else None)
    assert result.status == reached, f"{name} meant to stop in {reached} stopped in {result.status}"
    result.status = status
    return result.to_dict()


def stored_run(owner, dataset, name, status, with_test):
    """Return a run of ``CASES[name]`` made final in ``status`` the way a worker makes it final."""
    case = CASES[name]
    stopped = status in STOPS or status == "failed-with-model"
    run = Run.objects.create(
        owner=owner,
        dataset=dataset,
        algorithm=case.algorithm,
        params=registry.get(case.algorithm).clean(case.hard if stopped else case.easy),
        limits={"time_limit": 60},
        roles=dict(dataset.roles),
        binarization=registry.get(case.algorithm).binarization_for(dataset.binarization),
        evaluation=HOLDOUT if with_test else {},
        status=Run.Status.RUNNING,
    )
    if status == "failed":
        lifecycle.finish(run.pk, Run.Status.FAILED, error="The solver stopped with an internal error (ValueError).")
    elif status == "failed-with-model":
        # A search ended from outside keeps its best model, marked as stopped at the time limit.
        best = solved(name, "time_limit", with_test)
        lifecycle.finish(run.pk, Run.Status.FAILED, result=best, error="The search did not return in time.")
    else:
        result = solved(name, status, with_test)
        lifecycle.finish(run.pk, result["status"], result=result)
    run.refresh_from_db()
    return run
