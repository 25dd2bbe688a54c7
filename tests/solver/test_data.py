# Check reading tables (CSV, TSV, Parquet), profiling them, and binarizing them into problems.
import io

import numpy as np
import pytest

from conftest import shared_dataset
from solver.data import DataError, Roles, make_problem, profile_file, read_file, read_table
from solver.data.binarize import parse_method
from solver.data.features import preview_from_problem, preview_from_profile
from solver.data.profile import profile_table
from solver.data.reader import iter_tables
from solver.data.thresholds import exact_cuts, histogram, quantile_cuts


def profile(data):
    return profile_file(io.BytesIO(data))


def parquet_bytes(columns):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table(columns), out)
    return out.getvalue()


def test_it_reads_csv_with_types_and_missing_values():
    t = read_table(b"age,sex,y\n25,male,1\n?,female,0\n31.5,NA,1\n")
    assert t.names == ["age", "sex", "y"]
    assert np.isnan(t["age"][1]) and t["age"][2] == 31.5
    assert t["sex"].tolist() == ["male", "female", None]


def test_it_detects_delimiters_and_encodings():
    assert read_table(b"a\tb\n1\t2\n").delimiter == "\t"
    assert read_table(b"a;b\n1;2\n").names == ["a", "b"]
    assert read_table(b"a|b\n1|2\n").names == ["a", "b"]
    assert read_table("\ufeffa,b\n1,2\n".encode()).names == ["a", "b"]
    t = read_table("name,y\nJosé,1\nZoë,0\n".encode("latin-1"))
    assert t.encoding == "latin-1" and t["name"].tolist() == ["José", "Zoë"]
    t = read_table("name,y\nJosé,1\n".encode("utf-16"))
    assert t["name"].tolist() == ["José"]


def test_a_late_non_utf8_byte_switches_the_whole_file_to_latin1():
    data = b"a,b\n" + b"1,x\n" * 30_000 + "é,y\n".encode("latin-1")
    t = read_table(data)
    assert t.encoding == "latin-1" and t["a"][-1] == "é" and t.n_rows == 30_001
    assert any("Latin-1" in note for note in t.notes)


def test_quoted_fields_keep_delimiters_newlines_and_quotes():
    t = read_table(b'a,b\n"x,\ny",2\n"z""q",3\n')
    assert t["a"].tolist() == ["x,\ny", 'z"q']


def test_it_reads_parquet_with_the_same_types_as_csv():
    data = parquet_bytes(
        {"age": [25.0, None, 31.5], "sex": ["male", "female", None], "ok": [True, False, True], "n": [1, 2, 3]}
    )
    t = read_table(data)
    assert t.format == "parquet"
    assert np.isnan(t["age"][1]) and t["sex"].tolist() == ["male", "female", None]
    assert t["ok"].tolist() == [1.0, 0.0, 1.0] and t["n"].dtype.kind == "f"
    kinds = {c["name"]: c["type"] for c in profile(data).columns}
    assert kinds == {"age": "binary", "sex": "binary", "ok": "binary", "n": "numeric"}


def test_chunked_reading_types_each_chunk_alone_and_agrees_with_the_whole(monkeypatch):
    monkeypatch.setattr("solver.data.source.CHUNK_CELLS", 1_000)
    data = b"x,c\n" + b"".join(b"%d,%s\n" % (i, b"a" if i % 3 else b"NA") for i in range(2_000))
    whole = read_table(data)
    chunks = iter_tables(io.BytesIO(data))
    assert next(chunks) == ["x", "c"]
    parts = list(chunks)
    assert len(parts) > 1
    assert np.array_equal(np.concatenate([p["x"] for p in parts]), whole["x"])
    assert np.concatenate([p["c"] for p in parts]).tolist() == whole["c"].tolist()


def test_profile_types_columns():
    p = profile(b"b,n,c,k,id,e\n0,1.5,x,7,a1,\n1,2.5,y,7,a2,\n1,3.5,x,7,a3,?\n")
    kinds = {c["name"]: c["type"] for c in p.columns}
    assert kinds == {"b": "binary", "n": "numeric", "c": "binary", "k": "constant", "id": "categorical", "e": "empty"}
    assert p.column("c")["counts"] == {"x": 2, "y": 1}
    assert any("'k' has a single value" in n for n in p.notes) and any("'e' has no values" in n for n in p.notes)
    assert p.preview[0] == ["0", "1.5", "x", "7", "a1", ""]


def test_profile_flags_identifiers_and_high_cardinality_text():
    rows = "".join(f"{i},id{i},c{i % 80},{i % 2}\n" for i in range(200))
    p = profile(("row,key,cat,y\n" + rows).encode())
    kinds = {c["name"]: c["type"] for c in p.columns}
    assert kinds == {"row": "identifier", "key": "identifier", "cat": "categorical", "y": "binary"}
    assert "grouped as 'other'" in p.column("cat")["note"]


def test_a_column_with_numbers_then_text_is_text_with_exact_counts():
    data = b"a,y\n" + b"1.50,0\n" * 40_000 + b"x,1\n"
    p = profile(data)
    assert p.column("a")["type"] == "binary" and p.column("a")["counts"] == {"1.50": 40_000, "x": 1}
    assert read_table(data)["a"][0] == "1.50"


def test_profile_memory_is_bounded_by_its_caps():
    values = np.random.default_rng(0).normal(size=60_000).round(6)
    data = ("x,y\n" + "".join(f"{v},{i % 2}\n" for i, v in enumerate(values))).encode()
    from solver.data import profile as profile_module

    old = profile_module.ENTRY_BUDGET
    profile_module.ENTRY_BUDGET = 2 * 1_000  # 1,000 distinct numbers per column
    try:
        p = profile(data)
    finally:
        profile_module.ENTRY_BUDGET = old
    x = p.column("x")
    assert x["distinct_more"] and x["distinct"] > 0 and x["sampled"]
    assert "hist" not in x and len(x["quantile_cuts"]["4"]["cuts"]) == 4
    # The estimated supports come from a uniform sample: close to the true ones.
    true = (values[:, None] <= np.array(x["quantile_cuts"]["4"]["cuts"])[None, :]).sum(axis=0)
    assert np.abs(np.array(x["quantile_cuts"]["4"]["rows"]) - true).max() < 0.03 * len(values)


def test_exact_and_quantile_cuts():
    assert exact_cuts(np.array([1, 2, 3, 5.0])).tolist() == [1.5, 2.5, 4.0]
    uniq, counts = histogram(np.arange(100.0))
    assert quantile_cuts(uniq, counts, 3).tolist() == [24.5, 49.5, 74.5]


def test_parse_method():
    assert parse_method("gbdt").text == "gbdt:40:1" and parse_method("gbdt:10").text == "gbdt:10:1"
    assert parse_method("quantile:5").k == 5 and parse_method("exact").exact
    for bad in ("quantile:0", "quantile:x", "gbdt:1:2:3", "exactly", "none:3"):
        with pytest.raises(DataError, match="Unknown binarization"):
            parse_method(bad)


def test_make_problem_binarizes_exactly():
    t = read_table(b"age,sex,smoker,y\n20,m,1,yes\n30,f,0,no\n40,m,1,yes\n30,f,?,no\n")
    p = make_problem(t, Roles(label="y"))
    texts = [f"{f['kind']}:{f['column']}" for f in p.features]
    assert texts == ["threshold:age", "threshold:age", "equals:sex", "binary:smoker", "missing:smoker"]
    assert p.classes == ["no", "yes"] and p.y.tolist() == [1, 0, 1, 0]
    assert p.X[:, 0].tolist() == [1, 0, 0, 0]  # age <= 25
    assert p.X[:, 4].tolist() == [0, 0, 0, 1]  # smoker is missing
    assert p.binarization["best_accuracy"] == p.binarization["best_accuracy_raw"] == 1.0


def test_missing_values_follow_the_stated_policy_and_are_counted():
    t = read_table(b"x,c,y\n1,a,yes\n?,b,no\n3,,yes\n4,a,\n5,b,no\n")
    p = make_problem(t, Roles(label="y", missing={"x": "drop"}))
    assert p.n_samples == 3
    assert "1 rows without a value in 'y' are left out." in p.notes
    assert any("1 rows without a value in 'x' are left out (missing-value policy: drop rows)" in n for n in p.notes)
    assert [f["kind"] for f in p.features if f["column"] == "c"] == ["equals", "missing"]
    with pytest.raises(DataError, match="No rows are left"):
        make_problem(read_table(b"x,y\n?,1\n2,\n"), Roles(label="y", missing={"x": "drop"}))


def test_rare_categories_are_grouped_as_other_and_unseen_values_fall_there():
    values = ["a"] * 5 + ["b"] * 4 + ["c"] * 3 + ["d", "e"]
    t = read_table(("c,y\n" + "".join(f"{v},{i % 2}\n" for i, v in enumerate(values))).encode())
    p = make_problem(t, Roles(label="y", max_categories=2))
    assert [f["kind"] for f in p.features] == ["equals", "equals", "other"]
    assert p.X[:, 2].sum() == 5
    from solver.predicates import evaluate

    assert evaluate(p.features[2], {"c": np.array(["z", "a", None], dtype=object)}).tolist() == [True, False, False]


def test_declared_orders_binarize_as_at_most():
    t = read_table(b"size,y\nsmall,0\nlarge,1\nmedium,1\nsmall,0\n")
    p = make_problem(t, Roles(label="y", ordered={"size": ["small", "medium", "large"]}))
    from solver.predicates import text

    assert [text(f) for f in p.features] == ["size ≤ small", "size ≤ medium"]
    assert p.X.tolist() == [[1, 1], [0, 0], [0, 1], [1, 1]]
    with pytest.raises(DataError, match="'huge', which is not in its declared order"):
        make_problem(read_table(b"size,y\nhuge,0\nsmall,1\n"), Roles(label="y", ordered={"size": ["small", "large"]}))


def test_feature_costs_map_onto_every_feature_of_their_column():
    t = read_table(b"age,sex,y\n20,m,1\n30,f,0\n40,?,1\n")
    p = make_problem(t, Roles(label="y", feature_cost={"age": 2.5}))
    costs = {(f["column"], f["kind"]): c for f, c in zip(p.features, p.feature_cost.tolist())}
    assert costs == {("age", "threshold"): 2.5, ("sex", "equals"): 1.0, ("sex", "missing"): 1.0}
    assert "feature_cost" in p.roles() and make_problem(t, Roles(label="y")).feature_cost is None


def test_role_columns_become_problem_fields():
    t = read_table(b"x,t,e,g,w,tr,o\n1,5,1,a,1,A,0.5\n2,3,0,b,2,B,1\n3,4,1,a,0,A,2\n")
    p = make_problem(t, Roles(time="t", event="e", group="g", weight="w", treatment="tr", outcome="o"))
    assert p.time.tolist() == [5, 3, 4] and p.event.tolist() == [True, False, True]
    assert p.group.tolist() == [0, 1, 0] and p.treatments == ["A", "B"] and p.outcome.tolist() == [0.5, 1, 2]
    assert p.sample_weight.tolist() == [1, 2, 0]


@pytest.mark.parametrize(
    "roles, message",
    [
        (Roles(label="nope"), "no column named 'nope'"),
        (Roles(label="x", weight="x"), "two roles"),
        (Roles(label="y", weight="c"), "weight column 'c' must hold numbers"),
        (Roles(label="y", weight="n"), "negative values"),
        (Roles(time="x", event="n"), "must be 0 \\(censored\\) or 1"),
        (Roles(label="y", group="c"), "exactly two values, not 3"),
        (Roles(label="y", missing={"x": "impute"}), "'feature' or 'drop'"),
        (Roles(label="y", feature_cost={"x": -1.0}), "number ≥ 0"),
        (Roles(label="y", positive_class="maybe"), "not a value of the label"),
    ],
)
def test_it_explains_bad_roles(roles, message):
    t = read_table(b"x,y,c,n\n1,a,p,-1\n0,b,q,2\n2,a,r,1\n")
    with pytest.raises(DataError, match=message):
        make_problem(t, roles)


def test_none_needs_binary_columns():
    with pytest.raises(DataError, match="not 0/1"):
        make_problem(read_table(b"x,y\n2,a\n3,b\n"), Roles(label="y"), "none")


def test_approximate_binarizations_report_the_accuracy_they_give_up():
    x = np.arange(40.0)
    y = (x % 4 == 0).astype(int)
    t = read_table(("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(x, y))).encode())
    exact = make_problem(t, Roles(label="y"))
    coarse = make_problem(t, Roles(label="y"), "quantile:2")
    assert exact.binarization["best_accuracy"] == 1.0 and exact.binarization["exact"]
    assert coarse.binarization["best_accuracy_raw"] == 1.0 and coarse.binarization["best_accuracy"] == 0.75
    assert not coarse.binarization["exact"] and "falls from 100.00%" in coarse.notes[-1]
    # Every approximate cut is an exact one.
    assert {f["threshold"] for f in coarse.features} <= {f["threshold"] for f in exact.features}


def test_boosted_threshold_guessing_splits_like_the_gosdt_binarizer():
    from gosdt import ThresholdGuessBinarizer

    table = read_file(shared_dataset("compas-gosdt.csv"))
    p = make_problem(table, Roles(label=table.names[-1]), "gbdt:40:1")
    numeric = [n for n in table.names[:-1] if len(np.unique(table[n])) > 2]
    X = np.column_stack([table[n] for n in numeric])
    reference = ThresholdGuessBinarizer(n_estimators=40, max_depth=1, random_state=0, column_elimination=False)
    reference.fit(X, p.y)
    theirs = {(numeric[j], tuple(X[:, j] <= t)) for j, t in reference.thresholds_}
    ours = {(f["column"], tuple(table[f["column"]] <= f["threshold"])) for f in p.features if f["kind"] == "threshold"}
    assert ours == theirs and len(ours) > 5
    assert p.binarization["best_accuracy"] <= p.binarization["best_accuracy_raw"]


def test_the_profile_preview_matches_the_full_binarization():
    rng = np.random.default_rng(3)
    rows = [
        f"{rng.integers(0, 30)},{rng.choice(['a', 'b', 'c', 'NA'])},{rng.normal():.3f},{i % 2}\n" for i in range(300)
    ]
    data = ("n,c,z,y\n" + "".join(rows)).encode()
    columns = profile(data).columns
    for method in ("exact", "quantile:4", "quantile:16"):
        roles = Roles(label="y")
        full = preview_from_problem(make_problem(read_table(data), roles, method))
        light = preview_from_profile(columns, roles, method, 300)
        assert light["n_features"] == full["n_features"]
        assert sorted((f["text"], f["support"]) for f in light["features"]) == sorted(
            (f["text"], f["support"]) for f in full["features"]
        )


def test_profile_table_agrees_with_the_streaming_profile():
    data = b"a,b,c\n1,x,0\n2,y,1\n3,,1\n"
    assert profile_table(read_table(data)) == profile(data).columns


# Shapes recorded once, so that a change of binarization shows up here.
@pytest.mark.parametrize(
    "name, rows, features",
    [
        ("monk1.csv", 124, 11),
        ("monk2.csv", 169, 11),
        ("monk3.csv", 122, 11),
        ("car-evaluation.csv", 1728, 15),
        ("tic-tac-toe.csv", 958, 18),
        ("hypothyroid.csv", 3247, 83),  # 5 of its 88 columns are constant and are dropped
        ("compas-osdt-binary.csv", 6907, 12),
        ("compas-corels-binary.csv", 6489, 14),
        ("compas-corels-rules.csv", 6489, 155),
    ],
)
def test_every_binary_shared_dataset_loads_as_given(name, rows, features):
    table = read_file(shared_dataset(name))
    p = make_problem(table, Roles(label=table.names[-1]), "none")
    assert p.X.shape == (rows, features)
    assert p.n_classes == 2


# exact: the sum over columns of (distinct values - 1), as pandas' nunique counts them; the skewed count
# columns (mostly 0) give fewer than 4 distinct quantile cuts each.
@pytest.mark.parametrize("method, features", [("exact", 134), ("quantile:4", 12), ("gbdt:40:1", 19)])
def test_the_continuous_shared_dataset_binarizes_to_recorded_shapes(method, features):
    table = read_file(shared_dataset("compas-gosdt.csv"))
    p = make_problem(table, Roles(label=table.names[-1]), method)
    assert p.X.shape == (6907, features)


@pytest.mark.parametrize(
    "name, rows, features",
    [
        ("veterans-surv.csv", 137, 14),
        ("whas500-surv.csv", 500, 26),
        ("gbsg2-surv.csv", 686, 19),
    ],
)
def test_every_survival_shared_dataset_loads(name, rows, features):
    table = read_file(shared_dataset(name))
    p = make_problem(table, Roles(time="time", event="event"), "none")
    assert p.X.shape == (rows, features) and p.event.dtype == bool and (p.time >= 0).all()


# Check a text column with more values than max_categories keeps those on ≥ 1 % of the rows, its most
# frequent ones on request, and none (left out, said so) when no value is that frequent.
def test_many_valued_text_keeps_its_frequent_values():
    from solver.data import Roles, Table, make_problem

    n = 1000
    city = np.array([f"c{i % 3}" if i % 4 else f"rare{i}" for i in range(n)], dtype=object)
    tail = np.array([f"t{i % 500}" for i in range(n)], dtype=object)
    table = Table({"city": city, "tail": tail, "y": np.array(["a", "b"] * (n // 2), dtype=object)})
    problem = make_problem(table, Roles(label="y"))
    columns = [(f["column"], f["kind"]) for f in problem.features]
    assert columns == [("city", "equals")] * 3 + [("city", "other")]
    assert any("'tail' has 500 distinct values and none is on 1% of its rows" in note for note in problem.notes)
    top = make_problem(table, Roles(label="y", levels={"tail": "top"}, max_categories=10))
    assert sum(f["column"] == "tail" and f["kind"] == "equals" for f in top.features) == 10
    with pytest.raises(DataError, match="'frequent' or 'top'"):
        make_problem(table, Roles(label="y", levels={"tail": "some"}))
