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
    assert {"algorithm", "params", "status", "objective", "lower_bound", "model", "metrics", "trace", "stats"} <= set(
        result
    )
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


def test_predict_reports_every_ingest_error_as_one_sentence(tmp_path):
    out = tmp_path / "r.json"
    assert (
        cli("fit", str(shared_dataset("monk1.csv")), "--algorithm", "cart", "--out", str(out), "--quiet").returncode
        == 0
    )
    files = {
        "binary.csv": b"\x89PNG\r\n\x1a\n\x00\x00",
        "ragged.csv": b"a,b\n1,2,3\n",
        "lacking.csv": b"x,y\n1,2\n",
        "empty.csv": b"",
        "quote.csv": b'a,b\n1,"x\n',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    cases = [(name, "p.csv") for name in files] + [("missing.csv", "p.csv"), ("lacking.csv", "/no/such/dir/p.csv")]
    for data, target in cases:
        p = cli("predict", str(out), data, "--out", target, cwd=tmp_path)
        assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr
        assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1, p.stderr
        assert not (tmp_path / "p.csv").exists() and not list(tmp_path.glob(".partial-*"))


def test_predict_reads_parquet_copies_an_identifier_and_warns_about_text_in_numbers(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    train = tmp_path / "train.csv"
    train.write_text("x,label\n1,a\n2,a\n3,b\n4,b\n")
    out = tmp_path / "r.json"
    assert cli("fit", str(train), "--algorithm", "cart", "--out", str(out), "--quiet").returncode == 0
    pq.write_table(pa.table({"key": ["k1", "k2"], "x": [1.0, 4.0]}), tmp_path / "new.parquet")
    p = cli("predict", str(out), str(tmp_path / "new.parquet"), "--out", "-", "--id", "key")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(p.stdout.splitlines()))
    assert [(r["key"], r["prediction"]) for r in rows] == [("k1", "a"), ("k2", "b")]
    (tmp_path / "text.csv").write_text("x\n1\nfour\n")
    p = cli("predict", str(out), str(tmp_path / "text.csv"), "--out", "-")
    assert p.returncode == 0 and "warning: 1 values of 'x' are not numbers" in p.stderr


def test_fit_takes_binarization_missing_policies_costs_and_orders(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text(
        "row,size,age,label\n"
        + "".join(
            f"{i},{['s', 'm', 'l'][i % 3]},{'NA' if i % 5 == 0 else 20 + i},{'yes' if i % 2 else 'no'}\n"
            for i in range(60)
        )
    )
    out = tmp_path / "r.json"
    p = cli(
        "fit",
        str(data),
        "--algorithm",
        "cart",
        "--binarize",
        "quantile:3",
        "--missing",
        "age=drop",
        "--feature-cost",
        "age=2",
        "--ordered",
        "size=s<m<l",
        "--out",
        str(out),
    )
    assert p.returncode == 0, p.stderr
    assert "note: column 'row' looks like a row identifier" in p.stderr
    assert "12 rows without a value in 'age' are left out" in p.stderr
    result = json.loads(out.read_text())
    assert result["problem"]["n_samples"] == 48 and result["problem"]["binarization"]["method"] == "quantile:3"
    p = cli("fit", str(data), "--algorithm", "cart", "--ordered", "size=s<m", "--out", str(out))
    assert p.returncode != 0 and "'l', which is not in its declared order" in p.stderr


def test_predict_keeps_categories_that_look_like_numbers_as_written(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("zip,label\n01,a\n02,b\nx1,a\n01,a\n02,b\nx1,b\n")
    out = tmp_path / "r.json"
    assert cli("fit", str(train), "--algorithm", "cart", "--out", str(out), "--quiet").returncode == 0
    (tmp_path / "new.csv").write_text("zip\n01\n02\n")
    p = cli("predict", str(out), str(tmp_path / "new.csv"), "--out", "-")
    assert p.returncode == 0, p.stderr
    assert [r["prediction"] for r in csv.DictReader(p.stdout.splitlines())] == ["a", "b"]
