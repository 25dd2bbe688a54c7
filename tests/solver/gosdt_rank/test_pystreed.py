# Check the F-score search against pystreed's f1-score task (λ = 0, same depth), convention by convention.
#
# pystreed labels the leaves of each tree in the way that maximises F1 (any of the 2^H labellings); GOSDT
# labels each leaf by the ω rule (0 iff ω·n⁺ ≤ n⁻). Exhaustive search settles the correspondence:
#   (1) pystreed's optimum = min over trees of the best *sweep* labelling (top-k leaves by positive share);
#   (2) the ω rule is the sweep at threshold 1/(1+ω), so min over ω of GOSDT's optimum = pystreed's optimum;
#   (3) at any one ω, GOSDT's optimum is at least pystreed's.
import warnings

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solver.roc import f1_loss, leaf_order
from tests.isolation import CRASHED, in_child
from tests.oracles import enumerate_trees
from tests.solver.gosdt_rank.helpers import problem, run


def streed_f1_loss(X, y, depth):
    from pystreed import STreeDClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = STreeDClassifier(optimization_task="f1-score", max_depth=depth, time_limit=60)
        model.fit(X.astype(np.int64), y)
    pred = np.asarray(model.predict(X.astype(np.int64)))
    fp = float(((pred == 1) & (y == 0)).sum())
    fn = float(((pred == 0) & (y == 1)).sum())
    return f1_loss(fp, fn, float(y.sum()))


def best_sweep_loss(X, y, depth):
    """Return the least F-loss over trees of at most ``depth`` splits, each labelled by its best sweep."""
    P = float(y.sum())
    best, shares = np.inf, set()
    for leaves in enumerate_trees(X, depth=depth):
        pos = np.array([y[rows].sum() for rows in leaves], float)
        neg = np.array([len(rows) for rows in leaves], float) - pos
        shares.update((pos / (pos + neg)).tolist())
        order = leaf_order(pos, neg)
        for k in range(len(leaves) + 1):
            top = order[:k]
            fp, fn = neg[top].sum(), P - pos[top].sum()
            best = min(best, f1_loss(fp, fn, P))
    return best, sorted(s for s in shares if s > 0)


def random_data(seed, n, m):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    y = ((X @ rng.normal(size=m) + rng.normal(scale=0.8, size=n)) > 0.3).astype(np.int64)
    y[0], y[1] = 1, 0
    return X, y


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 18), st.sampled_from(((2, 1), (2, 2), (3, 2), (3, 3))))
def test_f1_agrees_with_pystreed_over_the_omega_rule(seed, n, shape):
    m, depth = shape
    X, y = random_data(seed, n, m)
    streed = in_child(streed_f1_loss, X, y, depth)
    assume(streed is not CRASHED)  # pystreed segfaults on a few tiny inputs (tests/isolation.py): nothing to compare
    sweep, shares = best_sweep_loss(X, y, depth)
    assert abs(streed - sweep) < 1e-9, "pystreed's optimum is the best sweep labelling"  # (1)
    p = problem(X, y)
    ours = {}
    for s in shares:
        t = s - 1e-9  # predict 1 iff share > t: exactly the leaves with share ≥ s
        omega = (1 - t) / t
        result = run(p, objective="f1", regularization=0.0, max_depth=depth, cost_weight=omega)
        assert result.status == "optimal"
        ours[omega] = result.objective
    assert abs(min(ours.values()) - streed) < 1e-9  # (2)
    at_one = run(p, objective="f1", regularization=0.0, max_depth=depth, cost_weight=1.0).objective
    assert at_one >= streed - 1e-12  # (3)
