"""Per-node counts of a tree over the training rows, in one pass (for the trees of a whole front)."""

import numba
import numpy as np


@numba.njit(cache=True)
def node_counts(X, groups, weights, K, feature, left, right):
    """Return the summed ``weights`` of each group at every node: array (n_nodes, K).

    Every row walks from the root (node 0) to its leaf, adding its weight to
    each node on the way; ``feature[i] < 0`` marks a leaf, ``x = 0`` goes left.
    """
    out = np.zeros((feature.shape[0], K))
    for i in range(X.shape[0]):
        node = 0
        while True:
            out[node, groups[i]] += weights[i]
            f = feature[node]
            if f < 0:
                break
            node = right[node] if X[i, f] else left[node]
    return out
