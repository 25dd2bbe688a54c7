"""Survival-analysis math shared by the survival solvers, metrics and figures.

Kaplan-Meier curves (with Greenwood log-log confidence bands), the censoring
distribution Ĝ used by inverse-probability-of-censoring weights (IPCW), the
IPCW integrated Brier score (IBS) of the OSST paper (Zhang et al., AISTATS
2023, Eqs. 1-3 and 7) and its exact discrete form on the unique training
times, the equivalent loss of Lemma 2.4 in closed form, and the concordance
indices of Harrell and Uno for curve predictions (Eqs. 43-44).

Conventions the paper leaves open (spec §1.9), named as in the ``osst`` registry entry:

``ties`` : {"osst", "sksurv"}
    How deaths tied with censorings enter Ĝ. ``"osst"`` (the ``osst`` package
    and the paper's captions) keeps tied deaths in the censoring risk set:
    ``Ĝ`` factor ``1 - q/#{y ≥ t}``; ``"sksurv"`` (scikit-survival) takes
    deaths first: ``1 - q/(#{y ≥ t} - d)``.
``normalizer`` : {"range", "max"}
    The time normaliser ``Z`` of the IBS: ``y_max - y_min`` (``osst`` 0.1.8)
    or ``y_max`` (the paper's Eq. 1).

Structured survival targets follow scikit-survival: a record array with a
boolean ``event`` field and a float ``time`` field, built by ``survival_y``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

TIES = ("osst", "sksurv")
NORMALIZERS = ("range", "max")
Z_95 = 1.959963984540054  # standard normal quantile for a 95 % band


# ---------------------------------------------------------------------------
# Structured targets


def survival_y(event, time):
    """Return the structured survival target ``[("event", bool), ("time", float64)]``.

    Parameters
    ----------
    event : array of bool or 0/1, shape (n,)
        True where the event (death) was observed, False where censored.
    time : array of float64, shape (n,)
        Time of the event or of censoring.
    """
    event = np.asarray(event)
    time = np.asarray(time, dtype=np.float64)
    if event.shape != time.shape or event.ndim != 1:
        raise ValueError("event and time must be 1-d arrays of one length")
    if event.dtype != bool:
        if not np.isin(event, (0, 1)).all():
            raise ValueError("event must be boolean or 0/1")
        event = event.astype(bool)
    y = np.empty(len(time), dtype=[("event", bool), ("time", np.float64)])
    y["event"], y["time"] = event, time
    return y


def split_survival_y(y, event_value=None):
    """Return ``(event, time)`` of a structured survival target (scikit-survival's layout).

    The first field must be boolean (the event indicator) and the second
    numeric (the time), whatever their names. With ``event_value`` (a number
    or a list of numbers) the first field may hold any numbers, as R's
    ``survival`` package codes them (1 = censored, 2 = event): those values
    are events, the others censored.

    Returns
    -------
    event : array of bool, shape (n,)
    time : array of float64, shape (n,)
    """
    y = np.asarray(y)
    names = y.dtype.names
    if names is None or len(names) != 2:
        raise ValueError(
            "y must be a structured array with an event field and a time field; build it with "
            "solver.survival.survival_y(event, time)"
        )
    event, time = y[names[0]], y[names[1]]
    if event_value is not None:
        event = event_from_values(event, event_value, names[0])
    if event.dtype != bool:
        raise ValueError(
            f"the first field of y ({names[0]!r}) must be boolean (the event indicator); for a coding such as "
            "R's (1 = censored, 2 = event) pass event_value=2"
        )
    time = np.asarray(time, dtype=np.float64)
    check_times(time)
    return np.ascontiguousarray(event), np.ascontiguousarray(time)


def event_from_values(values, event_value, name="event"):
    """Return True where ``values`` is one of ``event_value`` (a number or a list of numbers)."""
    chosen = np.atleast_1d(np.asarray(event_value, dtype=np.float64))
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"the first field of y ({name!r}) must hold numbers to be mapped by event_value") from None
    missing = [v for v in chosen.tolist() if not (values == v).any()]
    if missing:
        raise ValueError(f"event_value {missing[0]:g} is not a value of the first field of y ({name!r})")
    return np.isin(values, chosen)


def check_times(time):
    """Raise ``ValueError`` unless every time is finite and non-negative (spec D5)."""
    time = np.asarray(time, dtype=np.float64)
    if not np.isfinite(time).all():
        raise ValueError("survival times must be finite numbers")
    if (time < 0).any():
        raise ValueError("survival times must not be negative")


# ---------------------------------------------------------------------------
# Kaplan-Meier estimates


class Curve(NamedTuple):
    """A Kaplan-Meier curve at the distinct observed times of its samples.

    Attributes
    ----------
    time : array of float64, shape (k,)
        Distinct observed times (deaths and censorings), ascending.
    survival : array of float64, shape (k,)
        Ŝ(time), right-continuous: the value just after each time.
    at_risk, events, censored : array of int64, shape (k,)
        Samples at risk just before each time, deaths and censorings at it.
    lower, upper : array of float64, shape (k,)
        Pointwise 95 % confidence band (Greenwood variance, log-log transform).
    """

    time: np.ndarray
    survival: np.ndarray
    at_risk: np.ndarray
    events: np.ndarray
    censored: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def to_dict(self):
        """Return the JSON-able form stored in ``Tree.curves``."""
        return {k: v.tolist() for k, v in self._asdict().items()}


def _group_counts(event, time):
    """Return distinct times, total and event counts at each, and the at-risk counts."""
    times, inverse = np.unique(np.asarray(time, dtype=np.float64), return_inverse=True)
    total = np.bincount(inverse, minlength=len(times))
    deaths = np.bincount(inverse, weights=np.asarray(event, dtype=np.float64), minlength=len(times))
    deaths = deaths.astype(np.int64)
    at_risk = total[::-1].cumsum()[::-1]
    return times, total, deaths, at_risk


def kaplan_meier(event, time):
    """Return the Kaplan-Meier ``Curve`` of a sample (Eq. 3 over distinct times).

    A factor whose risk set is empty counts as 1; tied deaths count once, as
    ``d / r``. The band is undefined where Ŝ is 0 or 1 and is then set to Ŝ.

    Parameters
    ----------
    event : array of bool, shape (n,)
    time : array of float64, shape (n,)
    """
    times, total, deaths, at_risk = _group_counts(event, time)
    survival = np.cumprod(1.0 - deaths / np.maximum(at_risk, 1))
    lower, upper = _loglog_band(survival, deaths, at_risk)
    return Curve(times, survival, at_risk.astype(np.int64), deaths, (total - deaths).astype(np.int64), lower, upper)


def _loglog_band(survival, deaths, at_risk, z=Z_95):
    # Greenwood's variance of log S, then a symmetric interval on log(-log S).
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.cumsum(np.where(at_risk > deaths, deaths / (at_risk * (at_risk - deaths)), 0.0))
        theta_se = np.sqrt(var) / np.abs(np.log(survival))
        lower = survival ** np.exp(z * theta_se)
        upper = survival ** np.exp(-z * theta_se)
    defined = (survival > 0) & (survival < 1)
    return np.where(defined, lower, survival), np.where(defined, upper, survival)


def step_values(curve_time, curve_survival, at):
    """Evaluate right-continuous step curves at times ``at`` (1 before the first time).

    Past the last time the curve keeps its last value (the ``osst`` package's
    convention; scikit-survival refuses to extrapolate).

    Returns
    -------
    values : array of float64, shape (len(at),)
    """
    idx = np.searchsorted(np.asarray(curve_time, dtype=np.float64), np.asarray(at, dtype=np.float64), side="right")
    padded = np.concatenate(([1.0], np.asarray(curve_survival, dtype=np.float64)))
    return padded[idx]


def censoring_survival(event, time, grid, ties="osst"):
    """Return Ĝ, the Kaplan-Meier estimate of the censoring distribution, at ``grid`` times.

    Parameters
    ----------
    event : array of bool, shape (n,)
    time : array of float64, shape (n,)
        The training sample that defines Ĝ.
    grid : array of float64, shape (k,)
        Times at which to evaluate Ĝ (right-continuous step function).
    ties : {"osst", "sksurv"}

    Returns
    -------
    G : array of float64, shape (k,)
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
    times, total, deaths, at_risk = _group_counts(event, time)
    censored = total - deaths
    risk = at_risk - deaths if ties == "sksurv" else at_risk
    factor = np.where(risk > 0, 1.0 - censored / np.maximum(risk, 1), 1.0)
    return step_values(times, np.cumprod(factor), grid)


def inverse(G):
    """Return ``1/G`` with 0 where ``G`` is 0 (such weights never meet a positive width)."""
    return np.divide(1.0, G, out=np.zeros_like(G), where=G > 0)


def normalizer_value(grid, normalizer="range"):
    """Return the IBS time normaliser ``Z`` of a sorted time grid (spec D1)."""
    if normalizer not in NORMALIZERS:
        raise ValueError(f"normalizer must be one of {NORMALIZERS}, not {normalizer!r}")
    return float(grid[-1] - grid[0]) if normalizer == "range" else float(grid[-1])


# ---------------------------------------------------------------------------
# The IBS loss on the training grid (spec §1.6 and §3.3-3.5)


class LossData(NamedTuple):
    """Everything the leaf loss needs, with samples renumbered in time order.

    Attributes
    ----------
    order : array of int64, shape (n,)
        ``order[r]`` is the original row of sample ``r`` (stable sort by time).
    kappa : array of int64, shape (n,)
        Grid index of each (sorted) sample's time.
    event : array of int64, shape (n,)
        1 for a death, 0 for a censoring (sorted).
    grid : array of float64, shape (E,)
        The distinct training times T_0 < ... < T_{E-1}.
    inv_g : array of float64, shape (E,)
        1/Ĝ(T_k), 0 where Ĝ is 0.
    prefix : array of float64, shape (E,)
        ``prefix[k] = Σ_{j<k} (T_{j+1} - T_j) / Ĝ(T_j)``.
    scale : float
        ``1 / (N · Z)``.
    """

    order: np.ndarray
    kappa: np.ndarray
    event: np.ndarray
    grid: np.ndarray
    inv_g: np.ndarray
    prefix: np.ndarray
    scale: float


def prepare_loss(event, time, ties="osst", normalizer="range"):
    """Return the ``LossData`` of a training sample.

    Raises
    ------
    ValueError
        On negative or non-finite times, or fewer than two distinct times
        (the loss is then identically 0; spec D5).
    """
    time = np.asarray(time, dtype=np.float64)
    check_times(time)
    order = np.argsort(time, kind="stable")
    grid, kappa = np.unique(time[order], return_inverse=True)
    if len(grid) < 2:
        raise ValueError("survival times need at least two distinct values")
    inv_g = inverse(censoring_survival(event, time, grid, ties))
    prefix = np.concatenate(([0.0], np.cumsum(np.diff(grid) * inv_g[:-1])))
    z = normalizer_value(grid, normalizer)
    if z <= 0:
        raise ValueError("the time normaliser is 0; use normalizer='range' or positive times")
    ev = np.asarray(event, dtype=np.int64)[order]
    return LossData(order.astype(np.int64), kappa.astype(np.int64), ev, grid, inv_g, prefix, 1.0 / (len(time) * z))


@numba.njit(cache=True)
def sorted_loss(members, n, kappa, event, inv_g, prefix, grid):
    """Return the unscaled IBS of one leaf, in O(n) (spec §3.4).

    Between consecutive distinct times of the leaf, its KM value ``S``, its
    controls (members observed later) and ``A`` (the IPCW mass of its deaths
    so far) are constant, and the 1/Ĝ part of the control term sums through
    ``prefix``.

    Parameters
    ----------
    members : array of int64, shape (>= n,)
        The leaf's sample ids in time order (ties adjacent); the first ``n`` are used.
    kappa, event : array of int64, shape (N,)
    inv_g, prefix, grid : array of float64, shape (E,)

    Returns
    -------
    float
        The leaf loss times ``N · Z`` (multiply by ``LossData.scale``).
    """
    total = 0.0
    S = 1.0
    A = 0.0
    risk = n
    last = grid.shape[0] - 1
    r = 0
    while r < n:
        a = kappa[members[r]]
        count = 0
        deaths = 0
        while r < n and kappa[members[r]] == a:
            count += 1
            deaths += event[members[r]]
            r += 1
        b = kappa[members[r]] if r < n else last
        S *= 1.0 - deaths / risk  # the KM step at T_a (Eq. 3)
        A += deaths * inv_g[a]
        risk -= count  # now the controls: members observed after T_a
        total += (1.0 - S) ** 2 * risk * (prefix[b] - prefix[a]) + S * S * A * (grid[b] - grid[a])
    return total


def leaf_loss(data, rows):
    """Return the IBS of one leaf holding the sorted-sample ids ``rows`` (any order)."""
    members = np.sort(np.asarray(rows, dtype=np.int64))
    return sorted_loss(members, len(members), data.kappa, data.event, data.inv_g, data.prefix, data.grid) * data.scale


@numba.njit(cache=True)
def _class_equivalent_loss(members, n, kappa, event, inv_g, grid):
    # Lemma 2.4 in closed form: at each grid interval the best value S gives A·B/(A+B).
    total = 0.0
    A = 0.0
    after = n
    r = 0
    while r < n:
        a = kappa[members[r]]
        while r < n and kappa[members[r]] == a:
            A += event[members[r]] * inv_g[a]
            after -= 1
            r += 1
        b = kappa[members[r]] if r < n else grid.shape[0] - 1
        for k in range(a, b):
            B = after * inv_g[k]
            if A + B > 0:
                total += (grid[k + 1] - grid[k]) * A * B / (A + B)
    return total


def equivalent_losses(data, class_of):
    """Return each sample's share ``e_i = ℰ_u / |u|`` of its class's equivalent loss (Lemma 2.4).

    Parameters
    ----------
    data : LossData
    class_of : array of int64, shape (N,)
        Equivalence class of each sorted sample (identical feature vectors).

    Returns
    -------
    e : array of float64, shape (N,)
        Sums over any union of whole classes give ``Σ_u ℰ_u`` (Lemma 2.5).
    """
    return _per_class(
        data,
        class_of,
        lambda members: _class_equivalent_loss(members, len(members), data.kappa, data.event, data.inv_g, data.grid),
    )


def class_km_losses(data, class_of):
    """Return each sample's share of the IBS of its own class's KM curve (a reference model, Eq. 12)."""
    return _per_class(
        data,
        class_of,
        lambda members: sorted_loss(members, len(members), data.kappa, data.event, data.inv_g, data.prefix, data.grid),
    )


def _per_class(data, class_of, loss_of):
    class_of = np.asarray(class_of, dtype=np.int64)
    out = np.zeros(len(class_of))
    order = np.argsort(class_of, kind="stable")  # members stay in time order within a class
    bounds = np.flatnonzero(np.diff(class_of[order])) + 1
    for members in np.split(order, bounds):
        if len(members) > 1:
            out[members] = loss_of(members) * data.scale / len(members)
    return out


def per_sample_losses(data, estimates):
    """Return each sample's IBS term ℓ_i (Eq. 7) for curves evaluated on the grid.

    Parameters
    ----------
    data : LossData
    estimates : array of float64, shape (N, E)
        ``estimates[r, k]`` = predicted Ŝ(T_k) for sorted sample ``r``.

    Returns
    -------
    losses : array of float64, shape (N,)
    """
    S = np.asarray(estimates, dtype=np.float64)[:, :-1]
    width = np.diff(data.grid)
    k = np.arange(S.shape[1])[None, :]
    control = k < data.kappa[:, None]
    case = (~control) & (data.event[:, None] == 1)
    terms = np.where(control, (1 - S) ** 2 * data.inv_g[None, :-1], 0.0)
    terms += np.where(case, S**2 * data.inv_g[data.kappa][:, None], 0.0)
    return (terms * width[None, :]).sum(axis=1) * data.scale


class StepCurve:
    """A right-continuous step survival curve, callable at any times (1 before ``x[0]``, flat after ``x[-1]``).

    Attributes
    ----------
    x : array of float64, shape (k,)
        Jump times.
    y : array of float64, shape (k,)
        Survival from each jump time on.
    """

    def __init__(self, x, y):
        self.x = np.asarray(x, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)

    def __call__(self, t):
        return step_values(self.x, self.y, np.atleast_1d(t))

    def __repr__(self):
        return f"StepCurve(x={self.x!r}, y={self.y!r})"
