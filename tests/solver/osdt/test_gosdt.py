# Check OSDT against the gosdt package (GOSDT, same objective misclassification + λ × leaves, no depth limit).
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.solver.osdt.helpers import problem, run, shared

pytestmark = pytest.mark.reference


def gosdt_objective(X, y, lam):
    from gosdt import GOSDTClassifier

    clf = GOSDTClassifier(regularization=lam, allow_small_reg=True, time_limit=60)
    clf.fit(pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]), y)
    assert clf.result_.lowerbound == clf.result_.upperbound, "gosdt did not converge"
    return float(clf.result_.upperbound)


# Every shared binary dataset and paper λ that both solvers prove within seconds.
SHARED = [("compas-osdt-binary", lam) for lam in (0.025, 0.01, 0.007, 0.005)] + [
    ("monk1", 0.1),
    ("monk1", 0.05),
    ("monk1", 0.025),
    ("monk2", 0.1),
    ("monk3", 0.1),
    ("monk3", 0.025),
    ("car-evaluation", 0.1),
    ("car-evaluation", 0.05),
    ("car-evaluation", 0.025),
    ("tic-tac-toe", 0.1),
    ("tic-tac-toe", 0.05),
]


@pytest.mark.parametrize("name, lam", SHARED)
def test_it_agrees_with_gosdt_on_shared_datasets(name, lam):
    p = shared(name)
    result = run(p, regularization=lam)
    assert result.status == "optimal"
    # gosdt reports in single precision
    assert abs(result.objective - gosdt_objective(p.X, p.y, lam)) < 1e-6


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(10, 60), st.integers(2, 6), st.sampled_from((0.01, 0.02, 0.05, 0.1)))
def test_it_agrees_with_gosdt_on_random_data(seed, n, m, lam):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    y = (X[:, 0] & X[:, m - 1]) | (rng.random(n) < 0.2)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    result = run(problem(X, y), regularization=lam)
    assert result.status == "optimal"
    assert abs(result.objective - gosdt_objective(X, y.astype(int), lam)) < 1e-6
