"""The tree behind a memo's upper bound: follow each subproblem's best split from the root.

GOSDT's dependency graph and OSST's memo both record, for every subproblem, the split behind its
upper bound and the ids of that split's two children. ``extract`` turns those records into one
tree as parallel arrays, parents first; each algorithm builds its own model from them.
"""

from __future__ import annotations

import numba
import numpy as np

NO_SPLIT = -1
DIRECT = np.zeros(0, dtype=np.int64)


@numba.njit(cache=True)
def extract(root, best, feature, left, right, leaf, cap):
    """Return the tree below ``root`` as parallel arrays and its objective (the sum of its leaves').

    Nodes come parents first, two siblings side by side, and a left subtree before its sibling's.

    Parameters
    ----------
    root : int
        Id of the root subproblem.
    best : array of int64, shape (C,) or (0,)
        Row of ``feature``, ``left`` and ``right`` holding each subproblem's best split
        (``NO_SPLIT``: the subproblem is best as a leaf). Empty (``DIRECT``): row ``v`` is
        subproblem ``v``'s own, and ``feature[v] == NO_SPLIT`` marks a leaf.
    feature, left, right : array of int64, shape (R,)
        A split's feature and the ids of its two children (feature 0 on the left).
    leaf : array of float64, shape (C,)
        Objective of each subproblem as one leaf.
    cap : int
        Most nodes the tree can have.

    Returns
    -------
    ids : array of int64, shape (n,)
        Subproblem of each tree node.
    features, lefts, rights : array of int64, shape (n,)
        Split feature (``NO_SPLIT`` at leaves) and children's positions in these arrays (-1 at leaves).
    objective : float
    """
    ids = np.zeros(cap, dtype=np.int64)
    features = np.full(cap, NO_SPLIT, dtype=np.int64)
    lefts = np.full(cap, -1, dtype=np.int64)
    rights = np.full(cap, -1, dtype=np.int64)
    todo = np.zeros(cap, dtype=np.int64)  # tree positions still to fill, as a stack
    direct = best.shape[0] == 0
    ids[0], todo[0] = root, 0
    count, pending, objective = 1, 1, 0.0
    while pending > 0:
        pending -= 1
        at = todo[pending]
        v = ids[at]
        row = v if direct else best[v]
        if row == NO_SPLIT or feature[row] == NO_SPLIT:
            objective += leaf[v]
            continue
        features[at] = feature[row]
        lefts[at], ids[count] = count, left[row]
        rights[at], ids[count + 1] = count + 1, right[row]
        todo[pending], todo[pending + 1] = count + 1, count  # the left child is taken first
        pending += 2
        count += 2
    return ids[:count], features[:count], lefts[:count], rights[:count], objective
