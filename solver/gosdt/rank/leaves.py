"""The leaf cache of the tree-level search (spec §3.4) and leaf sets turned into models.

A leaf is the conjunction of its literals ``(feature, value)``; it is stored
once, keyed by its sorted literals, with the equivalence classes (distinct
feature vectors, "points") it captures, its class counts, and, on first
need, the features that split it into two non-empty sides and the two
children of each.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.data.points import equivalent_points
from solver.models import LEAF, Tree


class Points(NamedTuple):
    """The data as the search reads it.

    Attributes
    ----------
    X : array of uint8, shape (u, m)
        Distinct feature vectors.
    pos, neg : array of float64, shape (u,)
        Positive and negative (weighted) mass of each.
    """

    X: np.ndarray
    pos: np.ndarray
    neg: np.ndarray


def prepare(problem):
    """Return the ``Points`` of a binary classification problem (class index 1 is positive)."""
    points = equivalent_points(problem.X, problem.y, 2, problem.weights)
    return Points(points.X, points.class_weight[:, 1].copy(), points.class_weight[:, 0].copy())


class Leaves:
    """Parallel lists of cached leaves; leaf 0 is the root (captures every point)."""

    def __init__(self, points, max_depth):
        self.points = points
        self.max_depth = max_depth
        self.rule, self.members, self.pos, self.neg, self.minority = [], [], [], [], []
        self.candidates, self.mixed, self.sides, self.index = [], [], [], {}
        self.children = {}
        self.hits = 0
        self.nbytes = 0  # what the cache holds, roughly: members plus per-leaf bookkeeping
        self.add((), np.arange(points.X.shape[0]))

    def __len__(self):
        return len(self.rule)

    def add(self, rule, members):
        """Store the leaf of sorted literals ``rule`` capturing points ``members``; return its id."""
        i = len(self.rule)
        p, n = self.points.pos[members], self.points.neg[members]
        self.rule.append(rule)
        self.members.append(members)
        self.pos.append(float(p.sum()))
        self.neg.append(float(n.sum()))
        self.minority.append(float(np.minimum(p, n).sum()))
        self.candidates.append(None)
        self.mixed.append(None)
        self.sides.append(None)
        self.index[rule] = i
        self.nbytes += members.nbytes + 250 + 16 * len(rule)
        return i

    def depth(self, i):
        return len(self.rule[i])

    def features(self, i):
        """Return the features that split leaf ``i`` into two non-empty sides (ascending)."""
        if self.candidates[i] is None:
            members = self.members[i]
            ones = self.points.X[members].sum(axis=0)
            used = {f for f, _ in self.rule[i]}
            self.candidates[i] = [
                f for f in np.flatnonzero((ones > 0) & (ones < len(members))).tolist() if f not in used
            ]
        return self.candidates[i]

    def side_counts(self, i):
        """Return the candidate features of leaf ``i`` and the positive and negative mass where each is 1."""
        if self.sides[i] is None:
            members = self.members[i]
            feats = np.array(self.features(i), np.int64)
            X = self.points.X[members][:, feats].astype(np.float64)
            self.sides[i] = (feats, self.points.pos[members] @ X, self.points.neg[members] @ X)
        return self.sides[i]

    def can_split(self, i):
        """A leaf may be split when it is impure, within the depth limit, and some feature splits it."""
        return self.pos[i] > 0 and self.neg[i] > 0 and self.depth(i) < self.max_depth and len(self.features(i)) > 0

    def split(self, i, f):
        """Return the ids of ``leaf ∧ x_f = 0`` and ``leaf ∧ x_f = 1``."""
        key = (i, f)
        if key in self.children:
            return self.children[key]
        members = self.members[i]
        side = self.points.X[members, f] == 1
        out = []
        for value, part in ((0, members[~side]), (1, members[side])):
            rule = tuple(sorted(self.rule[i] + ((f, value),)))
            j = self.index.get(rule)
            if j is None:
                j = self.add(rule, part)
            else:
                self.hits += 1
            out.append(j)
        self.children[key] = tuple(out)
        return self.children[key]

    def classes(self, i):
        """Return (positive, negative) masses of leaf ``i``'s mixed equivalence classes, then its pure ones pooled.

        The pure classes of a leaf go to the top (positives) or the bottom (negatives) of any ROC
        curve, so two pooled entries stand for them all.
        """
        if self.mixed[i] is None:
            p, n = self.points.pos[self.members[i]], self.points.neg[self.members[i]]
            mixed = (p > 0) & (n > 0)
            self.mixed[i] = (np.r_[p[mixed], p[~mixed].sum(), 0.0], np.r_[n[mixed], 0.0, n[~mixed].sum()])
        return self.mixed[i]


def leaf_set_model(leaves, ids, labels, scores, features, classes):
    """Return the ``solver.models.Tree`` whose leaves are the cached leaves ``ids``.

    The leaves of a tree partition the space, so a feature that every leaf
    tests splits them into the two sides of a tree with the same leaves; the
    lowest such feature becomes the node, recursively.

    Parameters
    ----------
    labels : dict of int to int
        Predicted class of each leaf.
    scores : dict of int to float
        Score of each leaf (its positive share).
    """
    feature, left, right, prediction, counts, score = [], [], [], [], [], []

    def build(group):
        node = len(feature)
        feature.append(LEAF), left.append(LEAF), right.append(LEAF), prediction.append(0), score.append(0.0)
        pos = sum(leaves.pos[i] for _, i in group)
        neg = sum(leaves.neg[i] for _, i in group)
        counts.append([neg, pos])
        score[node] = pos / (pos + neg) if pos + neg > 0 else 0.5
        if len(group) == 1:
            prediction[node] = int(labels[group[0][1]])
            score[node] = float(scores[group[0][1]])
            return node
        shared = set.intersection(*(set(lits) for lits, _ in group))
        f = min(shared)
        sides = [
            [({k: v for k, v in lits.items() if k != f}, i) for lits, i in group if lits[f] == side] for side in (0, 1)
        ]
        feature[node] = int(f)
        left[node] = build(sides[0])
        right[node] = build(sides[1])
        prediction[node] = int(pos > neg)
        return node

    build([(dict(leaves.rule[i]), int(i)) for i in ids])
    return Tree(
        feature=feature,
        left=left,
        right=right,
        prediction=prediction,
        counts=counts,
        features=features,
        classes=classes,
        score=score,
    )
