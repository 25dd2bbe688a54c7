# Check rule mining: which antecedents it keeps, that they read and evaluate in original units, and its limits.
import numpy as np
import pytest

from conftest import shared_dataset
from solver import predicates
from solver.data import DataError, Roles, make_problem, read_file
from solver.data.mining import mine, mine_problem
from solver.data.table import Table


def gosdt_compas():
    table = read_file(shared_dataset("compas-gosdt.csv"))
    return table, make_problem(table, Roles(label=table.names[-1]), "quantile:3")


def test_mined_antecedents_evaluate_on_raw_rows_as_in_the_matrix():
    table, problem = gosdt_compas()
    mined = mine_problem(problem, min_support=0.01)
    assert (predicates.evaluate_all(mined.features, table.columns) == mined.X).all()
    assert mined.y is problem.y and mined.classes == problem.classes
    assert "Mined" in mined.notes[-1]


def test_it_mines_literals_negations_and_pairs_in_order():
    _, problem = gosdt_compas()
    A, found, summary = mine(problem.X, problem.features, min_support=0.01)
    kinds = [p["kind"] for p in found]
    first_pair = kinds.index("and")
    assert "and" not in kinds[:first_pair] and set(kinds[first_pair:]) == {"and"}
    assert "not" in kinds[:first_pair]
    assert summary["singles"] == first_pair and summary["pairs"] == len(found) - first_pair
    texts = [predicates.text(p) for p in found]
    assert any(" AND " in t and ">" in t for t in texts)  # e.g. "priors_count > 3.5 AND age ≤ 23.5"
    support = A.mean(axis=0)
    assert (support >= 0.01).all() and (support <= 0.99).all()
    assert len({A[:, j].tobytes() for j in range(A.shape[1])}) == A.shape[1]  # no two alike


def test_single_clauses_without_negations_are_the_features_in_support():
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]], dtype=np.uint8)
    features = [predicates.binary(c) for c in "abc"]
    A, found, _ = mine(X, features, min_support=0.3, max_clauses=1, negations=False)
    # a holds on 3 rows of 4 (more than 1 − 30 %), c on 1 (less than 30 %)
    assert found == [features[1]]
    assert (A[:, 0] == X[:, 1]).all()


def test_a_conjunction_that_repeats_a_single_predicate_is_dropped():
    X = np.array([[1, 1], [1, 1], [0, 0], [0, 1]], dtype=np.uint8)
    _, found, _ = mine(X, [predicates.binary("a"), predicates.binary("b")], min_support=0.0, negations=False)
    # a AND b holds exactly where a does, so only a and b remain
    assert [predicates.text(p) for p in found] == ["a = 1", "b = 1"]


def test_too_many_antecedents_is_a_plain_error():
    rng = np.random.default_rng(0)
    X = (rng.random((200, 60)) < 0.5).astype(np.uint8)
    features = [predicates.binary(f"x{j}") for j in range(60)]
    with pytest.raises(DataError, match="antecedents|conjunctions"):
        mine(X, features, min_support=0.01, max_antecedents=500)


def test_mining_reads_text_columns_in_their_own_words():
    table = Table(
        {
            "sex": np.array(["male", "female", "male", "female"], dtype=object),
            "age": np.array([20.0, 30.0, 40.0, 50.0]),
            "y": np.array(["1", "0", "1", "0"], dtype=object),
        }
    )
    problem = make_problem(table, Roles(label="y"), "exact")
    mined = mine_problem(problem, min_support=0.2)
    texts = {predicates.text(p) for p in mined.features}
    assert "sex = male" in texts and "sex ≠ male" in texts or "sex = female" in texts
    assert any(t.startswith("sex") and " AND age" in t for t in texts)
