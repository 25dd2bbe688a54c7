"""Exact integer objectives for the Rashomon set (spec §1.1, §1.3).

Every additive objective of GOSDT is ``loss/D + λ·leaves`` with an integer loss ``m`` once each
row's cost is scaled to an integer (accuracy: 1 per row and ``D = N``; balanced and weighted
accuracy: per-class weights). With ``λ = p/q`` a tree's objective times ``D·q`` is the integer
*key* ``m·q + h·p·D``, so membership ``key ≤ Θ`` is decided without any float.

With ``integer_gamma`` the objective is arborenum's and PRAXIS's instead: ``m + γ·h`` with the
integer ``γ = round(λ·D)`` (``q = 1``), and θ rounded to the nearest integer (see ``round_half_up``).
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


def round_half_up(x):
    """Return the integer nearest to the float ``x`` ≥ 0, halves up: C's ``llround`` on a double, as arborenum
    and PRAXIS round γ = λ·n and θ (``Fraction(x)`` is the double's exact value, so nothing is rounded twice)."""
    return math.floor(Fraction(float(x)) + Fraction(1, 2))


def class_costs(objective, positives, negatives, cost_weight, mass=None):
    """Return the cost of misclassifying a row of each class as ``Fraction`` (GOSDT spec §1.4).

    Two classes: (negative, positive). ``mass``: every class's total weight, for accuracy with more classes.
    """
    if objective == "accuracy":
        total = positives + negatives if mass is None else sum(mass, Fraction(0))
        return (Fraction(1) / total,) * (2 if mass is None else len(mass))
    if mass is not None and len(mass) != 2:
        raise ProblemError(
            f"Rashomon sets with {objective.replace('_', ' ')} handle two classes; the label has {len(mass)}."
        )
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
    integer: bool = False  # γ = round(λ·D) per leaf and θ rounded (arborenum's and PRAXIS's definition)

    def key(self, m, h):
        return m * self.q + h * self.lam

    def objective(self, m, h):
        """Return the exact objective of a tree with ``m`` weighted mistakes and ``h`` leaves."""
        return Fraction(self.key(m, h), self.scale * self.q)

    def from_objective(self, value):
        """Return the largest integer key whose objective is at most ``value`` (a ``Fraction``); with integer γ, the
        key nearest to ``value`` (arborenum's rounding of θ, halves up, from a double)."""
        if self.integer:
            return round_half_up(float(value) * self.scale)
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
    n_classes : int
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
    n_classes: int = 2

    @property
    def all(self):
        return (1 << self.n) - 1

    def class_costs(self, support):
        """Return the cost of the rows of each class in ``support``."""
        w = [0] * self.n_classes
        for c, cost, rows in self.groups:
            w[c] += cost * (support & rows).bit_count()
        return w

    def leaf(self, support):
        """Return (mistakes, label) of the majority leaf; a tie predicts the higher class (treefarms, spec §1.1)."""
        w = self.class_costs(support)
        label = max(range(len(w)), key=lambda c: (w[c], c))
        return sum(w) - w[label], label

    def leaves(self, support):
        """Return ``(mistakes of a leaf predicting c for every class c)``: the leaves of ``leaf_labels="any"``."""
        w = self.class_costs(support)
        total = sum(w)
        return tuple(total - wc for wc in w)

    def unavoidable(self, support):
        return sum(cost for rows, cost in self.mixed if support & rows)


def bits_of(mask_array):
    """Return the rows where a 0/1 vector is 1 as a Python int (row ``i`` is bit ``i``)."""
    packed = np.packbits(np.asarray(mask_array, dtype=np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def make_rows(problem, config):
    """Return the ``Rows`` of ``problem`` under ``config`` (objective, λ, ω)."""
    X = np.asarray(problem.X, dtype=np.uint8)
    y = np.asarray(problem.y, dtype=np.int64)
    weights = problem.weights
    if np.any(weights < 0) or not np.isfinite(weights).all() or weights.sum() <= 0:
        raise ProblemError("Row weights must be finite, non-negative and not all zero.")
    w = [exact(v) for v in weights.tolist()]
    k = max(problem.n_classes, int(y.max()) + 1 if len(y) else 2)
    mass = [sum((wi for wi, yi in zip(w, y) if yi == c), Fraction(0)) for c in range(k)]
    cost = class_costs(config["objective"], mass[1], mass[0], config.get("cost_weight", 1.0), mass if k > 2 else None)
    row_cost = [wi * cost[yi] for wi, yi in zip(w, y)]
    scale = math.lcm(*(c.denominator for c in row_cost)) if row_cost else 1
    keys = make_keys(config, scale)
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
        per_class.setdefault(g, [0] * k)[yi] += integer[i]
    mixed = [(_bits(members[g]), sum(c) - max(c)) for g, c in sorted(per_class.items()) if sum(c) > max(c)]
    cols = [bits_of(X[:, j]) for j in range(X.shape[1])]
    return Rows(n=n, cols=cols, groups=group_list, mixed=mixed, keys=keys, n_classes=k)


def make_keys(config, scale):
    """Return the ``Keys`` of λ at scale ``D``: exact (``λ = p/q``), or with ``integer_gamma`` γ = round(λ·D), ``q = 1``."""
    if config.get("integer_gamma"):
        return Keys(q=1, lam=round_half_up(float(config["regularization"]) * scale), scale=scale, integer=True)
    lam = exact(config["regularization"])
    return Keys(q=lam.denominator, lam=lam.numerator * scale, scale=scale)


def _bits(rows):
    out = 0
    for i in rows:
        out |= 1 << int(i)
    return out
