"""Turn the search's incumbent into a ``solver.models.Tree`` with Kaplan-Meier leaves."""

from __future__ import annotations

import numpy as np

from solver import bitset, survival
from solver.models import LEAF, Tree


def build_tree(rows, memo, problem, loss, regularization):
    """Return the survival ``Tree`` of the extracted incumbent.

    Parameters
    ----------
    rows : list of (int, int, int, int)
        ``(memo id, feature, left, right)`` per tree node; feature ``-1`` at leaves.
    memo : solver.osst.cache.Memo
    problem : solver.problem.Problem
    loss : solver.survival.LossData
        Its ``order`` maps sorted-sample ids to the problem's rows.
    regularization : float

    Notes
    -----
    ``prediction`` of a leaf is its leaf number (0, 1, ... left to right as the
    tree figure draws it), so figures can colour a leaf and its curve alike;
    ``classes[prediction]`` is its name ``"leaf i"`` (``i`` its node index, as
    the figures label it), which exports and ``predict`` report. ``counts``
    columns are (samples, events); ``curves`` maps each leaf's node index to
    its KM curve (``solver.survival.Curve.to_dict``) plus its IBS ``loss``.
    """
    n = problem.n_samples
    counts = np.zeros((len(rows), 2))
    prediction = np.zeros(len(rows), dtype=np.int64)
    curves = {}
    names = []
    leaf_number = 0
    for i in _preorder(rows):
        node, feature = rows[i][0], rows[i][1]
        members = np.flatnonzero(bitset.unpack(memo.keys[node], n))
        original = loss.order[members]
        event, time = problem.event[original], problem.time[original]
        counts[i] = (len(members), event.sum())
        if feature == LEAF:
            prediction[i] = leaf_number
            names.append(f"leaf {i}")
            leaf_number += 1
            curve = survival.kaplan_meier(event, time).to_dict()
            curve["loss"] = float(memo.leaf[node] - regularization)
            curves[i] = curve
    return Tree(
        feature=[r[1] for r in rows],
        left=[r[2] if r[1] != LEAF else LEAF for r in rows],
        right=[r[3] if r[1] != LEAF else LEAF for r in rows],
        prediction=prediction,
        counts=counts,
        features=problem.features,
        classes=names,
        kind="survival",
        curves=curves,
    )


def _preorder(rows):
    # The "yes" (feature = 1) subtree first: leaf numbers then run left to right in the
    # tree figure, which draws that branch on the left.
    order, todo = [], [0]
    while todo:
        i = todo.pop()
        order.append(i)
        if rows[i][1] != LEAF:
            todo += [rows[i][2], rows[i][3]]
    return order
