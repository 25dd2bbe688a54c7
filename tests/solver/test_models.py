# Check the model arrays: prediction, raw-row evaluation, rules and JSON round trips.
import json

import numpy as np
import pytest

from solver import predicates as P
from solver.models import LEAF, RuleList, Tree, model_from_dict

FEATURES = [P.threshold("age", 30), P.equals("sex", "male"), P.binary("smoker")]


def make_tree():
    # root: age <= 30 ? (sex = male ? 1 : 0) : 1
    return Tree(
        feature=[0, LEAF, 1, LEAF, LEAF],
        left=[1, LEAF, 3, LEAF, LEAF],
        right=[2, LEAF, 4, LEAF, LEAF],
        prediction=[1, 1, 0, 0, 1],
        counts=[[5, 5], [1, 3], [4, 2], [3, 0], [1, 2]],
        features=FEATURES,
        classes=["no", "yes"],
    )


def test_it_predicts_from_binary_rows():
    tree = make_tree()
    X = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]], dtype=np.uint8)
    assert tree.predict(X).tolist() == [1, 0, 1, 1]
    assert tree.apply(X).tolist() == [1, 3, 4, 1]


def test_it_predicts_from_raw_rows_like_from_binary_rows():
    tree = make_tree()
    table = {
        "age": np.array([25.0, 40.0, 30.0, np.nan]),
        "sex": np.array(["male", "female", "female", None], dtype=object),
        "smoker": np.array([1.0, 0.0, 1.0, 0.0]),
    }
    X = P.evaluate_all(FEATURES, table)
    assert X.tolist() == [[1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 0, 0]]
    assert tree.predict(table).tolist() == tree.predict(X).tolist()


def test_it_counts_leaves_and_depth():
    tree = make_tree()
    assert tree.n_leaves == 3
    assert tree.depth == 2


def test_it_writes_leaf_rules_in_original_units():
    rules = make_tree().leaf_rules()
    assert rules[1] == ["age > 30"]
    assert rules[3] == ["age ≤ 30", "sex ≠ male"]
    assert rules[4] == ["age ≤ 30", "sex = male"]


def test_tree_round_trips_through_json():
    tree = make_tree()
    back = model_from_dict(json.loads(json.dumps(tree.to_dict())))
    X = np.random.default_rng(0).integers(0, 2, size=(50, 3)).astype(np.uint8)
    assert back.predict(X).tolist() == tree.predict(X).tolist()
    assert back.to_dict() == tree.to_dict()
    # Only used features are stored, but indices stay valid.
    assert set(tree.to_dict()["features"]) == {"0", "1"}


def test_rule_list_takes_the_first_rule_that_fires():
    rl = RuleList(
        antecedents=[2, 0],
        predictions=[1, 0],
        default=1,
        counts=[[1, 4], [3, 1], [2, 2]],
        features=FEATURES,
        classes=["no", "yes"],
    )
    X = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 0]], dtype=np.uint8)
    assert rl.apply(X).tolist() == [0, 1, 2]
    assert rl.predict(X).tolist() == [1, 0, 1]
    back = model_from_dict(json.loads(json.dumps(rl.to_dict())))
    assert back.predict(X).tolist() == [1, 0, 1]
    assert back.rule_texts() == ["smoker = 1", "age ≤ 30"]


def test_it_refuses_inconsistent_arrays():
    with pytest.raises(ValueError, match="left"):
        Tree(feature=[LEAF], left=[], right=[LEAF], prediction=[0], counts=[[1]], features=[], classes=["a"])
    with pytest.raises(ValueError, match="unknown model type"):
        model_from_dict({"type": "forest"})
