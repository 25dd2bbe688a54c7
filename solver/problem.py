"""The binarized problem every solver reads.

A problem holds its binary features twice over: as the 0/1 matrix ``X`` (one column per cut) and as
``OrderedColumns`` (one rank per row for each family of nested cuts, ``solver.data.ordered``). The
ordered solvers read the ranks; the others read ``X``. A problem made with ``X=None`` and ordered
columns materialises ``X`` only when something reads it (a large numeric table has far more cuts
than rows would fit in memory as bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from solver.roles import ROLE_FIELDS, ROLES  # the one role vocabulary

if TYPE_CHECKING:
    from solver.data.ordered import OrderedColumns


class ProblemError(ValueError):
    """The data does not fit the algorithm; the message is one plain sentence."""


class MatrixTooLarge(ProblemError):
    """A search needs a 0/1 matrix larger than the memory it may use; the message says what to change."""


def check_matrix_fits(ordered, features):
    """Raise ``MatrixTooLarge`` when the 0/1 matrix of ``ordered`` would not fit in what may be allocated.

    The message names the columns with the most thresholds and the ways out.
    """
    from solver import memory

    cells = ordered.cells()
    allowance = memory.allowance()
    if allowance is None or cells <= allowance:
        return
    by_column = {}
    for start, size in zip(ordered.offset.tolist(), ordered.size.tolist()):
        column = (features[start] or {}).get("column", "?")
        by_column[column] = by_column.get(column, 0) + size
    widest = sorted(by_column.items(), key=lambda kv: -kv[1])[:3]
    named = ", ".join(f"{c!r} ({n:,})" for c, n in widest)
    raise MatrixTooLarge(
        f"This search reads one 0/1 column per threshold: {ordered.n_samples:,} rows × {ordered.n_features:,} "
        f"thresholds is {cells / 2**30:,.1f} GB, more than the {allowance / 2**30:,.1f} GB this run may still use. "
        f"The columns with the most thresholds are {named}: choose the quantile binarization (e.g. quantile:16), "
        "leave such columns out, or choose an algorithm that searches numeric thresholds in order (STreeD, GOSDT)."
    )


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
    ordered : OrderedColumns, optional
        The features as ranks of nested families; derived from ``X`` when not given
        (``ordered_columns``). With ``X=None`` it is the only copy, and ``X`` is built on first use.
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
    ordered: OrderedColumns | None = None

    def __post_init__(self):
        if self.X is None:
            if self.ordered is None:
                raise ValueError("a problem needs X or ordered columns")
            # Built on first read (``__getattr__``), so that a problem can exist without its binary matrix.
            object.__delattr__(self, "X")
            shape = (self.ordered.n_samples, self.ordered.n_features)
        else:
            X = np.ascontiguousarray(self.X, dtype=np.uint8)
            if X.ndim != 2:
                raise ValueError(f"X must be a 2-d array, got {X.ndim} dimensions")
            if X.size and X.max() > 1:
                raise ValueError("X must be binary (0/1)")
            object.__setattr__(self, "X", X)
            shape = X.shape
        if len(self.features) != shape[1]:
            raise ValueError(f"{len(self.features)} feature predicates for {shape[1]} columns")
        casts = {
            "y": np.int64,
            "sample_weight": np.float64,
            "time": np.float64,
            "event": bool,
            "group": np.int64,
            "treatment": np.int64,
            "outcome": np.float64,
        }
        for name, dtype in casts.items():
            value = getattr(self, name)
            if value is not None:
                value = np.ascontiguousarray(value, dtype=dtype)
                if value.shape != (shape[0],):
                    raise ValueError(f"{name} has shape {value.shape}, expected ({shape[0]},)")
                object.__setattr__(self, name, value)
        if self.feature_cost is not None:
            object.__setattr__(self, "feature_cost", np.ascontiguousarray(self.feature_cost, dtype=np.float64))
        object.__setattr__(self, "classes", [str(c) for c in self.classes])

    def __getattr__(self, name):
        # Only reached for a missing attribute: the binary matrix of a problem made from ordered columns.
        if name == "X" and "ordered" in self.__dict__ and self.__dict__["ordered"] is not None:
            ordered = self.__dict__["ordered"]
            check_matrix_fits(ordered, self.__dict__["features"])
            X = ordered.binary()
            object.__setattr__(self, "X", X)
            return X
        raise AttributeError(name)

    @property
    def has_binary(self):
        """Whether the binary matrix exists (reading ``X`` builds it)."""
        return "X" in self.__dict__

    @property
    def n_samples(self):
        return self.X.shape[0] if self.has_binary else self.ordered.n_samples

    @property
    def n_features(self):
        return len(self.features)

    def ordered_columns(self):
        """Return the features as ``OrderedColumns`` (given, or derived from ``X`` once)."""
        if self.ordered is None:
            from solver.data.ordered import from_binary  # solver.data imports this module

            object.__setattr__(self, "ordered", from_binary(self.X, self.features))
        return self.ordered

    def column(self, feature, rows=None):
        """Return binary feature ``feature`` as bool (of ``rows``), without building ``X`` if it does not exist."""
        if self.has_binary:
            col = self.X[:, feature] != 0
            return col if rows is None else col[rows]
        return self.ordered.column(feature, rows)

    def with_changes(self, **changes):
        """Return a copy with ``changes`` (``dataclasses.replace`` that keeps an unbuilt ``X`` unbuilt)."""
        if not self.has_binary and "X" not in changes:
            changes["X"] = None
        return replace(self, **changes)

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
        have = {r.name for r in ROLES if getattr(self, r.field) is not None}
        if self.feature_cost is not None:
            have.add("feature_cost")
        return have

    def take(self, rows):
        """Return the sub-problem of the given rows (indices or boolean mask)."""
        rows = np.asarray(rows)
        changes = {"X": self.X[rows] if self.has_binary else None}
        if self.ordered is not None:
            changes["ordered"] = self.ordered.take(rows)
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


def binary_problem(X, y, prefix="c"):
    """Return the ``Problem`` of a 0/1 matrix and a 0/1 label (feature ``j`` is the binary column ``{prefix}{j}``).

    The shared benchmark files with 0/1 columns and the label last are read this way by tests and benchmarks.
    """
    X = np.asarray(X, dtype=np.uint8)
    features = [{"kind": "binary", "column": f"{prefix}{j}"} for j in range(X.shape[1])]
    return Problem(X=X, features=features, y=np.asarray(y, dtype=np.int64), classes=["0", "1"])
