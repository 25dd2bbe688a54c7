# Check exports against their test vectors: the Python module through the interpreter, SQL in SQLite and PostgreSQL.
import json
import os
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import export, predicates as P, solve
from solver.data import Roles, make_problem
from solver.data.table import Table
from solver.models import RuleList


def random_table(seed, n=40):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 70, n).astype(float)
    age[rng.random(n) < 0.1] = np.nan
    sex = np.array([["f", "m"][k] for k in rng.integers(0, 2, n)], dtype=object)
    city = np.array([["Ann's", 'Bo"ston', None, "x=1"][k] for k in rng.integers(0, 4, n)], dtype=object)
    smoker = rng.integers(0, 2, n).astype(float)
    label = np.array([["no", "yes"][int(k)] for k in (age > 40) ^ (smoker == 1)], dtype=object)
    return Table({"age": age, "sex": sex, "city": city, "smoker": smoker, "label": label})


def fitted(seed):
    table = random_table(seed)
    problem = make_problem(table, Roles(label="label"))
    result = solve(problem, "cart", {"max_depth": 4})
    return result.model, table


def rule_list(table):
    problem = make_problem(table, Roles(label="label"))
    feats = list(problem.features)
    feats.append(P.negate(P.threshold("age", 40.5)))
    feats.append(P.conjunction(P.equals("sex", "m"), P.negate(P.binary("smoker"))))
    feats.append(P.missing("city"))
    n = len(feats)
    return RuleList(
        antecedents=[n - 2, n - 3, n - 1],
        predictions=[1, 0, 1],
        default=0,
        counts=np.ones((4, 2)),
        features=feats,
        classes=problem.classes,
    )


def run_python(source, tmp_path):
    path = tmp_path / "model.py"
    path.write_text(source)
    out = subprocess.run(
        [sys.executable, "-c", "import model; print(model.self_test())"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def sql_rows(vectors):
    columns = sorted(vectors[0]["row"])
    return columns, [[v["row"][c] for c in columns] for v in vectors]


def column_type(values):
    return "REAL" if all(v is None or isinstance(v, float) for v in values) else "TEXT"


def check_sqlite(model, vectors):
    columns, rows = sql_rows(vectors)
    db = sqlite3.connect(":memory:")
    types = [column_type([r[k] for r in rows]) for k in range(len(columns))]
    db.execute(
        "CREATE TABLE t (" + ", ".join(f"{export.sql_identifier(c)} {ty}" for c, ty in zip(columns, types)) + ")"
    )
    db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(columns))})", rows)
    got = [r[0] for r in db.execute(f"SELECT {export.to_sql(model)} FROM t ORDER BY rowid")]
    assert got == [v["expected"] for v in vectors]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_python_and_sqlite_exports_agree_with_the_model(seed):
    model, table = fitted(seed)
    vectors = export.test_vectors(model, table)
    assert vectors
    ns = {}
    exec(export.to_python(model, vectors), ns)
    assert ns["self_test"]() == len(vectors)
    check_sqlite(model, vectors)


def test_the_python_export_runs_in_a_fresh_interpreter(tmp_path):
    model, table = fitted(7)
    vectors = export.test_vectors(model, table)
    assert run_python(export.to_python(model, vectors), tmp_path) == len(vectors)


def test_rule_lists_with_negations_and_conjunctions_export(tmp_path):
    table = random_table(3)
    model = rule_list(table)
    vectors = export.test_vectors(model, table)
    assert run_python(export.to_python(model, vectors), tmp_path) == len(vectors)
    check_sqlite(model, vectors)
    assert {v["expected"] for v in vectors} == {"no", "yes"}


def test_the_sql_export_runs_in_postgresql(db):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL: run it through scripts/test (DATABASE_URL)")
    for model, table in [fitted(11), (rule_list(random_table(5)), random_table(5))]:
        vectors = export.test_vectors(model, table)
        columns, rows = sql_rows(vectors)
        types = [
            "DOUBLE PRECISION" if column_type([r[k] for r in rows]) == "REAL" else "TEXT" for k in range(len(columns))
        ]
        with connection.cursor() as cur:
            cur.execute(
                "CREATE TEMP TABLE t (i serial, "
                + ", ".join(f"{export.sql_identifier(c)} {ty}" for c, ty in zip(columns, types))
                + ")"
            )
            for r in rows:
                cur.execute(
                    f"INSERT INTO t ({', '.join(export.sql_identifier(c) for c in columns)}) "
                    f"VALUES ({', '.join(['%s'] * len(columns))})",
                    r,
                )
            cur.execute(f"SELECT {export.to_sql(model)} FROM t ORDER BY i")
            got = [r[0] for r in cur.fetchall()]
            cur.execute("DROP TABLE t")
        assert got == [v["expected"] for v in vectors]


def test_the_cli_exports_every_format(tmp_path):
    from conftest import shared_dataset

    out = tmp_path / "r.json"
    cli = [sys.executable, "-m", "solver"]
    assert (
        subprocess.run(
            cli
            + [
                "fit",
                str(shared_dataset("compas-gosdt.csv")),
                "--algorithm",
                "cart",
                "--param",
                "max_depth=3",
                "--out",
                str(out),
                "--quiet",
            ]
        ).returncode
        == 0
    )
    py = subprocess.run(cli + ["export", str(out), "--format", "python"], capture_output=True, text=True)
    assert py.returncode == 0 and "def predict(row)" in py.stdout
    assert run_python(py.stdout, tmp_path) > 0
    sql = subprocess.run(cli + ["export", str(out), "--format", "sql"], capture_output=True, text=True)
    assert sql.stdout.startswith("CASE WHEN")
    js = json.loads(
        subprocess.run(cli + ["export", str(out), "--format", "json"], capture_output=True, text=True).stdout
    )
    assert js["schema"] == "corelsweb.model" and js["test_vectors"]


def test_holdout_metrics_work_for_mined_rule_lists(tmp_path):
    # Mined antecedents (negations, conjunctions) are not columns of the training matrix.
    from conftest import shared_dataset

    out = tmp_path / "r.json"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "solver",
            "fit",
            str(shared_dataset("monk1.csv")),
            "--algorithm",
            "corels",
            "--param",
            "regularization=0.02",
            "--holdout",
            "0.25",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    result = json.loads(out.read_text())
    assert result["holdout"]["description"].startswith("25%")
    assert 0 <= result["holdout"]["metrics"]["accuracy"] <= 1
