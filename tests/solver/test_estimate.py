# Check the pre-run estimate: the leaf bound, levels, and counting features from a profile.
import math

from solver.estimate import estimate, features_from_profile, max_leaves


def test_max_leaves_uses_lambda_and_depth():
    assert max_leaves(0.3, 0.1) == 4
    assert max_leaves(0.3, 0.01, max_depth=2) == 4
    assert max_leaves(0.3, 0.0) is None


def test_small_problems_are_easy_and_huge_ones_warn_with_suggestions():
    easy = estimate(n_features=11, n_rows=124, loss0=0.5, lam=0.1, max_depth=3)
    assert easy["level"] == "easy" and not easy["warnings"]
    hard = estimate(n_features=14_000, n_rows=569, loss0=0.37, lam=0.001, max_depth=None)
    assert hard["level"] == "very hard" and hard["warnings"]
    assert any("quantile" in s for s in hard["suggestions"]) and any("λ" in s for s in hard["suggestions"])
    assert math.isinf(estimate(10, 10, 0.5, 0.0)["log10_space"])


def test_features_are_counted_from_the_profile():
    columns = [{"name": "age", "type": "numeric", "distinct": 40, "missing": 2},
               {"name": "sex", "type": "categorical", "distinct": 2, "missing": 0},
               {"name": "city", "type": "categorical", "distinct": 5, "missing": 0},
               {"name": "flag", "type": "binary", "distinct": 2, "missing": 0},
               {"name": "id", "type": "identifier", "distinct": 100, "missing": 0},
               {"name": "y", "type": "binary", "distinct": 2, "missing": 0}]
    assert features_from_profile(columns, {"y"}) == 39 + 1 + 1 + 5 + 1
    assert features_from_profile(columns, {"y"}, "quantile:8") == 8 + 1 + 1 + 5 + 1
