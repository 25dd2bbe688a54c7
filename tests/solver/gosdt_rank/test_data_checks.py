"""A problem the non-additive objectives cannot score is the data's fault, in one sentence (not an internal error)."""

import numpy as np
import pytest

from solver import api
from solver.problem import Problem, ProblemError


@pytest.mark.parametrize("objective", ["f1", "auc"])
def test_one_class_weighted_out_is_refused_in_words(objective):
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
    features = [{"kind": "binary", "column": f"x{j}"} for j in range(2)]
    problem = Problem(
        X=X,
        features=features,
        y=np.array([0, 1, 0, 1]),
        classes=["no", "yes"],
        sample_weight=np.array([1.0, 0.0, 1.0, 0.0]),
    )
    with pytest.raises(ProblemError, match="both classes"):
        api.solve(problem, "gosdt", {"objective": objective, "regularization": 0.01})
