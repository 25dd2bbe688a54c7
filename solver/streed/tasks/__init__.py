"""STreeD optimization tasks (spec §1.1, §2): one small module per objective.

A task is the 6-tuple of Def. 4.1 specialised to what every task of the paper
shares: the state is ⟨D, F⟩, ``⊕`` is component-wise ``+`` and values are
minimised (maximising tasks are negated and shifted). So a task only says

* how a leaf is valued: every row carries a vector ``A[i]`` of ``R`` sums and
  a leaf labelled ``k`` over rows ``D`` is worth ``L[k] @ Σ_{i∈D} A[i]``
  (per-instance additive, Def. B.2, which the depth-two solver needs, §3.6);
* which values are feasible: component ``j`` at most ``caps[j]`` (threshold
  constraints, App. A.4; anti-monotonic because every component is a sum of
  non-negative terms, Prop. A.3);
* what a test costs (cost-sensitive only): ``test_cost`` per reaching row;
* how the root front becomes one reported model (``select``, ``objective``).

Dominance is ``<`` for one component and Pareto dominance for more (Eq. 33).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from solver import objectives

TASKS = objectives.offered_by("streed")


@dataclass(eq=False)
class Task:
    """A separable task in the linear form above.

    Attributes
    ----------
    name : str
    A : array of float64, shape (n, R)
        Per-row sums; every entry non-negative.
    L : array of float64, shape (K, p, R)
        Leaf map: the value of a leaf labelled ``k`` is ``L[k] @ sum(A[D])``.
    caps : array of float64, shape (p,)
        Feasible iff ``value[j] <= caps[j]`` for every ``j`` (``inf``: no constraint).
    labels : list of str
        What each leaf label means (class or treatment names).
    kind : {"classification", "policy"}
        The kind of ``solver.models.Tree`` the solver returns.
    similarity : bool
        Whether the similarity lower bound is allowed (App. B: subtraction, no
        constraint, context independent, per-instance additive).
    root_scalar : bool
        The reported point is the feasible one with the smallest first
        component, so the root may prune on that component alone (the
        ref-impl's root relaxation; the root front then keeps only such points).
    test_cost : TestCosts or None
        Feature costs (cost-sensitive, Eq. 9); ``None`` means branching is free.
    select : callable
        ``select(values) -> index`` of the reported point of the root front.
    objective : callable
        ``objective(value) -> float`` reported objective of a root value (lower is better).
    describe : callable
        ``describe(value) -> dict`` of named components, for the front panel.
    """

    name: str
    A: np.ndarray
    L: np.ndarray
    caps: np.ndarray
    labels: list
    kind: str = "classification"
    similarity: bool = True
    root_scalar: bool = False
    test_cost: object = None
    select: Callable = field(default=lambda values: int(np.argmin(values[:, 0])))
    objective: Callable = field(default=lambda value: float(value[0]))
    describe: Callable = field(default=lambda value: {"cost": float(value[0])})

    def __post_init__(self):
        self.A = np.ascontiguousarray(self.A, dtype=np.float64)
        self.L = np.ascontiguousarray(self.L, dtype=np.float64)
        self.caps = np.ascontiguousarray(self.caps, dtype=np.float64)
        if (self.A < 0).any():
            raise ValueError("per-row sums must be non-negative")
        if (self.L < 0).any():
            raise ValueError("leaf maps must be non-negative")

    @property
    def n_labels(self):
        return self.L.shape[0]

    @property
    def p(self):
        return self.L.shape[1]

    @property
    def worst(self):
        """Return the largest value one row can add to a leaf, per component: array (n, p)."""
        return np.einsum("kpr,nr->nkp", self.L, self.A).max(axis=1)

    def first_component(self):
        """Return the task that minimises this one's first component alone, with no constraint.

        Its optimum over any rows and budget is a lower bound of the first component of every
        feasible tree of this task there (the constraints only remove trees), so a constrained
        task can bound its subproblems by the much cheaper unconstrained search (scalar, similarity
        bound allowed: no constraint, and the linear leaf map is per-instance additive, App. B).
        """
        return Task(
            name=f"{self.name}: first component",
            A=self.A,
            L=self.L[:, :1, :],
            caps=np.array([np.inf]),
            labels=self.labels,
            kind=self.kind,
        )

    def leaf_values(self, sums):
        """Return the value of each leaf label for summed rows ``sums``: array (K, p)."""
        return self.L @ sums


@dataclass(eq=False)
class TestCosts:
    """Feature (test) costs with the ref-impl's discount model (spec §2.2).

    ``m(F, f)`` is 0 when a binary feature of the same original attribute is
    already on the path, ``discount[f]`` when one of the same group is, else
    ``full[f]``. Every row reaching a node pays ``m`` for its test.

    Attributes
    ----------
    full, discount : array of float64, shape (m,)
    attribute, group : array of int64, shape (m,)
        Original attribute and test group of each binary feature (group -1: none).
    """

    __test__ = False  # not a pytest class, despite the name

    full: np.ndarray
    discount: np.ndarray
    attribute: np.ndarray
    group: np.ndarray

    def __post_init__(self):
        self.full = np.asarray(self.full, dtype=np.float64)
        self.discount = np.minimum(np.asarray(self.discount, dtype=np.float64), self.full)
        self.attribute = np.asarray(self.attribute, dtype=np.int64)
        self.group = np.asarray(self.group, dtype=np.int64)

    def context(self, path):
        """Return the cost-relevant context of the path's features (the measured attributes)."""
        return frozenset(int(self.attribute[f]) for f in path)

    def costs(self, path, features):
        """Return ``m(F, f)`` for each ``f`` in ``features`` after the path's features: array (q,)."""
        features = np.asarray(features, dtype=np.int64)
        out = self.full[features].copy()
        path = np.asarray(list(path), dtype=np.int64)
        if path.size:
            groups = self.group[path]
            grouped = np.isin(self.group[features], groups[groups >= 0])
            out[grouped] = self.discount[features][grouped]
            out[np.isin(self.attribute[features], self.attribute[path])] = 0.0
        return out

    def child_costs(self, path, features):
        """Return ``m(F ∪ {f1}, f2)`` for every pair of ``features``: array (q, q)."""
        features = np.asarray(features, dtype=np.int64)
        base = self.costs(path, features)
        out = np.broadcast_to(base, (features.size, features.size)).copy()
        att, grp = self.attribute[features], self.group[features]
        same_group = (grp[:, None] == grp[None, :]) & (grp[None, :] >= 0)
        out = np.where(same_group, np.minimum(out, self.discount[features][None, :]), out)
        out[att[:, None] == att[None, :]] = 0.0
        return out


def make_task(problem, config, **options):
    """Return the ``Task`` named by ``config["objective"]`` for ``problem``."""
    from solver.streed.tasks import accuracy, cost, f1, fairness, policy

    makers = {
        "accuracy": accuracy.make,
        "cost_sensitive": cost.make,
        "f1": f1.make,
        "demographic_parity": fairness.make,
        "equality_of_opportunity": fairness.make,
        "policy": policy.make,
    }
    return makers[config["objective"]](problem, config, **options)
