"""OSST's objective on packed data: IBS of each leaf's KM curve + λ per leaf, and each subproblem's initial bounds.

Samples are renumbered in time order once (spec §3.3), so that scanning a
support bitset yields its members sorted by time and a leaf's IBS costs
O(|leaf|) (``solver.survival.sorted_loss``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver import bitset, survival
from solver.data.points import equivalent_points


class Data(NamedTuple):
    """The training data as the search kernels read it (samples in time order).

    Attributes
    ----------
    cols : array of uint64, shape (M, W)
        Bitset of the samples where each binary feature is 1.
    kappa, event : array of int64, shape (N,)
        Grid index of each sample's time; 1 for a death, 0 for a censoring.
    grid, inv_g, prefix : array of float64, shape (E,)
        See ``solver.survival.LossData``.
    floor_eq : array of float64, shape (N,)
        Each sample's share of its class's equivalent loss (Lemma 2.4); zeros when the bound is off.
    floor_ref : array of float64, shape (N,)
        Each sample's reference-model loss (Eq. 12); zeros when guessing is off.
    members : array of int64, shape (N,)
        Scratch buffer for the members of one support.
    scratch : array of uint64, shape (2, W)
        Scratch bitsets for the two children of a split.
    """

    cols: np.ndarray
    kappa: np.ndarray
    event: np.ndarray
    grid: np.ndarray
    inv_g: np.ndarray
    prefix: np.ndarray
    floor_eq: np.ndarray
    floor_ref: np.ndarray
    members: np.ndarray
    scratch: np.ndarray


class Params(NamedTuple):
    """Scalars of one run (a NamedTuple, so numba compiles the kernels once for all values)."""

    regularization: float
    scale: float
    min_leaf: int
    tolerance: float
    use_lookahead_bound: bool
    use_equivalent_points_bound: bool
    use_incremental_progress_bound: bool
    use_subtree_bound: bool
    use_reference_bound: bool


# Two subproblem objectives closer than this count as equal (spec D6).
TOLERANCE = 1e-12


def prepare(problem, config):
    """Return ``(data, params, loss)`` for a problem with time and event roles.

    ``loss`` is the ``solver.survival.LossData``; ``loss.order`` maps the
    kernels' sample ids back to the problem's rows.
    """
    loss = survival.prepare_loss(problem.event, problem.time, config["ipcw_ties"], config["time_normalizer"])
    X = problem.X[loss.order]
    n = len(loss.order)
    classes = equivalent_points(X, np.zeros(n, dtype=np.int64), 1).point_of_row
    zeros = np.zeros(n)
    floor_eq = survival.equivalent_losses(loss, classes) if config["use_equivalent_points_bound"] else zeros
    floor_ref = reference_losses(loss, classes, config["reference_model"]) if config["use_reference_bound"] else zeros
    data = Data(
        cols=bitset.pack_columns(X),
        kappa=loss.kappa,
        event=loss.event,
        grid=loss.grid,
        inv_g=loss.inv_g,
        prefix=loss.prefix,
        floor_eq=floor_eq,
        floor_ref=floor_ref,
        members=np.zeros(n, dtype=np.int64),
        scratch=np.zeros((2, bitset.n_words(n)), dtype=np.uint64),
    )
    params = Params(
        regularization=float(config["regularization"]),
        scale=float(loss.scale),
        min_leaf=int(config["min_samples_leaf"]),
        tolerance=TOLERANCE,
        use_lookahead_bound=bool(config["use_lookahead_bound"]),
        use_equivalent_points_bound=bool(config["use_equivalent_points_bound"]),
        use_incremental_progress_bound=bool(config["use_incremental_progress_bound"]),
        use_subtree_bound=bool(config["use_subtree_bound"]),
        use_reference_bound=bool(config["use_reference_bound"]),
    )
    return data, params, loss


def reference_losses(loss, classes, model):
    """Return per-sample losses ℓ_i of a reference model (Eq. 12), spread evenly over each class.

    ``"class_km"``: every class of identical feature vectors predicts its own
    KM curve, the finest partition any tree can make. Supports are unions of
    whole classes, so spreading a class's loss over its members gives the
    same subproblem sums as the per-sample losses.
    """
    if model != "class_km":
        raise ValueError(f"unknown reference model {model!r}")
    return survival.class_km_losses(loss, classes)


@numba.njit(cache=True)
def evaluate(data, params, bits, size, depth):
    """Return ``(leaf objective, lower bound)`` of a new subproblem (the recipe of spec §2).

    Parameters
    ----------
    bits : array of uint64, shape (W,)
        The support.
    size : int
        ``|bits|``.
    depth : int
        Remaining split levels.
    """
    n = bitset.items(bits, data.members)
    loss = (
        survival.sorted_loss(data.members, n, data.kappa, data.event, data.inv_g, data.prefix, data.grid) * params.scale
    )
    lam = params.regularization
    leaf = loss + lam
    floor = 0.0
    if params.use_equivalent_points_bound:  # Lemma 2.5 / Thm 2.6: loss no tree can avoid
        for r in range(n):
            floor += data.floor_eq[data.members[r]]
    if params.use_reference_bound:  # Eq. 12: the reference model's loss (a guess, Thm 2.7)
        guess = 0.0
        for r in range(n):
            guess += data.floor_ref[data.members[r]]
        floor = max(floor, guess)
    if depth == 0 or size < 2 * params.min_leaf:
        return leaf, leaf
    if params.use_incremental_progress_bound and loss - floor <= lam:  # Thm B.1: a split cannot pay for itself
        return leaf, leaf
    # Thm 2.2 + Thm 2.3 (one-step lookahead): a split has at least two leaves.
    leaves = 2.0 if params.use_lookahead_bound else 1.0
    return leaf, min(leaf, floor + leaves * lam)
