# Check reading tables and binarizing them into problems.
import numpy as np
import pytest

from conftest import shared_dataset
from solver.data import DataError, Roles, make_problem, profile, read_file, read_table
from solver.data.binarize import exact_thresholds, quantile_thresholds


def test_it_reads_csv_with_types_and_missing_values():
    t = read_table(b"age,sex,y\n25,male,1\n?,female,0\n31.5,NA,1\n")
    assert t.names == ["age", "sex", "y"]
    assert np.isnan(t["age"][1]) and t["age"][2] == 31.5
    assert t["sex"].tolist() == ["male", "female", None]


def test_it_detects_tabs_semicolons_bom_and_latin1():
    assert read_table(b"a\tb\n1\t2\n").names == ["a", "b"]
    assert read_table(b"a;b\n1;2\n").names == ["a", "b"]
    assert read_table("\ufeffa,b\n1,2\n".encode()).names == ["a", "b"]
    t = read_table("name,y\nJosé,1\nZoë,0\n".encode("latin-1"))
    assert t.encoding == "latin-1" and t["name"].tolist() == ["José", "Zoë"]


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),
    (b"   \n  ", "empty"),
    (b"\x00\x01\x02binary", "binary"),
    (b"1,2,3\n4,5,6\n", "header"),
    (b"a,b\n", "no data rows"),
    (b"a,b\n1,2,3\n", "Line 2 has 3 fields"),
    (b"a,a\n1,2\n", "appears twice"),
    (b"onlyone\n1\n2\n", "single column"),
])
def test_it_explains_unusable_files(data, message):
    with pytest.raises(DataError, match=message):
        read_table(data)


def test_profile_types_columns():
    t = read_table(b"b,n,c,k,id\n0,1.5,x,7,a1\n1,2.5,y,7,a2\n1,3.5,x,7,a3\n")
    kinds = {c["name"]: c["type"] for c in profile(t)}
    assert kinds == {"b": "binary", "n": "numeric", "c": "categorical", "k": "constant", "id": "categorical"}
    counts = {c["name"]: c.get("counts") for c in profile(t)}
    assert counts["c"] == {"x": 2, "y": 1}


def test_exact_thresholds_are_midpoints_of_distinct_values():
    assert exact_thresholds(np.array([1, 2, 2, 3, 5.0])).tolist() == [1.5, 2.5, 4.0]
    assert quantile_thresholds(np.arange(100.0), 3).tolist() == [24.5, 49.5, 74.5]


def test_make_problem_binarizes_exactly():
    t = read_table(b"age,sex,smoker,y\n20,m,1,yes\n30,f,0,no\n40,m,1,yes\n30,f,?,no\n")
    p = make_problem(t, Roles(label="y"))
    texts = [f"{f['kind']}:{f['column']}" for f in p.features]
    assert texts == ["threshold:age", "threshold:age", "equals:sex", "binary:smoker", "missing:smoker"]
    assert p.classes == ["no", "yes"]
    assert p.y.tolist() == [1, 0, 1, 0]
    assert p.X[:, 0].tolist() == [1, 0, 0, 0]  # age <= 25
    assert p.X[:, 4].tolist() == [0, 0, 0, 1]  # smoker is missing


def test_exact_binarization_separates_rows_that_differ_in_a_number():
    values = np.random.default_rng(1).normal(size=40).round(1)
    t = read_table(("x,y\n" + "".join(f"{v},{i % 2}\n" for i, v in enumerate(values))).encode())
    p = make_problem(t, Roles(label="y"))
    for i in range(len(values)):
        for j in range(len(values)):
            if values[i] != values[j]:
                assert (p.X[i] != p.X[j]).any()


def test_positive_class_goes_last():
    t = read_table(b"x,y\n1,a\n0,b\n")
    assert make_problem(t, Roles(label="y", positive_class="a")).classes == ["b", "a"]


def test_it_explains_bad_roles():
    t = read_table(b"x,y,w\n1,a,1\n0,,2\n")
    with pytest.raises(DataError, match="missing values"):
        make_problem(t, Roles(label="y"))
    with pytest.raises(DataError, match="no column named 'nope'"):
        make_problem(t, Roles(label="nope"))
    with pytest.raises(DataError, match="not 0/1"):
        make_problem(read_table(b"x,y\n2,a\n3,b\n"), Roles(label="y"), "none")


@pytest.mark.parametrize("name, rows, features", [
    ("monk1.csv", 124, 11), ("monk2.csv", 169, 11), ("monk3.csv", 122, 11), ("car-evaluation.csv", 1728, 15),
    ("tic-tac-toe.csv", 958, 18),
    ("hypothyroid.csv", 3247, 83),  # 5 of its 88 columns are constant and are dropped ("compas-osdt-binary.csv", 6907, 12),
    ("compas-corels-binary.csv", 6489, 14), ("compas-corels-rules.csv", 6489, 155),
])
def test_every_binary_shared_dataset_loads_as_given(name, rows, features):
    table = read_file(shared_dataset(name))
    p = make_problem(table, Roles(label=table.names[-1]), "none")
    assert p.X.shape == (rows, features)
    assert p.n_classes == 2
