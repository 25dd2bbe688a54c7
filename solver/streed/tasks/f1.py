"""F1-score through the (FN, FP) Pareto front (spec §2.4, Eq. 10, App. E).

F1 is not order preserving as a scalar (spec §1.4), but it is monotone in FN
and FP, so its optimum lies on the front of the two counts.
"""

import numpy as np

from solver.streed.tasks import Task


def f1_score(fn, fp, positives):
    """Return F1 = tp / (tp + (fp + fn) / 2), 0 when tp = 0."""
    tp = positives - fn
    return 0.0 if tp <= 0 else float(tp / (tp + 0.5 * (fp + fn)))


def make(problem, config):
    if problem.n_classes != 2:
        raise ValueError("the F1 task needs a binary label")
    A = np.zeros((problem.n_samples, 2))
    A[np.arange(problem.n_samples), problem.y] = 1.0
    positives = float(A[:, 1].sum())
    if positives == 0:
        raise ValueError("the F1 task needs at least one positive row")
    L = np.zeros((2, 2, 2))
    L[0, 0, 1] = 1.0  # label 0: false negatives = positives in the leaf
    L[1, 1, 0] = 1.0  # label 1: false positives = negatives in the leaf

    def select(values):
        scores = [f1_score(v[0], v[1], positives) for v in values]
        return int(np.argmax(scores))

    return Task(
        name="f1",
        A=A,
        L=L,
        caps=np.array([np.inf, np.inf]),
        labels=list(problem.classes),
        select=select,
        objective=lambda v: 1.0 - f1_score(v[0], v[1], positives),
        describe=lambda v: {"FN": float(v[0]), "FP": float(v[1]), "F1": f1_score(v[0], v[1], positives)},
    )
