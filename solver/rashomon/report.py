"""What a Rashomon run reports (``Result.extras``), and the set's JSON export.

Everything here is computed on the graph (``solver.rashomon.sets``): the count, the histogram of
objectives, the share of trees using each feature, the votes of the set on rows. Only the model
reliance range needs trees one by one: it is exact over the whole set when the set holds at most
``RELIANCE_EXACT`` trees, and over a uniform sample otherwise (the report says which). A set of at most
``LIST_LIMIT`` trees gives its importance and votes from its list (the same numbers, sooner).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from solver import predicates
from solver.models import LEAF, Tree
from solver.rashomon.sets import Filter, OutOfTime, TreeSet, is_leaf, shape, tree_text

TOP_TREES = 20
RELIANCE_EXACT = 2000
RELIANCE_SAMPLE = 500
LIST_LIMIT = 20_000  # a set this small gives its importance and votes from its list, sooner than from the graph
GRAPH_LIMIT = 2_000_000  # vertices: larger graphs are not stored with the result (the web's filters are then off)
VOTE_WORK_LIMIT = 5_000_000  # distinct rows × vertices for the training votes


def to_tree(s, tree, problem):
    """Return the ``Tree`` of a nested-tuple tree of ``s`` (preorder nodes, training counts per node)."""
    feature, left, right, prediction, counts = [], [], [], [], []

    def add(t):
        i = len(feature)
        v = t[0]
        feature.append(LEAF if is_leaf(t) else t[1])
        left.append(LEAF)
        right.append(LEAF)
        prediction.append(s.leaf_label(t) if is_leaf(t) else s.label[v])
        counts.append(list(s.counts[v]))
        if not is_leaf(t):
            left[i] = add(t[2])
            right[i] = add(t[3])
        return i

    add(tree)
    return Tree(
        feature=feature,
        left=left,
        right=right,
        prediction=prediction,
        counts=counts,
        features=problem.features,
        classes=problem.classes,
    )


MEMO_CELLS = 8_000_000  # predictions (rows × subtrees, int16) one ``tree_predict`` memo keeps at most: 16 MB


def tree_predict(s, tree, X, memo=None, tag=None):
    """Return the labels a nested-tuple tree of ``s`` predicts on the binary rows ``X``.

    ``memo``: a dict kept across calls on the same ``X`` for one ``tag`` (and on one listing, which shares its
    subtrees: ``TreeSet.trees``): each distinct subtree's predictions on every row are computed once, by ``id``.
    """
    if memo is not None:
        return _predict_shared(s, tree, X, memo, tag)
    out = np.empty(len(X), dtype=np.int64)
    stack = [(tree, np.arange(len(X)))]
    while stack:
        t, idx = stack.pop()
        if is_leaf(t):
            out[idx] = s.leaf_label(t)
            continue
        go = X[idx, t[1]] == 1
        stack += [(t[2], idx[~go]), (t[3], idx[go])]
    return out


def _predict_shared(s, t, X, memo, tag):
    hit = memo.get((tag, id(t)))
    if hit is not None:
        return hit[1]
    if is_leaf(t):
        out = np.full(len(X), s.leaf_label(t), dtype=np.int16)
    else:
        one, zero = _predict_shared(s, t[3], X, memo, tag), _predict_shared(s, t[2], X, memo, tag)
        out = np.where(X[:, t[1]] == 1, one, zero)
    if len(memo) * max(len(X), 1) < MEMO_CELLS:
        memo[(tag, id(t))] = (t, out)  # the tree is kept with its predictions, so its id is not reused meanwhile
    return out


def row_costs(rows, n):
    """Return every row's integer cost (its share of the loss times ``D``) as an int64 array."""
    cost = np.zeros(n, dtype=np.int64)
    for _, c, bits in rows.groups:
        for i in range(n):
            if bits >> i & 1:
                cost[i] = c
    return cost


def reliance(s, trees, X, y, cost, scale, deadline=None, memo=None):
    """Return ``{feature: (min, max)}`` of model reliance over ``trees``.

    Reliance of a tree on feature j (Fisher, Rudin, Dominici 2019, the difference form): its loss when
    every row's x_j is replaced by another row's x_j, averaged over all pairs of distinct rows, minus
    its loss. For 0/1 features that average is exact without drawing permutations. Rows with the same
    (x, y, cost) contribute the same terms, so the sums run over those groups times their sizes.
    """
    n = len(y)
    out = {}
    if n < 2:
        return out
    ones = X.sum(axis=0)
    keys = np.column_stack([X.astype(np.int64), np.asarray(y, dtype=np.int64), np.asarray(cost, dtype=np.int64)])
    groups, size = np.unique(keys, axis=0, return_counts=True)
    Xg, yg, weight = groups[:, :-2].astype(np.uint8), groups[:, -2], groups[:, -1] * size
    for t in trees:
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime
        base = float((weight * (tree_predict(s, t, Xg, memo) != yg)).sum()) / scale
        for j in sorted(_features(t)):
            losses = []
            for v in (0, 1):
                Xv = Xg.copy()
                Xv[:, j] = v
                losses.append(weight * (tree_predict(s, t, Xv, memo, (j, v)) != yg))
            others1 = ones[j] - Xg[:, j]  # rows k ≠ i with x_kj = 1
            others0 = (n - 1) - others1
            switched = float((others0 * losses[0] + others1 * losses[1]).sum()) / ((n - 1) * scale)
            lo, hi = out.get(j, (np.inf, -np.inf))
            out[j] = (min(lo, switched - base), max(hi, switched - base))
    return out


def _features(t):
    return set() if is_leaf(t) else {t[1]} | _features(t[2]) | _features(t[3])


def votes(s, X, flt=None, label=1):
    """Return, for every binary row of ``X``, the number of trees of the set that predict ``label`` on it."""
    flt = flt or Filter()
    unique, inverse = np.unique(np.asarray(X, dtype=np.uint8), axis=0, return_inverse=True)
    per_row = [s.votes(row, flt, label) for row in unique]
    return [per_row[i] for i in np.ravel(inverse)]


def summarize(s, problem, rows, config, optimum, theta, deadline=None, gosdt_proved=False):
    """Return ``Result.extras`` of a Rashomon run (see docs/algorithms/rashomon.md).

    The count, the bounds and the histogram are read from the graph the search built. Each other
    part (the best trees, importance, model reliance, training votes, the stored graph) is computed
    only while ``time.perf_counter()`` is before ``deadline``; a part cut short is left out whole and
    named in ``skipped`` (plain sentences), and everything reported stays exact.
    """
    keys = rows.keys
    whole = keys.scale * keys.q
    out = {
        "optimum": None if optimum is None else float(Fraction(optimum, whole)),
        "theta": None if theta is None else float(Fraction(theta, whole)),
        "theta_exact": None if theta is None else str(Fraction(theta, whole)),
    }
    if s is None:
        note = (
            "GOSDT proved the optimum, but the set's graph was not built even for the trees at the optimum "
            "within the limits, so no part of the set is proved."
            if gosdt_proved
            else "GOSDT's optimum was not proved within the limits, so no part of the set is proved."
        )
        out.update(count=0, count_text="0", proved_bound=None, open=None, note=note, skipped=[])
        return out
    total = s.count()
    proved = s.objective(s.theta)
    out.update(
        count=total,
        count_text=f"{total:,}",
        proved_bound=float(proved),
        proved_bound_exact=str(proved),
        open=None if theta is None or s.theta >= theta else [float(proved), out["theta"]],
        vertices=len(s.counts),
        scale=keys.scale,
    )
    out["histogram"] = [
        {
            "objective": float(s.objective(k)),
            "mistakes": m,
            "loss": m / keys.scale,
            "score": 1 - m / keys.scale,
            "leaves": h,
            "count": n,
            "count_text": f"{n:,}",
        }
        for k, m, h, n in s.cells()
    ]
    names = [predicates.text(f) for f in problem.features]
    X, y = np.asarray(problem.X, dtype=np.uint8), np.asarray(problem.y)
    skipped = []
    s.deadline = deadline
    try:

        def part(what, compute):
            if deadline is not None and time.perf_counter() > deadline:
                skipped.append(f"{what}: not computed, the time limit was reached first.")
                return None
            try:
                return compute()
            except OutOfTime:
                skipped.append(f"{what}: not computed, the time limit was reached first.")
                return None

        out["top"] = part("The best trees", lambda: _top(s, problem, keys)) or []
        listed = None
        if 0 < total <= LIST_LIMIT:
            try:
                listed = _listing(s, deadline)
            except OutOfTime:
                pass  # the parts below say what they could not compute
        if listed is not None:  # a small set: read from its list (the same numbers as the graph's, sooner)
            used = {}
            for t in listed:
                for j in _features(t):
                    used[j] = used.get(j, 0) + 1
        else:
            used = part("The share of trees using each feature", s.importance) if total else {}
        out["importance"] = [
            {"feature": j, "name": names[j], "trees": n, "trees_text": f"{n:,}", "share": n / total}
            for j, n in sorted((used or {}).items(), key=lambda kv: -kv[1])
            if n
        ]
        out["reliance"] = part("Model reliance over the set", lambda: _reliance(s, rows, X, y, names, deadline, listed))
        distinct = len(np.unique(X, axis=0)) if len(X) else 0
        # Votes are shares of trees predicting the positive class: two classes only (more: per class, not yet).
        if total and rows.n_classes == 2 and distinct * len(s.counts) <= VOTE_WORK_LIMIT:
            v = part(
                "The set's votes on the training rows",
                lambda: votes(s, X) if listed is None else listed_votes(s, listed, X, deadline),
            )
            if v is not None:
                out["training_votes"] = {
                    "disagree": int(sum(1 for n in v if 0 < n < total)),
                    "rows": len(v),
                    "share_one": [n / total for n in v],
                }
        if len(s.counts) <= GRAPH_LIMIT:
            out["graph"] = part("The stored graph (filters on the page)", s.to_packed)
        else:
            out["graph"] = None
            out["graph_note"] = (
                f"The set's graph has {len(s.counts):,} subproblems, more than the "
                f"{GRAPH_LIMIT:,} a result keeps, so it is not stored and filters are off."
            )
    finally:
        s.deadline = None
    out["skipped"] = skipped
    return out


def _top(s, problem, keys):
    top = []
    for rank, (k, t) in enumerate(s.trees(limit=TOP_TREES)):
        leaves, depth = shape(t)
        m = s.mistakes(t)
        top.append(
            {
                "rank": rank,
                "objective": float(s.objective(k)),
                "leaves": leaves,
                "depth": depth,
                "loss": m / keys.scale,
                "score": 1 - m / keys.scale,
                "text": tree_text(t, s.label),
                "tree": to_tree(s, t, problem).to_dict(),
            }
        )
    return top


def _listing(s, deadline):
    out = []
    for _, t in s.trees():
        if len(out) % 256 == 0 and deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime
        out.append(t)
    return out


def listed_votes(s, trees, X, deadline=None):
    """Return, for every row of ``X``, the number of ``trees`` predicting 1 on it (the set's votes when listed)."""
    unique, inverse = np.unique(np.asarray(X, dtype=np.uint8), axis=0, return_inverse=True)
    out = np.zeros(len(unique), dtype=np.int64)
    memo = {}
    for t in trees:
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime
        out += tree_predict(s, t, unique, memo)
    return [int(out[i]) for i in np.ravel(inverse)]


def _reliance(s, rows, X, y, names, deadline, listed=None):
    total = s.count()
    exact_mr = total <= RELIANCE_EXACT
    if exact_mr:
        trees = listed if listed is not None else [t for _, t in s.trees()]
    else:
        trees = s.sample(RELIANCE_SAMPLE, seed=0)
    memo = {} if exact_mr else None  # a listing shares its subtrees; uniform samples share few
    mr = reliance(s, trees, X, y, row_costs(rows, len(y)), rows.keys.scale, deadline, memo) if total else {}
    return {
        "exact": exact_mr,
        "trees": len(trees),
        "features": [{"feature": j, "name": names[j], "min": lo, "max": hi} for j, (lo, hi) in sorted(mr.items())],
    }


def export(s, features, X=None):
    """Return the set as JSON-able dict: its graph, feature predicates and, with binary rows ``X``, test vectors.

    A test vector is a row with the number of trees of the set that predict 1 on it and the count, so a
    reader of the graph can check its own vote DP (or its listing) against ours.
    """
    total = s.count()
    out = {
        "schema": "corelsweb.rashomon",
        "version": 1,
        "count": str(total),
        "graph": s.to_dict(),
        "features": features,
    }
    if X is not None:
        X = np.asarray(X, dtype=np.uint8)
        out["test_vectors"] = [
            {"x": row.tolist(), "votes_for_1": str(n), "count": str(total)} for row, n in zip(X, votes(s, X))
        ]
    return out


def load(d):
    """Return the ``TreeSet`` of an ``export`` dict (or of ``extras["graph"]``)."""
    return TreeSet.from_dict(d.get("graph", d))


def test_votes(extras, problem, table, roles, deadline=None, s=None):
    """Return ``extras["test_votes"]``: the set's votes on the raw test rows (share of trees predicting 1, disagreement).

    With a ``deadline`` (``time.perf_counter()``) the votes not done by then are not reported: the
    result is then ``{"skipped": sentence}``.
    """
    from solver.data.evaluation import problem_like

    if not extras.get("count") or (s is None and not extras.get("graph")) or problem.n_classes > 2:
        return None
    s = load(extras["graph"]) if s is None else s
    test = problem_like(problem, table, roles)
    s.deadline = deadline
    try:
        v = votes(s, test.X)
    except OutOfTime:
        return {"skipped": "The set's votes on the test rows: not computed, the time limit was reached first."}
    finally:
        s.deadline = None
    total = extras["count"]
    y = np.asarray(test.y) if test.y is not None else None
    return {
        "rows": len(v),
        "disagree": int(sum(1 for n in v if 0 < n < total)),
        "share_one": [n / total for n in v],
        "labels": None if y is None else y.tolist(),
        "majority_accuracy": None
        if y is None or not len(v)
        else float(np.mean([(2 * n >= total) == (yi == 1) for n, yi in zip(v, y)])),
    }
