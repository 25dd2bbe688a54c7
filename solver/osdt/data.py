"""The data as OSDT's kernels read it: distinct points packed into bitsets, in search feature order.

Rows with identical features are merged into one *point* (``solver.data.points``)
carrying its class masses; every capture vector is a bitset over points. With
whole-number weights (the usual case: every row weighs 1) class masses are
read with popcounts over bit planes (bit ``b`` of each point's count); other
weights are summed point by point.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver import bitset
from solver.data.points import equivalent_points
from solver.problem import check_matrix_fits


class Data(NamedTuple):
    """Packed data of one search.

    Attributes
    ----------
    ones : array of uint64, shape (m, w)
        Points where feature ``j`` (search order) is 1.
    zeros : array of uint64, shape (m, w)
        Points where feature ``j`` is 0.
    pos_planes, neg_planes, min_planes : array of uint64, shape (b, w)
        Bit planes of each point's positive, negative and minority counts
        (whole-number weights); shape (0, w) otherwise.
    pos_mass, neg_mass : array of float64, shape (u,)
        Class masses of each point (used when weights are not whole numbers).
    omega : array of float64, shape (m, m)
        Share of the total mass on which features ``f`` and ``g`` disagree
        (Theorem F.1's ω, over all the data).
    """

    ones: np.ndarray
    zeros: np.ndarray
    pos_planes: np.ndarray
    neg_planes: np.ndarray
    min_planes: np.ndarray
    pos_mass: np.ndarray
    neg_mass: np.ndarray
    omega: np.ndarray


class Prepared(NamedTuple):
    """``Data`` plus what the Python side needs about it."""

    data: Data
    order: np.ndarray  # order[j] = original column of search feature j
    total: float  # total mass W
    n_points: int
    minority: float  # Σ over points of the minority mass (Prop B.1)
    integral: bool


def gini_order(X, y, weights):
    """Return the columns by decreasing Gini reduction at the root, as the authors' code orders them.

    Ties keep numpy's ``argsort(...)[::-1]`` order, as there.

    Parameters
    ----------
    X : array of uint8, shape (n, m)
    y : array of int64, shape (n,)
    weights : array of float64, shape (n,)
    """
    total = weights.sum()
    p0 = weights[y == 1].sum() / total
    gini0 = 2 * p0 * (1 - p0)
    reductions = []
    for j in range(X.shape[1]):
        side = X[:, j] == 1
        reduction = gini0
        for mask in (~side, side):
            mass = weights[mask].sum()
            p = weights[mask & (y == 1)].sum() / mass if mass else 0.0
            reduction -= mass / total * 2 * p * (1 - p)
        reductions.append(reduction)
    return np.asarray(np.argsort(np.array(reductions))[::-1], dtype=np.int64)


def bit_planes(counts, n_points):
    """Return the bit planes of whole-number ``counts``, shape (bits, n_words(n_points))."""
    counts = np.asarray(counts, dtype=np.int64)
    bits = max(1, int(counts.max()).bit_length()) if len(counts) else 1
    return np.stack([bitset.pack((counts >> b) & 1) for b in range(bits)]).reshape(bits, bitset.n_words(n_points))


def gini_order_of_ranks(ordered, y, weights):
    """``gini_order`` of the binary features of ``ordered`` (``OrderedColumns``), from class masses per cut."""
    total = weights.sum()
    p0 = weights[y == 1].sum() / total
    gini0 = 2 * p0 * (1 - p0)
    inside = ordered.class_mass_at_or_below(y, weights, 2)
    everything = np.array([weights[y == 0].sum(), weights[y == 1].sum()])
    reductions = np.full(len(inside), gini0)
    for side in (everything[None, :] - inside, inside):
        mass = side.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(mass > 0, side[:, 1] / mass, 0.0)
        reductions -= mass / total * 2 * p * (1 - p)
    return np.asarray(np.argsort(reductions)[::-1], dtype=np.int64)


def prepare(problem, feature_order="gini", with_omega=False):
    """Return the ``Prepared`` data of a binary classification ``problem``.

    ``omega`` is filled only ``with_omega`` (the similar support bound needs it). A problem without its 0/1
    matrix (made from ordered columns) is read as ranks: its matrix is built once, in the search's column
    order, and not kept.
    """
    weights = problem.weights
    if problem.has_binary:
        order = gini_order(problem.X, problem.y, weights) if feature_order == "gini" else np.arange(problem.n_features)
        X = problem.X[:, order]
    else:
        ordered = problem.ordered
        check_matrix_fits(ordered, problem.features)  # refused by name before it is built, as ``Problem.X`` does
        if feature_order == "gini":
            order = gini_order_of_ranks(ordered, problem.y, weights)
        else:
            order = np.arange(problem.n_features)
        X = ordered.binary(order)
    points = equivalent_points(X, problem.y, 2, weights)
    del X
    u = points.n_points
    ones = bitset.pack_columns(points.X)
    full = bitset.full(u)
    zeros = np.ascontiguousarray(full[None, :] & ~ones)
    neg_mass, pos_mass = points.class_weight[:, 0].copy(), points.class_weight[:, 1].copy()
    integral = bool(np.all(weights == np.round(weights)) and weights.sum() < 2**52)
    w = bitset.n_words(u)
    if integral:
        pos_planes = bit_planes(np.round(pos_mass), u)
        neg_planes = bit_planes(np.round(neg_mass), u)
        min_planes = bit_planes(np.round(np.minimum(pos_mass, neg_mass)), u)
    else:
        pos_planes = neg_planes = min_planes = np.zeros((0, w), dtype=np.uint64)
    mass = pos_mass + neg_mass
    total = float(mass.sum())
    m = points.X.shape[1]
    omega = np.zeros((m, m))
    if with_omega:
        Xp = points.X.astype(bool)
        for f in range(m):
            omega[f] = mass @ (Xp != Xp[:, f : f + 1]) / total
    data = Data(ones, zeros, pos_planes, neg_planes, min_planes, pos_mass, neg_mass, omega)
    minority = float(np.minimum(pos_mass, neg_mass).sum())
    return Prepared(data, order, total, u, minority, integral)
