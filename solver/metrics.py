"""Training and holdout metrics of fitted models, by task."""

from __future__ import annotations

import numpy as np

from solver.models import Tree
from solver.survival_metrics import tree_metrics


def confusion_matrix(y, y_pred, n_classes, weights=None):
    """Return the (weighted) confusion matrix, rows = true class, columns = predicted.

    Returns
    -------
    C : array of float64, shape (n_classes, n_classes)
    """
    weights = np.ones(len(y)) if weights is None else weights
    C = np.zeros((n_classes, n_classes))
    np.add.at(C, (np.asarray(y, dtype=np.int64), np.asarray(y_pred, dtype=np.int64)), weights)
    return C


def rank_auc(y, score, weights=None):
    """Return the area under the ROC curve of ``score`` for ``y == 1`` (ties count half).

    For a tree whose leaves score their positive share, this is the area
    under the ROC convex hull of the tree.
    """
    y = np.asarray(y) == 1
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    counts = np.column_stack([np.where(y, 0.0, weights), np.where(y, weights, 0.0)])
    return _grouped_auc(np.asarray(score, dtype=np.float64), counts)


def _grouped_auc(score, counts):
    """Return the AUC of items with ``score`` and (negative, positive) weights ``counts`` (rows, or a tree's leaves)."""
    neg, pos = counts[:, 0].sum(), counts[:, 1].sum()
    if pos == 0 or neg == 0:
        return None
    # Per distinct score, from the highest: negatives there times the positives above (ties count half).
    values, group = np.unique(-score, return_inverse=True)
    p = np.bincount(group, weights=counts[:, 1], minlength=len(values))
    n = np.bincount(group, weights=counts[:, 0], minlength=len(values))
    return float(float(np.dot(n, np.cumsum(p) - p / 2.0)) / (pos * neg))


def classification_metrics(y, y_pred, n_classes, weights=None, score=None):
    """Return accuracy, misclassifications, balanced accuracy, F1, AUC and the confusion matrix.

    Parameters
    ----------
    y, y_pred : array of int64, shape (n,)
    n_classes : int
    weights : array of float64, shape (n,), optional
    score : array of float64, shape (n,), optional
        Positive-class scores (binary problems) for the AUC.
    """
    out = _from_confusion(confusion_matrix(y, y_pred, n_classes, weights), len(y))
    if n_classes == 2:
        out["auc"] = rank_auc(y, score, weights) if score is not None else None
    return out


def _from_confusion(C, n_samples):
    """Return the metrics of ``classification_metrics`` but the AUC, from the confusion matrix."""
    n_classes = C.shape[0]
    total = C.sum()
    correct = np.trace(C)
    support = C.sum(axis=1)
    recall = np.divide(np.diag(C), support, out=np.zeros(n_classes), where=support > 0)
    predicted = C.sum(axis=0)
    precision = np.divide(np.diag(C), predicted, out=np.zeros(n_classes), where=predicted > 0)
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(n_classes), where=precision + recall > 0)
    out = {
        "n_samples": int(n_samples),
        "accuracy": float(correct / total) if total else None,
        "misclassifications": float(total - correct),
        "balanced_accuracy": float(recall[support > 0].mean()) if (support > 0).any() else None,
        "confusion_matrix": C.tolist(),
    }
    if n_classes == 2:
        out["f1"] = float(f1[1])
        out["precision"] = float(precision[1])
        out["recall"] = float(recall[1])
    else:
        out["f1_macro"] = float(f1[support > 0].mean()) if (support > 0).any() else None
    return out


def leaf_scores(model):
    """Return the positive-class score of every node of a binary classifier.

    Uses the model's own scores when it has them (rank objectives), else the
    weighted positive share of the training rows at each node.
    """
    if getattr(model, "score", None) is not None:
        return model.score
    counts = model.counts
    total = counts.sum(axis=1)
    return np.divide(counts[:, 1], total, out=np.full(len(total), 0.5), where=total > 0)


def _classification(model, problem):
    if not isinstance(model, Tree):
        position = model.apply(problem)
        score = leaf_scores(model)[position] if model.counts.shape[1] == 2 else None
        return classification_metrics(
            problem.y, model.outputs[position], len(model.classes), problem.sample_weight, score
        )
    # A tree predicts (and scores) per leaf: every metric follows from the rows' class counts at each leaf,
    # one pass over the rows (``classification_metrics`` on per-row predictions gives the same).
    K, n_nodes = len(model.classes), model.n_nodes
    if problem.n_samples and problem.y.max() >= K:
        raise ValueError(f"the rows have a class index {int(problem.y.max())}; the tree knows {K} classes")
    reached = model.apply(problem)
    at = np.bincount(reached * K + problem.y, weights=problem.weights, minlength=n_nodes * K).reshape(n_nodes, K)
    leaves = np.flatnonzero(model.is_leaf)
    C = at[leaves].T @ np.eye(K)[model.prediction[leaves]]  # C[true, predicted]
    out = _from_confusion(C, problem.n_samples)
    if model.counts.shape[1] == 2:
        out["auc"] = _grouped_auc(leaf_scores(model)[leaves], at[leaves])
        out["leaf_counts"] = {"node": leaves.tolist(), "counts": at[leaves].tolist()}
    return out


def group_fairness(y, y_pred, group, weights=None):
    """Return per-group rates and the two discrimination scores of binary predictions.

    Parameters
    ----------
    y, y_pred : array of int64, shape (n,)
        True and predicted class (1 is positive).
    group : array of int64, shape (n,)
        Protected group, 0 or 1 (1 is the group STreeD calls *a*).
    weights : array of float64, shape (n,), optional

    Returns
    -------
    dict
        ``groups``: per group ``n``, ``positive_rate`` (share predicted
        positive), ``true_positive_rate`` (None without positives) and its
        ``confusion_matrix``; ``demographic_parity``: |difference of the
        positive rates|; ``equality_of_opportunity``: |difference of the true
        positive rates| (None when a group has no positives).
    """
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    groups = []
    for g in (0, 1):
        at = np.asarray(group) == g
        w = weights[at]
        total = w.sum()
        positives = w[y[at] == 1].sum()
        groups.append(
            {
                "group": g,
                "n": int(at.sum()),
                "positive_rate": float(w[y_pred[at] == 1].sum() / total) if total > 0 else None,
                "true_positive_rate": (
                    float(w[(y[at] == 1) & (y_pred[at] == 1)].sum() / positives) if positives > 0 else None
                ),
                "confusion_matrix": confusion_matrix(y[at], y_pred[at], 2, w).tolist(),
            }
        )

    def gap(key):
        a, b = groups[1][key], groups[0][key]
        return None if a is None or b is None else abs(a - b)

    return {
        "groups": groups,
        "demographic_parity": gap("positive_rate"),
        "equality_of_opportunity": gap("true_positive_rate"),
    }


def _with_fairness(out, model, problem):
    """Add ``fairness`` (``group_fairness``) to classification metrics when the problem has a protected group."""
    if problem.group is not None and len(model.classes) == 2 and problem.n_samples:
        out["fairness"] = group_fairness(problem.y, model.predict(problem), problem.group, problem.sample_weight)
    return out


def _survival(model, problem):
    return tree_metrics(model, problem, problem.event, problem.time)


def _policy(model, problem):
    """Return how often the policy agrees with the historic treatment, and the mean outcome where it does."""
    if problem.treatment is None:
        return {}
    agree = model.predict(problem) == problem.treatment
    out = {"n_samples": int(problem.n_samples), "agreement": float(agree.mean())}
    if problem.outcome is not None and agree.any():
        out["mean_outcome_where_agreeing"] = float(problem.outcome[agree].mean())
    return out


# Metrics per model kind; survival and policy entries come with their solvers.
EVALUATORS = {
    "classification": lambda m, p: _with_fairness(_classification(m, p), m, p),
    "survival": _survival,
    "policy": _policy,
}


def evaluate(model, problem):
    """Return the metrics of ``model`` on ``problem`` for the model's task."""
    evaluator = EVALUATORS.get(model.kind)
    if evaluator is None:
        return {}
    return evaluator(model, problem)
