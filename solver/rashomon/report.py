"""What a Rashomon run reports (``Result.extras``), and the set's JSON export.

Everything here is computed on the graph (``solver.rashomon.sets``): the count, the histogram of
objectives, the share of trees using each feature, the votes of the set on rows. Only the model
reliance range needs trees one by one: it is exact over the whole set when the set holds at most
``RELIANCE_EXACT`` trees, and over a uniform sample otherwise (the report says which).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from solver import predicates
from solver.models import LEAF, Tree
from solver.rashomon.sets import Filter, TreeSet, shape, tree_text

TOP_TREES = 20
RELIANCE_EXACT = 2000
RELIANCE_SAMPLE = 500
GRAPH_LIMIT = 200_000  # vertices: larger graphs are not stored with the result
VOTE_WORK_LIMIT = 5_000_000  # distinct rows × vertices for the training votes


def to_tree(s, tree, problem):
    """Return the ``Tree`` of a nested-tuple tree of ``s`` (preorder nodes, training counts per node)."""
    feature, left, right, prediction, counts = [], [], [], [], []

    def add(t):
        i = len(feature)
        v = t[0]
        feature.append(LEAF if len(t) == 1 else t[1])
        left.append(LEAF)
        right.append(LEAF)
        prediction.append(s.label[v])
        counts.append(list(s.counts[v]))
        if len(t) > 1:
            left[i] = add(t[2])
            right[i] = add(t[3])
        return i

    add(tree)
    return Tree(feature=feature, left=left, right=right, prediction=prediction, counts=counts,
                features=problem.features, classes=problem.classes)


def tree_predict(s, tree, X):
    """Return the labels a nested-tuple tree of ``s`` predicts on the binary rows ``X``."""
    out = np.empty(len(X), dtype=np.int64)
    stack = [(tree, np.arange(len(X)))]
    while stack:
        t, idx = stack.pop()
        if len(t) == 1:
            out[idx] = s.label[t[0]]
            continue
        go = X[idx, t[1]] == 1
        stack += [(t[2], idx[~go]), (t[3], idx[go])]
    return out


def row_costs(rows, n):
    """Return every row's integer cost (its share of the loss times ``D``) as an int64 array."""
    cost = np.zeros(n, dtype=np.int64)
    for _, c, bits in rows.groups:
        for i in range(n):
            if bits >> i & 1:
                cost[i] = c
    return cost


def reliance(s, trees, X, y, cost, scale):
    """Return ``{feature: (min, max)}`` of model reliance over ``trees``.

    Reliance of a tree on feature j (Fisher, Rudin, Dominici 2019, the difference form): its loss when
    every row's x_j is replaced by another row's x_j, averaged over all pairs of distinct rows, minus
    its loss. For 0/1 features that average is exact without drawing permutations.
    """
    n = len(y)
    out = {}
    if n < 2:
        return out
    ones = X.sum(axis=0)
    for t in trees:
        base = float((cost * (tree_predict(s, t, X) != y)).sum()) / scale
        for j in sorted(_features(t)):
            losses = []
            for v in (0, 1):
                Xv = X.copy()
                Xv[:, j] = v
                losses.append(cost * (tree_predict(s, t, Xv) != y))
            others1 = ones[j] - X[:, j]  # rows k ≠ i with x_kj = 1
            others0 = (n - 1) - others1
            switched = float((others0 * losses[0] + others1 * losses[1]).sum()) / ((n - 1) * scale)
            lo, hi = out.get(j, (np.inf, -np.inf))
            out[j] = (min(lo, switched - base), max(hi, switched - base))
    return out


def _features(t):
    return set() if len(t) == 1 else {t[1]} | _features(t[2]) | _features(t[3])


def votes(s, X, flt=None):
    """Return, for every binary row of ``X``, the number of trees of the set that predict 1 on it."""
    flt = flt or Filter()
    unique, inverse = np.unique(np.asarray(X, dtype=np.uint8), axis=0, return_inverse=True)
    per_row = [s.votes(row, flt) for row in unique]
    return [per_row[i] for i in np.ravel(inverse)]


def summarize(s, problem, rows, config, optimum, theta):
    """Return ``Result.extras`` of a Rashomon run (see docs/algorithms/rashomon.md)."""
    keys = rows.keys
    whole = keys.scale * keys.q
    out = {"optimum": None if optimum is None else float(Fraction(optimum, whole)),
           "theta": None if theta is None else float(Fraction(theta, whole)),
           "theta_exact": None if theta is None else str(Fraction(theta, whole))}
    if s is None:
        out.update(count=0, count_text="0", proved_bound=None, open=None,
                   note="GOSDT's optimum was not proved within the limits, so no part of the set is proved.")
        return out
    total = s.count()
    proved = s.objective(s.theta)
    out.update(count=total, count_text=f"{total:,}", proved_bound=float(proved), proved_bound_exact=str(proved),
               open=None if theta is None or s.theta >= theta else [float(proved), out["theta"]],
               vertices=len(s.counts), scale=keys.scale)
    out["histogram"] = [{"objective": float(s.objective(k)), "mistakes": m, "loss": m / keys.scale,
                         "score": 1 - m / keys.scale, "leaves": h, "count": n, "count_text": f"{n:,}"}
                        for k, m, h, n in s.cells()]
    names = [predicates.text(f) for f in problem.features]
    used = s.importance() if total else {}
    out["importance"] = [{"feature": j, "name": names[j], "trees": n, "trees_text": f"{n:,}", "share": n / total}
                         for j, n in sorted(used.items(), key=lambda kv: -kv[1]) if n]
    top = []
    for rank, (k, t) in enumerate(s.trees(limit=TOP_TREES)):
        leaves, depth = shape(t)
        m = sum(s.leaf_m[v] for v in _leaves(t))
        top.append({"rank": rank, "objective": float(s.objective(k)), "leaves": leaves, "depth": depth,
                    "loss": m / keys.scale, "score": 1 - m / keys.scale, "text": tree_text(t, s.label),
                    "tree": to_tree(s, t, problem).to_dict()})
    out["top"] = top
    X, y = np.asarray(problem.X, dtype=np.uint8), np.asarray(problem.y)
    exact_mr = total <= RELIANCE_EXACT
    trees = [t for _, t in s.trees()] if exact_mr else s.sample(RELIANCE_SAMPLE, seed=0)
    mr = reliance(s, trees, X, y, row_costs(rows, len(y)), keys.scale) if total else {}
    out["reliance"] = {"exact": exact_mr, "trees": len(trees),
                       "features": [{"feature": j, "name": names[j], "min": lo, "max": hi}
                                    for j, (lo, hi) in sorted(mr.items())]}
    distinct = len(np.unique(X, axis=0)) if len(X) else 0
    if total and distinct * len(s.counts) <= VOTE_WORK_LIMIT:
        v = votes(s, X)
        out["training_votes"] = {"disagree": int(sum(1 for n in v if 0 < n < total)), "rows": len(v),
                                 "share_one": [n / total for n in v]}
    out["graph"] = s.to_dict() if len(s.counts) <= GRAPH_LIMIT else None
    return out


def _leaves(t):
    return [t[0]] if len(t) == 1 else _leaves(t[2]) + _leaves(t[3])


def export(s, features, X=None):
    """Return the set as JSON-able dict: its graph, feature predicates and, with binary rows ``X``, test vectors.

    A test vector is a row with the number of trees of the set that predict 1 on it and the count, so a
    reader of the graph can check its own vote DP (or its listing) against ours.
    """
    total = s.count()
    out = {"schema": "corelsweb.rashomon", "version": 1, "count": str(total), "graph": s.to_dict(),
           "features": features}
    if X is not None:
        X = np.asarray(X, dtype=np.uint8)
        out["test_vectors"] = [{"x": row.tolist(), "votes_for_1": str(n), "count": str(total)}
                               for row, n in zip(X, votes(s, X))]
    return out


def load(d):
    """Return the ``TreeSet`` of an ``export`` dict (or of ``extras["graph"]``)."""
    return TreeSet.from_dict(d.get("graph", d))


def test_votes(extras, problem, table, roles):
    """Return ``extras["test_votes"]``: the set's votes on the raw test rows (share of trees predicting 1, disagreement)."""
    from solver.data.evaluation import problem_like

    if not extras.get("graph") or not extras.get("count"):
        return None
    s = load(extras["graph"])
    test = problem_like(problem, table, roles)
    v = votes(s, test.X)
    total = extras["count"]
    y = np.asarray(test.y) if test.y is not None else None
    return {"rows": len(v), "disagree": int(sum(1 for n in v if 0 < n < total)), "share_one": [n / total for n in v],
            "labels": None if y is None else y.tolist(),
            "majority_accuracy": None if y is None or not len(v) else
            float(np.mean([(2 * n >= total) == (yi == 1) for n, yi in zip(v, y)]))}
