"""The binarized problem every solver reads."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

ROLE_FIELDS = ("y", "sample_weight", "time", "event", "group", "treatment", "outcome")


@dataclass(frozen=True, eq=False)
class Problem:
    """A binarized learning problem.

    Attributes
    ----------
    X : array of uint8, shape (n, m)
        Binary features, one column per predicate in ``features``.
    features : list of dict
        The predicate of each column (see ``solver.predicates``).
    y : array of int64, shape (n,), optional
        Class index of each row (classification), into ``classes``.
    classes : list of str
        Label values; for binary problems ``classes[1]`` is the positive class.
    sample_weight : array of float64, shape (n,), optional
        Non-negative row weights; ``None`` means all ones.
    time : array of float64, shape (n,), optional
        Survival or censoring time.
    event : array of bool, shape (n,), optional
        True where the event was observed (not censored).
    group : array of int64, shape (n,), optional
        Protected group (0/1) for fairness constraints.
    treatment : array of int64, shape (n,), optional
        Treatment index for policy trees, into ``treatments``.
    outcome : array of float64, shape (n,), optional
        Observed outcome for policy trees.
    feature_cost : array of float64, shape (m,), optional
        Cost of testing each feature.
    label_name : str
        Name of the label column (or of the survival time column).
    notes : list of str
        Plain sentences about how the raw table became this problem.
    binarization : dict
        How the features were made (``solver.data.binarize.binarization_report``).
    """

    X: np.ndarray
    features: list
    y: np.ndarray | None = None
    classes: list = field(default_factory=list)
    sample_weight: np.ndarray | None = None
    time: np.ndarray | None = None
    event: np.ndarray | None = None
    group: np.ndarray | None = None
    treatment: np.ndarray | None = None
    treatments: list = field(default_factory=list)
    outcome: np.ndarray | None = None
    feature_cost: np.ndarray | None = None
    label_name: str = "label"
    notes: list = field(default_factory=list)
    binarization: dict = field(default_factory=dict)

    def __post_init__(self):
        X = np.ascontiguousarray(self.X, dtype=np.uint8)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d array, got {X.ndim} dimensions")
        if X.size and X.max() > 1:
            raise ValueError("X must be binary (0/1)")
        object.__setattr__(self, "X", X)
        if len(self.features) != X.shape[1]:
            raise ValueError(f"{len(self.features)} feature predicates for {X.shape[1]} columns")
        casts = {"y": np.int64, "sample_weight": np.float64, "time": np.float64, "event": bool,
                 "group": np.int64, "treatment": np.int64, "outcome": np.float64}
        for name, dtype in casts.items():
            value = getattr(self, name)
            if value is not None:
                value = np.ascontiguousarray(value, dtype=dtype)
                if value.shape != (X.shape[0],):
                    raise ValueError(f"{name} has shape {value.shape}, expected ({X.shape[0]},)")
                object.__setattr__(self, name, value)
        if self.feature_cost is not None:
            object.__setattr__(self, "feature_cost", np.ascontiguousarray(self.feature_cost, dtype=np.float64))
        object.__setattr__(self, "classes", [str(c) for c in self.classes])

    @property
    def n_samples(self):
        return self.X.shape[0]

    @property
    def n_features(self):
        return self.X.shape[1]

    @property
    def n_classes(self):
        return len(self.classes)

    @property
    def weights(self):
        """Row weights as float64 (ones when no weight column was given)."""
        if self.sample_weight is None:
            return np.ones(self.n_samples)
        return self.sample_weight

    def roles(self):
        """Return the set of roles this problem has (``label``, ``time``, ...)."""
        have = set()
        if self.y is not None:
            have.add("label")
        for name in ("time", "event", "group", "treatment", "outcome", "feature_cost"):
            if getattr(self, name) is not None:
                have.add(name)
        if self.sample_weight is not None:
            have.add("weight")
        return have

    def take(self, rows):
        """Return the sub-problem of the given rows (indices or boolean mask)."""
        rows = np.asarray(rows)
        changes = {"X": self.X[rows]}
        for name in ROLE_FIELDS:
            value = getattr(self, name)
            if value is not None:
                changes[name] = value[rows]
        return replace(self, **changes)

    def summary(self):
        """Return a JSON-able description (sizes and names, not data)."""
        out = {
            "n_samples": int(self.n_samples),
            "n_features": int(self.n_features),
            "label": self.label_name,
            "classes": list(self.classes),
            "roles": sorted(self.roles()),
        }
        if self.y is not None:
            out["class_counts"] = np.bincount(self.y, minlength=self.n_classes).tolist()
        if self.event is not None:
            out["events"] = int(self.event.sum())
        if self.notes:
            out["notes"] = list(self.notes)
        if self.binarization:
            out["binarization"] = dict(self.binarization)
        return out
