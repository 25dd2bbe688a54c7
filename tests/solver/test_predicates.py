# Check predicate text in original units and evaluation on raw columns, missing values included.
import numpy as np

from solver import predicates as P


def test_it_writes_readable_text():
    assert P.text(P.threshold("age", 23.5)) == "age ≤ 23.5"
    assert P.text(P.threshold("priors", 3.0)) == "priors ≤ 3"
    assert P.negation_text(P.threshold("age", 23.5)) == "age > 23.5"
    assert P.text(P.equals("sex", "male")) == "sex = male"
    assert P.text(P.binary("sex:Male")) == "sex:Male"
    assert P.text(P.binary("f3")) == "f3 = 1"
    assert (
        P.text(P.conjunction(P.threshold("priors", 3), P.negate(P.threshold("age", 25)))) == "priors ≤ 3 AND age > 25"
    )
    assert P.text(P.missing("bmi")) == "bmi is missing"
    assert P.negate(P.negate(P.binary("x"))) == P.binary("x")


def test_missing_values_are_false_for_thresholds_and_equalities():
    table = {"x": np.array([1.0, np.nan, 3.0]), "c": np.array(["a", None, "b"], dtype=object)}
    assert P.evaluate(P.threshold("x", 2), table).tolist() == [True, False, False]
    assert P.evaluate(P.equals("c", "a"), table).tolist() == [True, False, False]
    assert P.evaluate(P.missing("x"), table).tolist() == [False, True, False]
    assert P.evaluate(P.missing("c"), table).tolist() == [False, True, False]


def test_it_reads_numbers_given_as_text():
    table = {"x": np.array(["1.5", "abc", "0"], dtype=object), "b": np.array(["yes", "0", "1"], dtype=object)}
    assert P.evaluate(P.threshold("x", 1), table).tolist() == [False, False, True]
    assert P.evaluate(P.binary("b"), table).tolist() == [True, False, True]


def test_it_names_the_missing_column():
    import pytest

    with pytest.raises(KeyError, match="no column named 'age'"):
        P.evaluate(P.threshold("age", 1), {"x": np.zeros(2)})


def test_columns_used_lists_each_once():
    p = P.conjunction(P.threshold("a", 1), P.negate(P.equals("b", "x")), P.missing("a"))
    assert P.columns_used(p) == ["a", "b"]
