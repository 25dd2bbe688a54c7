"""Fitted models as parallel arrays: ``Tree`` and ``RuleList``.

Both split on *binary features* (columns of the binarized matrix) and carry
the predicate of every feature they use, so they predict from the binary
matrix and from raw rows alike, and serialize to self-contained JSON.

Tree convention: node ``i`` with ``feature[i] = j`` sends a row to
``left[i]`` when feature ``j`` is 0 (predicate false) and to ``right[i]``
when it is 1 (predicate true), as scikit-learn does for a 0/1 column split
at 0.5. Leaves have ``feature == LEAF`` and ``left == right == LEAF``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from solver import predicates

LEAF = -1
MODEL_SCHEMA_VERSION = 1


def _int_array(values):
    return np.ascontiguousarray(values, dtype=np.int64)


def _matrix(X):
    """Return the binary matrix of ``X`` when it is one (or a ``Problem`` that has built one), else None."""
    if isinstance(X, np.ndarray):
        return X
    if getattr(X, "has_binary", False):
        return X.X
    return None


class _Splits:
    """Where a model reads its splits when there is no binary matrix: a ``Problem``'s ranks or a raw table.

    ``truth(j, rows)`` evaluates binary feature ``j`` on some rows only: a problem through ``Problem.column``
    (ranks, never the matrix), a raw table (a mapping of column name to values, or a ``Table``) through the
    model's predicate ``features[j]`` on those rows' values.
    """

    def __init__(self, X, features):
        if hasattr(X, "column"):
            self.n, self.problem = X.n_samples, X
            return
        self.problem = None
        self.table = X if isinstance(X, Mapping) else X.columns
        self.features = features
        self.n = len(next(iter(self.table.values()))) if self.table else 0

    def truth(self, j, rows):
        if self.problem is not None:
            return self.problem.column(j, rows)
        p = self.features[j]
        return predicates.evaluate(p, {c: self.table[c][rows] for c in predicates.columns_used(p) if c in self.table})


def tree_dict(feature, left, right, prediction, counts, classes, features, kind):
    """Return the JSON-able dict of a tree (``Tree.to_dict``) from plain lists, without building the ``Tree``.

    ``counts`` is a list of per-node lists; ``features`` the problem's full predicate list.
    """
    return {
        "type": "tree",
        "version": MODEL_SCHEMA_VERSION,
        "kind": kind,
        "feature": feature,
        "left": left,
        "right": right,
        "prediction": prediction,
        "counts": counts,
        "classes": [str(c) for c in classes],
        "n_features": len(features),
        "features": {str(j): features[j] for j in sorted({f for f in feature if f != LEAF})},
    }


@dataclass(eq=False)
class Tree:
    """A binary decision tree over binary features.

    Attributes
    ----------
    feature : array of int64, shape (n_nodes,)
        Index into ``features`` of the split of each node, ``LEAF`` at leaves.
    left, right : array of int64, shape (n_nodes,)
        Children: ``left`` when the feature is 0, ``right`` when it is 1.
    prediction : array of int64, shape (n_nodes,)
        Class index (classification), treatment index (policy) or leaf
        number (survival) predicted at each node; meaningful at leaves.
    counts : array of float64, shape (n_nodes, n_outputs)
        Training (weighted) class counts reaching each node; for survival
        trees, columns are (samples, events).
    features : list of dict
        Predicate of every binary feature index (the full list of the
        problem, so that indices stay valid).
    classes : list of str
        Labels of the class indices (or treatment names for policy trees).
    kind : {"classification", "survival", "policy"}
    score : array of float64, shape (n_nodes,), optional
        Positive-class score of each leaf for rank objectives (AUC).
    curves : dict of int to dict, optional
        Survival trees: per-leaf Kaplan-Meier curve ``{"time": [...],
        "survival": [...]}``.
    """

    feature: np.ndarray
    left: np.ndarray
    right: np.ndarray
    prediction: np.ndarray
    counts: np.ndarray
    features: list
    classes: list
    kind: str = "classification"
    score: np.ndarray | None = None
    curves: dict = field(default_factory=dict)

    def __post_init__(self):
        self.feature = _int_array(self.feature)
        self.left = _int_array(self.left)
        self.right = _int_array(self.right)
        self.prediction = _int_array(self.prediction)
        self.counts = np.atleast_2d(np.asarray(self.counts, dtype=np.float64))
        if self.score is not None:
            self.score = np.asarray(self.score, dtype=np.float64)
        self.classes = [str(c) for c in self.classes]
        n = len(self.feature)
        for name in ("left", "right", "prediction"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"Tree.{name} has {len(getattr(self, name))} entries, expected {n}")

    @property
    def n_nodes(self):
        return len(self.feature)

    @property
    def is_leaf(self):
        return self.feature == LEAF

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.is_leaf))

    @property
    def depth(self):
        """Number of splits on the longest root-to-leaf path (a stump has 1)."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        for i in range(self.n_nodes):
            if self.feature[i] != LEAF:
                depth[self.left[i]] = depth[i] + 1
                depth[self.right[i]] = depth[i] + 1
        return int(depth.max()) if self.n_nodes else 0

    def apply(self, X):
        """Return the leaf index that every row reaches.

        Parameters
        ----------
        X : array of uint8 or bool, shape (n, n_features), a ``Problem`` or a raw table
            A problem is read through ``Problem.column`` (its binary matrix is not built); a raw table
            (mapping of column name to values, or ``Table``) through the predicates of the splits.
        """
        matrix = _matrix(X)
        if matrix is None:
            return self._apply_by_feature(_Splits(X, self.features))
        node = np.zeros(len(matrix), dtype=np.int64)
        active = self.feature[node] != LEAF
        while active.any():
            rows = np.flatnonzero(active)
            at = node[rows]
            go_right = matrix[rows, self.feature[at]] != 0
            node[rows] = np.where(go_right, self.right[at], self.left[at])
            active = self.feature[node] != LEAF
        return node

    def _apply_by_feature(self, splits):
        """``apply`` level by level, each split's feature evaluated on the rows at its nodes only."""
        node = np.zeros(splits.n, dtype=np.int64)
        rows = np.flatnonzero(self.feature[node] != LEAF)
        while len(rows):
            feature = self.feature[node[rows]]
            order = np.argsort(feature, kind="stable")
            rows, feature = rows[order], feature[order]
            starts = np.flatnonzero(np.r_[True, feature[1:] != feature[:-1]])
            go_right = np.empty(len(rows), dtype=bool)
            for a, b in zip(starts.tolist(), np.r_[starts[1:], len(rows)].tolist()):
                go_right[a:b] = splits.truth(int(feature[a]), rows[a:b])
            at = node[rows]
            node[rows] = np.where(go_right, self.right[at], self.left[at])
            rows = rows[self.feature[node[rows]] != LEAF]
        return node

    @property
    def outputs(self):
        """Prediction index of each position ``apply`` returns (each node)."""
        return self.prediction

    def predict(self, X):
        """Return the prediction index of every row (``X`` as in ``apply``)."""
        return self.outputs[self.apply(X)]

    def narrowed(self):
        """Return this tree over only the features it splits on (renumbered in order), and their old indices."""
        used = np.unique(self.feature[self.feature != LEAF])
        feature = np.where(self.feature == LEAF, LEAF, np.searchsorted(used, np.maximum(self.feature, 0)))
        return replace(self, feature=feature, features=[self.features[j] for j in used.tolist()]), used

    def leaf_rules(self):
        """Return ``{leaf: [literal text, ...]}`` for every leaf, root first."""
        rules = {0: []}
        for i in range(self.n_nodes):
            if self.feature[i] != LEAF:
                p = self.features[self.feature[i]]
                rules[self.left[i]] = rules[i] + [predicates.negation_text(p)]
                rules[self.right[i]] = rules[i] + [predicates.text(p)]
        return {i: rules[i] for i in range(self.n_nodes) if self.feature[i] == LEAF}

    def to_dict(self):
        """Return a JSON-able dict; ``Tree.from_dict`` inverts it."""
        out = tree_dict(
            self.feature.tolist(),
            self.left.tolist(),
            self.right.tolist(),
            self.prediction.tolist(),
            self.counts.tolist(),
            self.classes,
            self.features,
            self.kind,
        )
        if self.score is not None:
            out["score"] = self.score.tolist()
        if self.curves:
            out["curves"] = {str(k): v for k, v in self.curves.items()}
        return out

    @classmethod
    def from_dict(cls, d):
        features = _features_from_dict(d)
        return cls(
            feature=d["feature"],
            left=d["left"],
            right=d["right"],
            prediction=d["prediction"],
            counts=d["counts"],
            features=features,
            classes=d["classes"],
            kind=d.get("kind", "classification"),
            score=d.get("score"),
            curves={int(k): v for k, v in d.get("curves", {}).items()},
        )


@dataclass(eq=False)
class RuleList:
    """An ordered list of rules ``if a_1 then p_1 elif a_2 then p_2 ... else p_0``.

    Attributes
    ----------
    antecedents : array of int64, shape (k,)
        Feature index of each rule's antecedent, in order.
    predictions : array of int64, shape (k,)
        Class index each rule predicts.
    default : int
        Class index predicted when no rule fires.
    counts : array of float64, shape (k + 1, n_classes)
        Training class counts captured by each rule, the default rule last.
    features : list of dict
        Predicate of every feature index of the problem.
    classes : list of str
    """

    antecedents: np.ndarray
    predictions: np.ndarray
    default: int
    counts: np.ndarray
    features: list
    classes: list

    kind = "classification"

    def __post_init__(self):
        self.antecedents = _int_array(self.antecedents)
        self.predictions = _int_array(self.predictions)
        self.default = int(self.default)
        self.counts = np.asarray(self.counts, dtype=np.float64).reshape(len(self.antecedents) + 1, -1)
        self.classes = [str(c) for c in self.classes]
        if len(self.predictions) != len(self.antecedents):
            raise ValueError("RuleList needs one prediction per antecedent")

    @property
    def length(self):
        return len(self.antecedents)

    @property
    def n_leaves(self):
        """Number of rules including the default (the analogue of tree leaves)."""
        return len(self.antecedents) + 1

    def apply(self, X):
        """Return the index of the rule that captures each row (``length`` = default); ``X`` as in ``Tree.apply``."""
        matrix = _matrix(X)
        splits = None if matrix is not None else _Splits(X, self.features)
        n = len(matrix) if matrix is not None else splits.n
        rule = np.full(n, self.length, dtype=np.int64)
        every = np.arange(n)
        for k in range(self.length - 1, -1, -1):
            j = int(self.antecedents[k])
            rule[(matrix[:, j] != 0) if matrix is not None else splits.truth(j, every)] = k
        return rule

    @property
    def outputs(self):
        """Class index of each position ``apply`` returns (each rule, the default last)."""
        return np.append(self.predictions, self.default)

    def predict(self, X):
        """Return the class index of every row (``X`` as in ``Tree.apply``)."""
        return self.outputs[self.apply(X)]

    def narrowed(self):
        """Return this list over only its antecedents' features (renumbered in order), and their old indices."""
        used = np.unique(self.antecedents)
        antecedents = np.searchsorted(used, self.antecedents)
        return replace(self, antecedents=antecedents, features=[self.features[j] for j in used.tolist()]), used

    def rule_texts(self):
        """Return the text of each antecedent, in order."""
        return [predicates.text(self.features[j]) for j in self.antecedents]

    def to_dict(self):
        """Return a JSON-able dict; ``RuleList.from_dict`` inverts it."""
        used = sorted(set(self.antecedents.tolist()))
        return {
            "type": "rule_list",
            "version": MODEL_SCHEMA_VERSION,
            "kind": self.kind,
            "antecedents": self.antecedents.tolist(),
            "predictions": self.predictions.tolist(),
            "default": self.default,
            "counts": self.counts.tolist(),
            "classes": list(self.classes),
            "n_features": len(self.features),
            "features": {str(j): self.features[j] for j in used},
        }

    @classmethod
    def from_dict(cls, d):
        return cls(
            antecedents=d["antecedents"],
            predictions=d["predictions"],
            default=d["default"],
            counts=d["counts"],
            features=_features_from_dict(d),
            classes=d["classes"],
        )


def _features_from_dict(d):
    # Only used features are stored; unused indices keep a placeholder so that
    # indices stay valid without storing thousands of unused predicates.
    features = [None] * int(d["n_features"])
    for key, p in d["features"].items():
        features[int(key)] = p
    return features


def model_from_dict(d):
    """Rebuild a ``Tree`` or ``RuleList`` from its ``to_dict`` form."""
    kinds = {"tree": Tree, "rule_list": RuleList}
    if d.get("type") not in kinds:
        raise ValueError(f"unknown model type {d.get('type')!r}")
    return kinds[d["type"]].from_dict(d)


def leaf_tree(counts, prediction, features, classes, kind="classification"):
    """Return the one-leaf tree (every row gets ``prediction``)."""
    return Tree(
        feature=[LEAF],
        left=[LEAF],
        right=[LEAF],
        prediction=[prediction],
        counts=[counts],
        features=features,
        classes=classes,
        kind=kind,
    )
