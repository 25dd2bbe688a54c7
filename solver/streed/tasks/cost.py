"""Cost-sensitive classification with test costs (spec §2.2, Eq. 9, App. C).

Leaf ``k̂`` costs ``Σ M[k][k̂]`` over its rows; a test on ``f`` costs every
reaching row ``m(F, f)`` (``TestCosts``). The value is not context independent
(Def. B.1), so the similarity bound is off and dataset-cache keys carry the
measured attributes (§3.5).
"""

import numpy as np

from solver.streed.params import cost_rows
from solver.streed.tasks import Task, TestCosts
from solver.streed.tasks.accuracy import one_hot


def attributes(problem):
    """Return the original attribute of every binary feature (features of one source column share it)."""
    names = [f.get("column", j) if isinstance(f, dict) else j for j, f in enumerate(problem.features)]
    index = {}
    return np.array([index.setdefault(name, len(index)) for name in names], dtype=np.int64)


def parse_costs(text, classes):
    """Return the matrix M (K, K) written as rows ``"0 1; 5 0"`` (true class by row, predicted by column).

    Raises ``ValueError`` naming what is wrong and the classes in their order.
    """
    M = np.array(cost_rows(text))
    if M.shape[0] != len(classes):
        order = ", ".join(str(c) for c in classes)
        raise ValueError(
            f"the misclassification costs have {M.shape[0]} rows but the label has {len(classes)} "
            f"classes; write one row per true class, in the order {order}"
        )
    return M


def make(problem, config, costs=None, misclassification=None):
    """``costs``: a ``TestCosts`` (default: ``problem.feature_cost``, no groups); ``misclassification``: M (K, K).

    Without ``misclassification`` the matrix is ``config["misclassification_costs"]`` (``parse_costs``),
    else 1 − I.
    """
    K = problem.n_classes
    if misclassification is None and config.get("misclassification_costs"):
        misclassification = parse_costs(config["misclassification_costs"], problem.classes)
    M = np.asarray(misclassification if misclassification is not None else 1.0 - np.eye(K), dtype=np.float64)
    if M.shape != (K, K) or (M < 0).any():
        raise ValueError("the misclassification costs must be a non-negative K × K matrix")
    if costs is None:
        full = problem.feature_cost if problem.feature_cost is not None else np.zeros(problem.n_features)
        costs = TestCosts(full, full, attributes(problem), np.full(problem.n_features, -1))
    L = M.T[:, None, :]  # label k̂ costs M[k][k̂] per row of class k
    total = float(problem.weights.sum())
    if not total > 0:
        raise ValueError("the sample weights sum to zero")
    return Task(
        name="cost_sensitive",
        A=one_hot(problem),
        L=L,
        caps=np.array([np.inf]),
        labels=list(problem.classes),
        similarity=False,
        test_cost=costs,
        objective=lambda v: float(v[0]) / total,
        describe=lambda v: {"cost": float(v[0])},
    )
