"""Brute force for the STreeD tests: enumerate every tree, value it by Eq. 4, keep opt (spec §7.4 item 1).

No bounds, no cache, no filtering below the root: every tree of depth ≤ d
over non-empty leaves is enumerated with its value and branching-node count.
"""

import numpy as np


def all_trees(task, X, ids, path, depth, min_leaf=1):
    """Return every tree as (value tuple, branching nodes), for rows ``ids`` below ``path``."""
    sums = task.A[ids].sum(axis=0)
    out = [(tuple(task.L[k] @ sums), 0) for k in range(task.n_labels)]
    if depth == 0:
        return out
    used = {f for f, _ in path}
    for f in range(X.shape[1]):
        if f in used:
            continue
        mask = X[ids, f] == 1
        left, right = ids[~mask], ids[mask]
        if len(left) < min_leaf or len(right) < min_leaf:
            continue
        cost = 0.0
        if task.test_cost is not None:
            cost = len(ids) * task.test_cost.costs([g for g, _ in path], [f])[0]
        lefts = all_trees(task, X, left, path + ((f, 0),), depth - 1, min_leaf)
        rights = all_trees(task, X, right, path + ((f, 1),), depth - 1, min_leaf)
        for lv, ln in lefts:
            for rv, rn in rights:
                v = tuple(a + b for a, b in zip(lv, rv))
                v = (v[0] + cost,) + v[1:]
                out.append((v, 1 + ln + rn))
    return out


def front(task, X, depth, nodes=None, min_leaf=1, digits=9):
    """Return the root front (set of rounded value tuples) of all feasible trees within the limits."""
    trees = all_trees(task, X, np.arange(X.shape[0]), (), depth, min_leaf)
    if nodes is not None:
        trees = [t for t in trees if t[1] <= nodes]
    values = {tuple(round(x, digits) for x in v) for v, _ in trees if all(x <= c for x, c in zip(v, task.caps))}
    return {v for v in values if not any(u != v and all(a <= b for a, b in zip(u, v)) for u in values)}
