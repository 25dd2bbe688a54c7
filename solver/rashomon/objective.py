"""Exact integer objectives for the Rashomon set (spec §1.1, §1.3).

Every additive objective of GOSDT is ``loss/D + λ·leaves`` with an integer loss ``m`` once each
row's cost is scaled to an integer (accuracy: 1 per row and ``D = N``; balanced and weighted
accuracy: per-class weights). With ``λ = p/q`` a tree's objective times ``D·q`` is the integer
*key* ``m·q + h·p·D``, so membership ``key ≤ Θ`` is decided without any float.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from solver.data.binarize import row_groups

from solver.api import ProblemError


def exact(x):
    """Return the decimal value of a float or string as a ``Fraction`` (0.01 is 1/100, not its binary neighbour)."""
    return Fraction(repr(float(x))) if not isinstance(x, (str, Fraction, int)) else Fraction(x)


def class_costs(objective, positives, negatives, cost_weight):
    """Return (cost of a misclassified negative, of a misclassified positive) as ``Fraction`` (GOSDT spec §1.4)."""
    if objective == "accuracy":
        total = positives + negatives
        return Fraction(1) / total, Fraction(1) / total
    if positives <= 0 or negatives <= 0:
        raise ProblemError("Balanced and weighted accuracy need rows of both classes with positive weight.")
    if objective == "balanced_accuracy":
        return 1 / (2 * negatives), 1 / (2 * positives)
    omega = exact(cost_weight)
    denominator = omega * positives + negatives
    return 1 / denominator, omega / denominator


@dataclass(frozen=True)
class Keys:
    """The integer scale of one run: ``key(m, h) = m·q + h·lam``.

    ``scale`` (``D``) turns integer mistakes into loss: ``loss = m / D``.
    """

    q: int
    lam: int
    scale: int

    def key(self, m, h):
        return m * self.q + h * self.lam

    def objective(self, m, h):
        """Return the exact objective of a tree with ``m`` weighted mistakes and ``h`` leaves."""
        return Fraction(self.key(m, h), self.scale * self.q)

    def from_objective(self, value):
        """Return the largest integer key whose objective is at most ``value`` (a ``Fraction``)."""
        return math.floor(value * self.scale * self.q)


@dataclass(frozen=True)
class Rows:
    """The rows of a binary problem as Python-int bitsets, with integer costs.

    Attributes
    ----------
    n : int
    cols : list of int
        ``cols[j]``: the rows where feature ``j`` is 1.
    groups : list of (int, int, int)
        ``(class, cost, rows)``: rows of one class and one integer cost.
    mixed : list of (int, int)
        ``(rows, unavoidable cost)`` of every group of identical feature vectors with both labels
        (the equivalent-points bound, GOSDT Thm B.9).
    keys : Keys
    """

    n: int
    cols: list
    groups: list
    mixed: list
    keys: Keys

    @property
    def all(self):
        return (1 << self.n) - 1

    def class_costs(self, support):
        """Return the cost of the rows of class 0 and of class 1 in ``support``."""
        w = [0, 0]
        for c, cost, rows in self.groups:
            w[c] += cost * (support & rows).bit_count()
        return w

    def leaf(self, support):
        """Return (mistakes, label) of the majority leaf; a tie predicts 1 (treefarms, spec §1.1)."""
        w0, w1 = self.class_costs(support)
        return (w0, 1) if w1 >= w0 else (w1, 0)

    def unavoidable(self, support):
        return sum(cost for rows, cost in self.mixed if support & rows)


def bits_of(mask_array):
    """Return the rows where a 0/1 vector is 1 as a Python int (row ``i`` is bit ``i``)."""
    packed = np.packbits(np.asarray(mask_array, dtype=np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def make_rows(problem, config):
    """Return the ``Rows`` of ``problem`` under ``config`` (objective, λ, ω)."""
    if problem.n_classes > 2:
        raise ProblemError(f"Rashomon sets handle two classes; the label has {problem.n_classes}.")
    X = np.asarray(problem.X, dtype=np.uint8)
    y = np.asarray(problem.y, dtype=np.int64)
    weights = problem.weights
    if np.any(weights < 0) or not np.isfinite(weights).all() or weights.sum() <= 0:
        raise ProblemError("Row weights must be finite, non-negative and not all zero.")
    w = [exact(v) for v in weights.tolist()]
    positives = sum((wi for wi, yi in zip(w, y) if yi == 1), Fraction(0))
    negatives = sum((wi for wi, yi in zip(w, y) if yi == 0), Fraction(0))
    cost = class_costs(config["objective"], positives, negatives, config.get("cost_weight", 1.0))
    row_cost = [wi * cost[yi] for wi, yi in zip(w, y)]
    scale = math.lcm(*(c.denominator for c in row_cost)) if row_cost else 1
    lam = exact(config["regularization"])
    keys = Keys(q=lam.denominator, lam=lam.numerator * scale, scale=scale)
    integer = [int(c * scale) for c in row_cost]  # cost of each row: an integer share of the loss times D
    groups = {}
    for i, (yi, ci) in enumerate(zip(y.tolist(), integer)):
        groups.setdefault((yi, ci), []).append(i)
    n = len(y)
    group_list = [(c, ci, _bits(rows)) for (c, ci), rows in sorted(groups.items())]
    # Rows that agree on every feature (equal ranks in every family) are one group; a group with both classes
    # costs its minority whatever the tree.
    inverse = row_groups(problem.ordered_columns().rank, n) if n else np.zeros(0, dtype=np.int64)
    members, per_class = {}, {}
    for i, (g, yi) in enumerate(zip(inverse.tolist(), y.tolist())):
        members.setdefault(g, []).append(i)
        per_class.setdefault(g, [0, 0])[yi] += integer[i]
    mixed = [(_bits(members[g]), min(c)) for g, c in sorted(per_class.items()) if min(c) > 0]
    cols = [bits_of(X[:, j]) for j in range(X.shape[1])]
    return Rows(n=n, cols=cols, groups=group_list, mixed=mixed, keys=keys)


def _bits(rows):
    out = 0
    for i in rows:
        out |= 1 << int(i)
    return out
