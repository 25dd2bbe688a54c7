"""The depth-two solver and the pair counts in pieces (the anytime contract on thousands of thresholds).

On many features a depth-two solve runs over ranges of root features and the pair counts over ranges of
rows of their table, yielding between them (``terminal.ONE_CALL_PAIRS``, ``counts.ONE_CALL_WORK``). The
pieces must change nothing: the same optimum, the same tree (ties broken alike), the same fronts.
"""

import numpy as np
import pytest

from solver.driver import in_pieces
from solver.streed import counts, terminal
from tests.solver.streed.conftest import make_problem, root_front, run

TASKS = ("accuracy", "cost_sensitive", "f1", "demographic_parity", "equality_of_opportunity", "policy")


def test_in_pieces_covers_every_item_once_in_order_and_sizes_pieces_by_time():
    ticks = iter(range(1000))
    seen = []

    def run_range(lo, hi):
        seen.append((lo, hi))

    # A fake clock: every piece takes one "second", far above the aim, so pieces shrink to one item.
    steps = list(in_pieces(10, run_range, first=4, clock=lambda: next(ticks)))
    assert [i for lo, hi in seen for i in range(lo, hi)] == list(range(10))
    assert len(steps) == len(seen)
    assert seen[0] == (0, 4) and all(hi - lo == 1 for lo, hi in seen[1:])
    fast = []
    list(in_pieces(100, lambda lo, hi: fast.append((lo, hi)), first=1, clock=lambda: 0.0))
    assert [hi - lo for lo, hi in fast][:4] == [1, 4, 16, 64]  # a piece at most four times the last


@pytest.fixture(scope="module")
def data():
    # Threshold-like features (nested columns, as the exact binarization of a numeric column makes) plus noise.
    rng = np.random.default_rng(5)
    n = 90
    x = rng.random((n, 3))
    cuts = np.linspace(0.05, 0.95, 12)
    X = np.hstack([(x[:, [j]] > cuts).astype(np.uint8) for j in range(3)] + [rng.integers(0, 2, (n, 4))])
    y = ((x[:, 0] > 0.4) ^ (x[:, 1] > 0.7) ^ (rng.random(n) < 0.15)).astype(np.int64)
    group = rng.integers(0, 2, n)
    outcomes = rng.normal(size=(n, 2))
    return X, y, group, outcomes, rng.uniform(0.2, 0.8, n)


def _problem(data, task):
    X, y, group, outcomes, propensity = data
    if task == "policy":
        return make_problem(X, treatment=y, outcome=outcomes[:, 0]), {"outcomes": outcomes, "propensity": propensity}
    if task in ("demographic_parity", "equality_of_opportunity"):
        return make_problem(X, y, group=group), {}
    return make_problem(X, y), {}


def _solved(data, task, depth, **switches):
    problem, options = _problem(data, task)
    params = {"objective": task, "max_depth": depth, "delta": 0.1, **switches}
    search = run(problem, params, **options)
    value, tree = search.chosen()
    return root_front(search), tuple(np.round(value, 9)), tree, search


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("depth", [2, 3])
def test_pieces_give_the_same_fronts_and_trees(data, task, depth, monkeypatch):
    monkeypatch.setattr(terminal, "KERNEL_WORK_MAX", 0)  # depth-three nodes branch into depth-two solves
    whole = _solved(data, task, depth)
    assert whole[3].solver.counters["depth_two_calls"] > 0
    monkeypatch.setattr(terminal, "ONE_CALL_PAIRS", 0)  # every depth-two solve in pieces
    monkeypatch.setattr(counts, "ONE_CALL_WORK", 0)  # every pair count in pieces
    monkeypatch.setattr(counts, "ONE_CALL_BYTES", 0)  # every copy and difference of count tables in pieces
    pieces = _solved(data, task, depth)
    assert pieces[:3] == whole[:3]
    assert pieces[3].steps > whole[3].steps  # the pieces were yielded between


def test_a_depth_two_solve_on_many_features_yields_between_pieces(data):
    # 43 features: 1,849 pairs, beyond a small one-call limit; the solve must return to the driver in between.
    problem, _ = _problem(data, "accuracy")
    search = run(problem, {"objective": "accuracy", "max_depth": 2})
    assert search.steps == 1  # one kernel call under the default limit
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(terminal, "ONE_CALL_PAIRS", 100)
        patch.setattr(counts, "ONE_CALL_WORK", 100)
        split = run(problem, {"objective": "accuracy", "max_depth": 2})
    assert split.steps > 2
    assert split.chosen()[1] == search.chosen()[1]
