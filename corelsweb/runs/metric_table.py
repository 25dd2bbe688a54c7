"""The metrics a run page shows: one row per metric, training beside test, and what to make of the gap."""

from solver.data.binarize import label_classes

import numpy as np

# (key, title, meaning, format); a format of "percent" shows a share, "count" the misclassified rows too.
CLASSIFICATION = [
    ("accuracy", "Accuracy", "share of rows classified right; higher is better", "percent"),
    ("balanced_accuracy", "Balanced accuracy", "mean recall over the classes; higher is better", "percent"),
    ("f1", "F1", "of the positive class; higher is better", "4"),
    ("auc", "AUC", "area under the ROC convex hull of the leaves; higher is better", "4"),
]
SURVIVAL = [
    ("ibs", "Integrated Brier score", "IPCW; lower is better", "4"),
    ("ibs_ratio", "IBS ratio", "1 − IBS / IBS of one Kaplan-Meier curve for everyone; higher is better", "4"),
    ("harrell_c", "Harrell's C-index", "comparable pairs ordered right; 0.5 is chance, higher is better", "4"),
    ("uno_c", "Uno's C-index", "Harrell's C weighted by the inverse censoring probability; higher is better", "4"),
]
POLICY = [
    ("agreement", "Agreement with the historic treatment", "share of rows", "percent"),
    ("mean_outcome_where_agreeing", "Mean outcome where it agrees", "", "4"),
]
# Every measure an objective is judged by, with the direction that is better: a test value this much worse than the
# training value means overfitting (an absolute drop for scores in [0, 1], a relative rise for the Brier score).
OVERFIT_MEASURES = [
    ("accuracy", "accuracy", "higher"),
    ("balanced_accuracy", "balanced accuracy", "higher"),
    ("f1", "F1", "higher"),
    ("auc", "AUC", "higher"),
    ("harrell_c", "Harrell's C", "higher"),
    ("uno_c", "Uno's C", "higher"),
    ("ibs_ratio", "IBS ratio", "higher"),
    ("ibs", "integrated Brier score", "lower"),
]
OVERFIT_GAP = 0.1  # scores: 0.1 lower on test
OVERFIT_RISE = 0.25  # the integrated Brier score: 25 % higher on test
# The measure each objective minimises (its own loss), checked first.
OBJECTIVE_MEASURE = {
    "accuracy": "accuracy",
    "weighted_accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy",
    "f1": "f1",
    "auc": "auc",
    "pauc": "auc",
    "ibs": "ibs",
}


def fmt(value, how):
    if value is None:
        return "—"
    if how == "percent":
        return f"{100 * value:.1f} %"
    return f"{value:.{int(how)}f}"


def rows_for(metrics):
    """Return the metric definitions that fit a metrics dict (by the keys it has)."""
    if "ibs" in metrics:
        return SURVIVAL
    if "agreement" in metrics:
        return POLICY
    return CLASSIFICATION


def metric_table(result):
    """Return ``{"rows", "test", "test_rows", "test_error"}``: each metric on training and (if any) test data.

    A row is ``{"title", "meaning", "training", "test"}`` with formatted values.
    """
    train = result.get("metrics") or {}
    holdout = result.get("holdout") or {}
    test = holdout.get("metrics")
    rows = []
    for key, title, meaning, how in rows_for(train):
        if train.get(key) is None and (test or {}).get(key) is None:
            continue
        rows.append(
            {
                "key": key,
                "title": title,
                "meaning": meaning,
                "training": fmt(train.get(key), how),
                "test": fmt((test or {}).get(key), how) if test is not None else None,
            }
        )
    misclassified = [train.get("misclassifications"), (test or {}).get("misclassifications")]
    if misclassified[0] is not None:
        rows.insert(
            1,
            {
                "key": "misclassifications",
                "title": "Misclassified rows",
                "meaning": "(weighted) count",
                "training": f"{misclassified[0]:,.0f} of {train.get('n_samples', 0):,}",
                "test": None
                if test is None
                else "—"
                if misclassified[1] is None
                else f"{misclassified[1]:,.0f} of {test.get('n_samples', 0):,}",
            },
        )
    return {
        "rows": rows,
        "test": test is not None,
        "test_description": holdout.get("description", ""),
        "test_rows": holdout.get("n_samples"),
        "test_error": holdout.get("error"),
    }


def overfitting_warnings(result):
    """Return one sentence naming every measure that is much worse on the test data than on the training data.

    Every objective is covered: the classification scores, F1 and AUC, the survival C-indices and Brier score, and
    for a protected group the discrimination the run measured (a constraint met on training rows only).
    """
    train = result.get("metrics") or {}
    test = (result.get("holdout") or {}).get("metrics") or {}
    if not test:
        return []
    objective = (result.get("params") or {}).get("objective") or ("ibs" if "ibs" in train else "accuracy")
    first = OBJECTIVE_MEASURE.get(objective)
    measures = sorted(OVERFIT_MEASURES, key=lambda m: m[0] != first)
    worse = [
        f"{words} {a:.3f} against {b:.3f}"
        for key, words, better in measures
        if (a := train.get(key)) is not None and (b := test.get(key)) is not None and _much_worse(a, b, better)
    ]
    worse += _fairness_worse(train, test, objective)
    if not worse:
        return []
    return [
        f"Training against test: {'; '.join(worse)}. The model fits the rows it was fitted on much better than new "
        "ones (overfitting). A larger λ, a smaller depth or more rows per leaf usually narrows the gap."
    ]


def _much_worse(train, test, better):
    if better == "higher":
        return train - test >= OVERFIT_GAP
    return test > train * (1 + OVERFIT_RISE) and test - train >= 0.01


def _fairness_worse(train, test, objective):
    """Return the discrimination that grew from training to test data by the gap, in words (or nothing)."""
    measure = objective if objective == "equality_of_opportunity" else "demographic_parity"
    a = (train.get("fairness") or {}).get(measure)
    b = (test.get("fairness") or {}).get(measure)
    if a is None or b is None or b - a < OVERFIT_GAP:
        return []
    return [f"discrimination ({measure.replace('_', ' ')}, lower is fairer) {a:.3f} against {b:.3f}"]


def group_names(dataset_columns, roles):
    """Return the protected group's two values ``[group 0, group 1]`` as the solver numbers them, or None."""
    name = (roles or {}).get("group")
    column = next((c for c in dataset_columns or [] if c.get("name") == name), None)
    if not name or column is None or not column.get("counts"):
        return None
    _, classes = label_classes(np.array(list(column["counts"]), dtype=object), role="group")
    return classes if len(classes) == 2 else None


def fairness_table(result, names, task=None):
    """Return the fairness block of a run page (None without a protected group).

    ``{"column", "measure", "rows": [{"data", "discrimination", "groups": [...]}]}``: for training and test
    data the discrimination the run constrained (demographic parity or equality of opportunity) and, per
    group, its rows, positive-prediction rate, true positive rate and confusion matrix.
    """
    train = (result.get("metrics") or {}).get("fairness")
    if not train:
        return None
    measure = task if task in ("demographic_parity", "equality_of_opportunity") else "demographic_parity"
    classes = (result.get("model") or {}).get("classes") or ["0", "1"]
    out = []
    test = ((result.get("holdout") or {}).get("metrics") or {}).get("fairness")
    for data, block in (("training", train), ("test", test)):
        if not block:
            continue
        groups = []
        for g in block["groups"]:
            cm = g["confusion_matrix"]
            label = names[g["group"]] if names else str(g["group"])
            groups.append(
                {
                    "name": f"{label} (group {'a' if g['group'] == 1 else 'b'})",
                    "n": g["n"],
                    "positive_rate": fmt(g["positive_rate"], "percent"),
                    "true_positive_rate": fmt(g["true_positive_rate"], "percent"),
                    "confusion": [[classes[t], *(f"{v:,.0f}" for v in cm[t])] for t in range(2)],
                }
            )
        out.append(
            {
                "data": data,
                "discrimination": fmt(block.get(measure), "4"),
                "groups": groups,
                "other": fmt(
                    block.get("equality_of_opportunity" if measure == "demographic_parity" else "demographic_parity"),
                    "4",
                ),
            }
        )
    words = {
        "demographic_parity": "Demographic parity: |P(ŷ = positive | group a) − P(ŷ = positive | group b)|",
        "equality_of_opportunity": "Equality of opportunity: |TPR(group a) − TPR(group b)|",
    }
    other = "equality_of_opportunity" if measure == "demographic_parity" else "demographic_parity"
    return {
        "measure": words[measure],
        "other_measure": other.replace("_", " "),
        "rows": out,
        "classes": classes,
        "names": names,
    }


def searched_features(result, dataset_preview=None, evaluation=None):
    """Return what the run searched over: per column its thresholds or values, the binarization, and why it differs
    from the dataset page's preview. None for results stored before the run recorded it."""
    from solver.predicates import format_number

    problem = result.get("problem") or {}
    searched = problem.get("searched")
    if searched is None:
        return None
    report = problem.get("binarization") or {}
    direct = set(report.get("searched_directly") or [])
    columns = []
    for entry in searched:
        if entry["column"] in direct:
            detail = "every threshold of the column, searched directly"
        elif entry["thresholds"]:
            shown = ", ".join(format_number(t) for t in entry["thresholds"])
            detail = f"≤ {shown}" + (" …" if entry["count"] > len(entry["thresholds"]) + len(entry["values"]) else "")
        elif entry["values"]:
            detail = "= " + ", ".join(entry["values"]) + (" …" if entry["count"] > len(entry["values"]) else "")
        else:
            detail = "; ".join(entry["other"])
        columns.append({"column": entry["column"], "count": entry["count"], "detail": detail})
    out = {
        "n_features": problem.get("n_features"),
        "n_samples": problem.get("n_samples"),
        "columns": columns,
        "method": report.get("method", ""),
        "exact": report.get("exact", True),
        "best_accuracy": report.get("best_accuracy"),
        "best_accuracy_raw": report.get("best_accuracy_raw"),
        "why": "",
    }
    preview = dataset_preview or {}
    if report.get("thinned"):
        out["why"] = report.get("note", "")
    elif preview.get("n_features") is not None and (preview["n_features"] != out["n_features"] or evaluation):
        whole = preview.get("n_rows") or 0
        out["why"] = (
            f"The dataset page previews {preview['n_features']:,} features made from all "
            f"{whole:,} rows; this run made its {out['n_features']:,} from its own "
            f"{out['n_samples']:,} training rows"
            + (" (the test rows were left out)" if evaluation else "")
            + (
                ", and boosted or quantile thresholds are refitted on them."
                if not out["exact"]
                else ", so values that occur only in the test rows give no thresholds here."
            )
        )
    return out
