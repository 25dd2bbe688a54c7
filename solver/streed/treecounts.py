"""Per-node counts of trees over the training rows, in one pass (for the trees of a whole front)."""

import numba
import numpy as np


@numba.njit(cache=True)
def node_counts(X, groups, weights, K, feature, left, right, starts):
    """Return the summed ``weights`` of each group at every node: array (n_nodes, K).

    The trees lie one after another: tree ``t`` is nodes ``starts[t]:starts[t + 1]``, its
    children numbered within it (its root is 0). Every row walks from each root to its
    leaf, adding its weight to each node on the way; ``feature[i] < 0`` marks a leaf,
    ``x = 0`` goes left.
    """
    out = np.zeros((feature.shape[0], K))
    for t in range(starts.shape[0] - 1):
        base = starts[t]
        for i in range(X.shape[0]):
            node = 0
            while True:
                out[base + node, groups[i]] += weights[i]
                f = feature[base + node]
                if f < 0:
                    break
                node = right[base + node] if X[i, f] else left[base + node]
    return out
