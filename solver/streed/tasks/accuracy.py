"""Misclassification (spec §2.1, Eqs. 1–2): leaf cost = weighted rows whose class is not the label."""

import numpy as np

from solver.streed.tasks import Task


def one_hot(problem):
    """Return the (weighted) one-hot class matrix: array (n, K)."""
    A = np.zeros((problem.n_samples, problem.n_classes))
    A[np.arange(problem.n_samples), problem.y] = problem.weights
    return A


def make(problem, config):
    K = problem.n_classes
    L = (1.0 - np.eye(K))[:, None, :]  # label k costs every row of another class
    total = float(problem.weights.sum())
    if not total > 0:
        raise ValueError("the sample weights sum to zero")
    return Task(
        name="accuracy",
        A=one_hot(problem),
        L=L,
        caps=np.array([np.inf]),
        labels=list(problem.classes),
        objective=lambda v: float(v[0]) / total,
        describe=lambda v: {"misclassifications": float(v[0])},
    )
