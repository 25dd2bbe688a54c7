"""Brute force over every threshold of tiny ordered data: the plain recursion, no bound, no cache.

``best(rank, cost, depth, nodes, cc, min_leaf)`` is the optimum over trees of depth ≤ ``depth`` with ≤ ``nodes``
branching nodes whose splits are ``rank[f] < u`` for any rank ``u`` present at the node (both sides
non-empty and at least ``min_leaf`` rows), valued as the sum over leaves of the best label's cost plus
``cc`` per branching node.
"""

import functools

import numpy as np


def best(rank, cost, depth, nodes=None, cc=0.0, min_leaf=1):
    rank, cost = np.asarray(rank), np.asarray(cost, dtype=np.float64)
    F, N = rank.shape
    full = lambda d: (1 << d) - 1  # noqa: E731

    @functools.lru_cache(maxsize=None)
    def T(rows, d, nb):
        idx = np.array(rows, dtype=np.int64)
        value = cost[idx].sum(axis=0).min() if len(idx) else 0.0
        nb = min(nb, full(d))
        d = min(d, nb)
        if d == 0:
            return value
        half = full(d - 1)
        for f in range(F):
            for u in sorted(set(rank[f, idx].tolist()))[1:]:
                left = tuple(r for r in rows if rank[f, r] < u)
                right = tuple(r for r in rows if rank[f, r] >= u)
                if len(left) < min_leaf or len(right) < min_leaf:
                    continue
                for nl in range(max(0, nb - 1 - half), min(nb - 1, half) + 1):
                    value = min(value, T(left, d - 1, nl) + T(right, d - 1, nb - 1 - nl) + cc)
        return value

    return T(tuple(range(N)), depth, full(depth) if nodes is None else nodes)
