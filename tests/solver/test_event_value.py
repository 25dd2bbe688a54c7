# Check issue 29 item 2: survival tables coded as R's survival package codes them (1 = censored, 2 = event, or
# 0/1/2) are read through an event value on the command line and the estimator, and refused with the remedy without.
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import shared_dataset
from solver import survival
from solver.data import DataError, Roles, read_file
from solver.data.binarize import make_problem
from solver.sklearn import OSSTSurvivalTree


def r_coded(tmp_path, mapping={0: 1, 1: 2}, name="veterans-r.csv"):
    frame = pd.read_csv(shared_dataset("veterans-surv.csv"))
    frame["event"] = frame["event"].map(mapping)
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path, frame


def test_an_r_coded_event_column_is_refused_with_the_remedy(tmp_path):
    path, _ = r_coded(tmp_path)
    with pytest.raises(DataError) as refusal:
        make_problem(read_file(str(path)), Roles(time="time", event="event"))
    message = str(refusal.value)
    assert "holds 1, 2" in message and "event value" in message and "--event-value" in message
    assert "event_value=" in message


def test_the_event_value_reads_one_two_and_zero_one_two_codings(tmp_path):
    original = make_problem(read_file(str(shared_dataset("veterans-surv.csv"))), Roles(time="time", event="event"))
    path, _ = r_coded(tmp_path)
    problem = make_problem(
        read_file(str(path)), Roles.from_dict({"time": "time", "event": "event", "event_value": "2"})
    )
    assert np.array_equal(problem.event, original.event) and problem.event.sum() == 128
    # 0/1/2 (two kinds of event): both kinds counted as events, or only one.
    path, frame = r_coded(tmp_path, {0: 0, 1: 1}, "three.csv")
    frame.loc[frame.index[::2], "event"] *= 2
    frame.to_csv(path, index=False)
    table = read_file(str(path))
    both = make_problem(table, Roles.from_dict({"time": "time", "event": "event", "event_value": "1, 2"}))
    only_two = make_problem(table, Roles.from_dict({"time": "time", "event": "event", "event_value": ["2"]}))
    assert np.array_equal(both.event, original.event)
    assert only_two.event.sum() == (frame["event"] == 2).sum() < both.event.sum()
    with pytest.raises(DataError, match="event value 3 is not a value"):
        make_problem(table, Roles.from_dict({"time": "time", "event": "event", "event_value": "3"}))


def test_the_cli_event_value_fits_the_same_tree_as_the_zero_one_file(tmp_path):
    path, _ = r_coded(tmp_path)
    out = {}
    for name, data, extra in [("r", path, ["--event-value", "2"]), ("01", shared_dataset("veterans-surv.csv"), [])]:
        out[name] = tmp_path / f"{name}.json"
        args = [sys.executable, "-m", "solver", "fit", str(data), "--algorithm", "osst", "--param", "max_depth=2"]
        done = subprocess.run(args + extra + ["--out", str(out[name]), "--quiet"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    r, zero_one = (json.loads(out[k].read_text()) for k in ("r", "01"))
    assert r["objective"] == pytest.approx(zero_one["objective"], abs=1e-12) and r["model"] == zero_one["model"]
    refused = subprocess.run(
        [sys.executable, "-m", "solver", "fit", str(path), "--algorithm", "osst", "--out", str(tmp_path / "x.json")],
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "--event-value" in refused.stderr and "Traceback" not in refused.stderr


def test_the_estimator_event_value_maps_a_numeric_event_field(tmp_path):
    _, frame = r_coded(tmp_path)
    X = frame.drop(columns=["time", "event"])
    coded = np.empty(len(frame), dtype=[("status", np.int64), ("time", np.float64)])
    coded["status"], coded["time"] = frame["event"], frame["time"]
    boolean = survival.survival_y(frame["event"].to_numpy() == 2, frame["time"].to_numpy())
    with pytest.raises(ValueError, match="event_value=2"):
        OSSTSurvivalTree(max_depth=2).fit(X, coded)
    mapped = OSSTSurvivalTree(max_depth=2, event_value=2).fit(X, coded)
    plain = OSSTSurvivalTree(max_depth=2).fit(X, boolean)
    assert mapped.objective_ == pytest.approx(plain.objective_, abs=1e-12)
    assert mapped.score(X, coded) == pytest.approx(plain.score(X, boolean))
