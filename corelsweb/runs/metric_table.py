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
# Scores (higher is better) whose drop from training to test means overfitting, and the drop that warns.
OVERFIT_SCORES = [
    ("auc", "AUC"),
    ("balanced_accuracy", "balanced accuracy"),
    ("accuracy", "accuracy"),
    ("harrell_c", "Harrell's C"),
    ("ibs_ratio", "IBS ratio"),
]
OVERFIT_GAP = 0.1


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
    """Return a sentence per score that is much worse on the test data than on the training data."""
    train = result.get("metrics") or {}
    test = (result.get("holdout") or {}).get("metrics") or {}
    out = []
    for key, words in OVERFIT_SCORES:
        a, b = train.get(key), test.get(key)
        if a is not None and b is not None and a - b >= OVERFIT_GAP:
            out.append(
                f"Training {words} {a:.3f} against test {b:.3f}: the model fits the rows it was fitted on much "
                f"better than new ones (overfitting). A larger λ, a smaller depth or more rows per leaf "
                "usually narrows the gap."
            )
            break  # one warning says it; the table has the rest
    return out


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
    if preview.get("n_features") is not None and (preview["n_features"] != out["n_features"] or evaluation):
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
