# Check the pre-run estimate: the leaf bound, the effective depth and the difficulty words.
from solver.estimate import effective_depth, estimate, level, max_leaves


def test_max_leaves_uses_lambda_and_depth():
    assert max_leaves(0.3, 0.1) == 4
    assert max_leaves(0.3, 0.01, max_depth=2) == 4
    assert max_leaves(0.3, 0.0) is None


def test_effective_depth_is_the_smaller_of_the_limit_and_log2_leaves():
    assert effective_depth(4, None) == 2
    assert effective_depth(40, 3) == 3
    assert effective_depth(None, None) is None


def test_levels_follow_features_and_depth():
    assert level(11, 3) == "easy"
    assert level(155, 6) == "hard"
    assert level(155, 5) == "moderate"
    assert level(14_000, 3) == "very hard"
    assert level(20, None) == "hard"


def test_hard_searches_warn_and_suggest():
    hard = estimate(n_features=14_000, n_rows=569, loss0=0.37, lam=0.001, max_depth=None)
    assert hard["level"] == "very hard" and hard["warnings"]
    assert any("quantile" in s for s in hard["suggestions"]) and any("λ" in s for s in hard["suggestions"])
    assert any("depth" in s for s in hard["suggestions"])
    easy = estimate(n_features=11, n_rows=124, loss0=0.5, lam=0.1, max_depth=3)
    assert easy["level"] == "easy" and not easy["warnings"] and not easy["suggestions"]


def test_few_binary_features_are_easy_whatever_the_depth():
    # Found by a QA pass: GOSDT on monk1 (11 features, 124 rows) at λ 0.01 without a depth limit was called
    # "hard, likely to stop at its time limit"; it proves in 0.2 s (car-evaluation, 15 × 1,728: 4.4 s).
    monk1 = estimate(n_features=11, n_rows=124, loss0=0.5, lam=0.01, max_depth=None)
    assert monk1["level"] == "easy" and not monk1["warnings"] and monk1["depth"] <= 11
    assert estimate(n_features=15, n_rows=1728, loss0=0.3, lam=0.001, max_depth=None)["level"] == "moderate"
    assert estimate(n_features=27, n_rows=958, loss0=0.35, lam=0.001, max_depth=None)["level"] == "hard"


def test_rule_lists_are_judged_by_their_antecedents():
    assert estimate(155, 6489, 0.45, 0.005, rule_list=True)["level"] == "moderate"
    assert estimate(10_000, 569, 0.37, 0.01, rule_list=True)["level"] == "very hard"


def test_advice_names_only_a_coarser_binarization_than_the_chosen_one():
    # Check issue 21, item 9: no "boosted binarization" advice when it is already chosen, no λ advice without a λ.
    from solver.estimate import coarser_binarization

    assert "boosted" in coarser_binarization("exact") and coarser_binarization("gbdt:40:1") is None
    assert "quantile:4" in coarser_binarization("quantile:16") and coarser_binarization("quantile:4") is None
    boosted = estimate(14_000, 569, 0.37, 0.001, None, binarization="gbdt:40:1")
    assert not any("boosted" in s or "quantile" in s for s in boosted["suggestions"])
    no_lambda = estimate(14_000, 569, 0.37, 0.001, 6, has_lambda=False)
    assert not any("λ" in s for s in no_lambda["suggestions"])


def test_numeric_columns_searched_in_order_are_judged_by_rows_columns_and_depth():
    # Check issue 18, item 5: thousands of exact thresholds no longer make STreeD or GOSDT "very hard" by
    # themselves; rows × columns and depth do, and the advice names what applies to the ordered search.
    from solver import registry
    from solver.estimate import estimate_for

    streed, gosdt = registry.get("streed"), registry.get("gosdt")
    bank = [1072, 1029, 1024, 953]  # bank.csv: 4 numeric columns, 4,078 exact thresholds, 1,097 rows
    easy = estimate_for(streed, 4078, 1097, 0.44, streed.clean({"max_depth": 3}), column_cuts=bank)
    assert easy["level"] == "easy" and easy["ordered"] and not easy["warnings"]
    eeg = [576] * 14
    hard = estimate_for(streed, sum(eeg), 11_984, 0.45, streed.clean({"max_depth": 3}), column_cuts=eeg)
    assert hard["level"] == "hard" and any("quantile" in s and "approximation" in s for s in hard["suggestions"])
    assert not any("λ" in s for s in hard["suggestions"])  # STreeD has no λ
    # The 0/1 search's model still judges what the ordered search does not serve (F1) and explicit binary runs.
    f1 = estimate_for(streed, 4078, 1097, 0.44, streed.clean({"max_depth": 3, "objective": "f1"}), column_cuts=bank)
    assert f1["level"] == "very hard" and "ordered" not in f1
    binary = estimate_for(
        gosdt, 4078, 1097, 0.44, gosdt.clean({"max_depth": 3, "threshold_search": "binary"}), column_cuts=bank
    )
    assert binary["level"] == "very hard"
    unlimited = estimate_for(gosdt, 4078, 1097, 0.44, gosdt.clean({"regularization": 0.001}), column_cuts=bank)
    assert (
        unlimited["ordered"]
        and unlimited["level"] == "very hard"
        and any("depth" in s for s in unlimited["suggestions"])
    )
