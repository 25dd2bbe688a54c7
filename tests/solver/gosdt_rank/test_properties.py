# Check the spec's §7.1 invariants and that every bound is below the best completion of its partial tree.
import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.gosdt.rank import kernels as rk
from solver.roc import rank_loss
from tests.oracles import enumerate_trees
from tests.solver.gosdt_rank.helpers import problem, run
from tests.solver.gosdt_rank.test_exhaustive import random_data

KINDS = {"f1": rk.F1, "auc": rk.AUC, "pauc": rk.PAUC}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 30), st.sampled_from(("f1", "auc", "pauc")))
def test_repeating_rows_and_permuting_features_keep_the_optimum(seed, n, objective):
    X, y = random_data(seed, n, 3, 0.3)
    params = dict(objective=objective, regularization=0.01, max_depth=3, pauc_theta=0.3)
    a = run(problem(X, y), **params).objective
    cols = np.random.default_rng(seed).permutation(3)
    b = run(problem(np.repeat(X[:, cols], 3, axis=0), np.repeat(y, 3)), **params).objective
    assert abs(a - b) < 1e-12


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 30))
def test_auc_ignores_a_label_flip_and_pauc_at_theta_one_is_auc(seed, n):
    X, y = random_data(seed, n, 3, 0.3)
    auc = run(problem(X, y), objective="auc", regularization=0.01, max_depth=3).objective
    assert abs(run(problem(X, 1 - y), objective="auc", regularization=0.01, max_depth=3).objective - auc) < 1e-12
    assert (
        abs(run(problem(X, y), objective="pauc", pauc_theta=1.0, regularization=0.01, max_depth=3).objective - auc)
        < 1e-12
    )


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(8, 30), st.sampled_from(("f1", "auc", "pauc")))
def test_the_optimum_grows_with_lambda_and_its_leaves_shrink(seed, n, objective):
    X, y = random_data(seed, n, 3, 0.3)
    results = [
        run(problem(X, y), objective=objective, regularization=lam, max_depth=3, pauc_theta=0.2)
        for lam in (0.0, 0.005, 0.01, 0.02, 0.05, 0.1)
    ]
    values = [r.objective for r in results]
    assert all(b >= a - 1e-12 for a, b in zip(values, values[1:]))
    assert all(
        r.model.n_leaves <= r.objective / lam + 1e-9 for r, lam in zip(results[1:], (0.005, 0.01, 0.02, 0.05, 0.1))
    )


def leaf_counts(rows, y):
    return float(y[rows].sum()), float(len(rows) - y[rows].sum())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 24), st.sampled_from(("f1", "auc", "pauc")), st.booleans())
def test_every_bound_is_below_the_best_completion(seed, n, objective, use_eq):
    # Spec §7.1 (11): a partial tree = a depth-1 or depth-2 tree with a random split set; its completions
    # replace each split leaf by any tree with at least one split on the remaining features.
    rng = np.random.default_rng(seed)
    X, y = random_data(seed, n, 4, float(rng.choice([0.5, 0.25])))
    omega, theta, lam = 1.5, 0.3, 0.01
    trees = [t for t in enumerate_trees(X, depth=2) if len(t) > 1]
    leaves = trees[int(rng.integers(len(trees)))]
    splittable = [k for k, rows in enumerate(leaves) if len({tuple(r) for r in X[rows]}) > 1]
    if not splittable:
        return
    chosen = [k for k in splittable if rng.random() < 0.6] or splittable[:1]
    options = []
    for k in chosen:
        subs = [t for t in enumerate_trees(X[leaves[k]], depth=2) if len(t) > 1]
        options.append([[leaves[k][rows] for rows in t] for t in subs])
    if any(not o for o in options):
        return
    fixed = [rows for k, rows in enumerate(leaves) if k not in chosen]
    best = np.inf
    for pick in itertools.product(*options):
        completion = fixed + [rows for sub in pick for rows in sub]
        pos = np.array([leaf_counts(r, y)[0] for r in completion])
        neg = np.array([leaf_counts(r, y)[1] for r in completion])
        best = min(best, rank_loss(objective, pos, neg, omega, theta) + lam * len(completion))
    ordered = fixed + [leaves[k] for k in chosen]
    lp = np.array([leaf_counts(r, y)[0] for r in ordered])
    ln = np.array([leaf_counts(r, y)[1] for r in ordered])
    split = np.arange(len(fixed), len(ordered))
    classes = []
    for k in chosen:
        keys = [tuple(r) for r in X[leaves[k]]]
        groups = {}
        for key, label in zip(keys, y[leaves[k]]):
            p, q = groups.get(key, (0.0, 0.0))
            groups[key] = (p + label, q + 1 - label)
        classes.append(list(groups.values()))
    minority = np.array([sum(min(p, q) for p, q in c) for c in classes])
    cls_start = np.concatenate([[0], np.cumsum([len(c) for c in classes])]).astype(np.int64)
    cls_p = np.array([p for c in classes for p, _ in c], float)
    cls_n = np.array([q for c in classes for _, q in c], float)
    bounds, rules = np.empty(1 << len(split)), np.empty(1 << len(split), np.int64)
    rk.entry_bounds(
        KINDS[objective],
        lp,
        ln,
        split,
        minority,
        cls_start,
        cls_p,
        cls_n,
        -np.inf,
        np.inf,
        lam,
        float(y.sum()),
        float(len(y) - y.sum()),
        omega,
        theta,
        True,
        True,
        use_eq,
        bounds,
        rules,
    )
    assert bounds[-1] <= best + 1e-12, (bounds[-1], best)
