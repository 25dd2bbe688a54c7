# The time split of a fit: consecutive stages on one clock that sum to the total, for every algorithm.
import json

import pytest
from conftest import shared_dataset

from solver import cli, registry, timing
from solver.timing import STAGE_NAMES, Stopwatch


class FakeClock:
    """A clock the test moves by hand, so that every lap has a known length."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_laps_follow_one_another_and_sum_to_the_total():
    clock = FakeClock()
    watch = Stopwatch(clock)
    clock.now += 2.0
    assert watch.lap("reading") == 2.0
    clock.now += 0.5
    watch.lap("searching")
    clock.now += 0.25
    watch.lap("searching")  # a stage lapped twice adds up
    split = watch.split(queued=3.0)
    assert split["stages"] == {**dict.fromkeys(STAGE_NAMES, 0.0), "queued": 3.0, "reading": 2.0, "searching": 0.75}
    assert split["total_seconds"] == 5.75
    assert list(split["stages"]) == list(STAGE_NAMES)  # every stage, in the order a run goes through them


def test_a_stopwatch_goes_to_another_process_and_on():
    clock = FakeClock()
    watch = Stopwatch(clock)
    clock.now += 1.0
    watch.lap("preparing")
    state = json.loads(json.dumps(watch.state()))  # what a pipe or a spool carries
    clock.now += 4.0
    other = Stopwatch.from_state(state, clock)
    other.lap("storing")
    assert other.split()["stages"]["storing"] == 4.0 and other.split()["total_seconds"] == 5.0


def test_an_unknown_stage_is_refused():
    with pytest.raises(KeyError):
        Stopwatch().lap("thinking")
    with pytest.raises(KeyError):
        Stopwatch().split(thinking=1.0)


def test_rows_give_each_stage_its_share_of_the_total():
    rows = timing.rows({"stages": {"searching": 3.0, "storing": 1.0}, "total_seconds": 4.0})
    assert [r[0] for r in rows] == list(STAGE_NAMES)
    assert dict((r[0], r[3]) for r in rows)["searching"] == 0.75
    assert timing.rows({}) == [] and timing.rows(None) == []


FILES = {"osst": "veterans-surv.csv"}  # survival: time and event are the file's last columns


@pytest.mark.parametrize("algorithm", sorted(registry.algorithms()))
def test_the_command_line_splits_every_algorithms_time_into_stages_that_sum_to_the_total(algorithm, tmp_path, capsys):
    out = tmp_path / "result.json"
    data = shared_dataset(FILES.get(algorithm, "monk1.csv"))
    args = ["fit", str(data), "--algorithm", algorithm, "--time-limit", "30", "--holdout", "0.25", "--out", str(out)]
    if algorithm == "osst":
        args += ["--param", "max_depth=2"]
    assert cli.main(args) == 0
    result = json.loads(out.read_text())  # the split is spliced into the file: it must stay one JSON object
    split = result["timing"]
    assert list(split["stages"]) == list(STAGE_NAMES)
    assert sum(split["stages"].values()) == pytest.approx(split["total_seconds"], rel=1e-12, abs=1e-12)
    stages = split["stages"]
    assert stages["queued"] == 0.0 and stages["compile_wait"] == 0.0  # no queue, no other compiler on the CLI
    for stage in ("reading", "preparing", "searching", "evaluating", "storing"):
        assert stages[stage] > 0.0, stage
    # The search stage holds the driver's own search time, and the solver's set-up is inside preparing.
    assert stages["searching"] >= result["stats"]["solve_seconds"]
    assert stages["preparing"] >= result["stats"]["setup_seconds"] + result["stats"]["prepare_seconds"]
    assert stages["evaluating"] >= result["stats"]["evaluate_seconds"]
    assert f"time: {split['total_seconds']:.2f} s in all: " in capsys.readouterr().err
