# Check the command line: fit, predict, algorithms, and one-sentence errors with non-zero exit codes.
import csv
import json
import subprocess
import sys

from conftest import shared_dataset


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True, text=True, cwd=cwd)


def test_fit_then_predict_round_trip(tmp_path):
    out = tmp_path / "r.json"
    p = cli("fit", str(shared_dataset("monk1.csv")), "--algorithm", "cart", "--param", "max_depth=3", "--out", str(out))
    assert p.returncode == 0, p.stderr
    result = json.loads(out.read_text())
    assert {"algorithm", "params", "status", "objective", "lower_bound", "model", "metrics", "trace", "stats"} <= set(result)
    assert result["params"]["max_depth"] == 3
    preds = tmp_path / "p.csv"
    p = cli("predict", str(out), str(shared_dataset("monk1.csv")), "--out", str(preds))
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(preds.open()))
    assert len(rows) == 124
    truth = [r.split(",")[-1] for r in shared_dataset("monk1.csv").read_text().splitlines()[1:]]
    accuracy = sum(r["prediction"] == t for r, t in zip(rows, truth)) / 124
    assert abs(accuracy - result["metrics"]["accuracy"]) < 1e-12


def test_errors_are_one_sentence_without_traceback(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"1,2\n3,4\n")
    cases = [
        ("fit", str(tmp_path / "missing.csv"), "--algorithm", "cart", "--out", "x.json"),
        ("fit", str(bad), "--algorithm", "cart", "--out", "x.json"),
        ("fit", str(shared_dataset("monk1.csv")), "--algorithm", "nope", "--out", "x.json"),
        ("fit", str(shared_dataset("monk1.csv")), "--algorithm", "cart", "--param", "max_depth=-1", "--out", "x.json"),
        ("predict", str(bad), str(bad), "--out", "p.csv"),
    ]
    for args in cases:
        p = cli(*args, cwd=tmp_path)
        assert p.returncode != 0
        assert "Traceback" not in p.stderr
        assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1, p.stderr


def test_predict_neutralizes_formula_cells(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x,label\n0,=cmd|calc\n1,ok\n0,=cmd|calc\n1,ok\n")
    out = tmp_path / "r.json"
    assert cli("fit", str(data), "--algorithm", "cart", "--out", str(out), "--quiet").returncode == 0
    preds = tmp_path / "p.csv"
    assert cli("predict", str(out), str(data), "--out", str(preds)).returncode == 0
    cells = [r["prediction"] for r in csv.DictReader(preds.open())]
    assert "'=cmd|calc" in cells and "=cmd|calc" not in cells


def test_algorithms_lists_the_registry():
    p = cli("algorithms")
    assert p.returncode == 0 and "cart" in p.stdout and "max_depth" in p.stdout
