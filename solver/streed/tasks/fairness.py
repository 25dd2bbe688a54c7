"""Group fairness as threshold constraints (spec §2.5, Eq. 11, App. F, Eqs. 55–59).

The value is (misclassifications, G_a, G_ā), all minimised (Pareto, Eq. 33).
Each G is a sum over leaves, scaled by N(a)·N(ā) so that every component is
an integer (spec §2.5): predicting 1 adds ``|D_a|·N(ā)`` to ``G_a`` and
``|D_ā|·N(a)`` to ``G_ā``, predicting 0 the other way round. Feasible iff
both are at most (1 + δ)·N(a)·N(ā) — the non-strict form (erratum 12);
anti-monotonic by Prop. A.3. At a complete tree ``G_a + G_ā = 2`` and
``max(G) − 1`` is the discrimination. Equality of opportunity counts only
rows of label 1 in the G components (Eqs. 58–59).
"""

import math

import numpy as np

from solver.streed.tasks import Task


def make(problem, config):
    if problem.n_classes != 2:
        raise ValueError("the fairness tasks need a binary label")
    if problem.group is None:
        raise ValueError("the fairness tasks need a protected group column")
    group = problem.group
    if not np.isin(group, (0, 1)).all():
        raise ValueError("the protected group must be 0 or 1")
    y = problem.y
    opportunity = config["objective"] == "equality_of_opportunity"
    counted = (y == 1) if opportunity else np.ones_like(y, dtype=bool)
    n_a, n_b = int((counted & (group == 1)).sum()), int((counted & (group == 0)).sum())
    if n_a == 0 or n_b == 0:
        who = "positive rows in each group" if opportunity else "rows in each group"
        raise ValueError(f"the fairness task needs {who}")
    # Sums per row: (label 0, label 1, counted in group a, counted in group ā).
    A = np.zeros((problem.n_samples, 4))
    A[np.arange(problem.n_samples), y] = 1.0
    A[:, 2] = counted & (group == 1)
    A[:, 3] = counted & (group == 0)
    L = np.zeros((2, 3, 4))
    L[0, 0, 1] = 1.0  # predict 0: positives are errors
    L[0, 1, 3], L[0, 2, 2] = n_a, n_b  # G_a += |D_ā|/N(ā), G_ā += |D_a|/N(a)  (× N(a)N(ā))
    L[1, 0, 0] = 1.0  # predict 1: negatives are errors
    L[1, 1, 2], L[1, 2, 3] = n_b, n_a  # G_a += |D_a|/N(a), G_ā += |D_ā|/N(ā)
    scale = float(n_a * n_b)
    delta = float(config["delta"])
    cap = scale + math.floor(delta * scale + 1e-9)
    total = float(problem.n_samples)

    def describe(v):
        return {
            "misclassifications": float(v[0]),
            "G_a": float(v[1]) / scale,
            "G_not_a": float(v[2]) / scale,
            "discrimination": max(float(v[1]), float(v[2])) / scale - 1.0,
        }

    return Task(
        name=config["objective"],
        A=A,
        L=L,
        caps=np.array([np.inf, cap, cap]),
        labels=list(problem.classes),
        similarity=False,
        root_scalar=True,
        objective=lambda v: float(v[0]) / total,
        describe=describe,
    )
