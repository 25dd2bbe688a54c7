"""Where to cut a numeric column: exact midpoints and quantile picks, from a value histogram.

Every function works on a column's histogram (its distinct present values,
ascending, and how many rows hold each), so that the dataset page (which
keeps only histograms) and the binarizer (which has every row) cut in the
same places. A cut ``t`` makes the feature ``x ≤ t``.
"""

from __future__ import annotations

import numpy as np


def histogram(values):
    """Return the distinct present values of a float column and their row counts.

    Parameters
    ----------
    values : array of float64, shape (n,)
        NaN marks a missing value.

    Returns
    -------
    uniq : array of float64, shape (k,)
        Ascending.
    counts : array of int64, shape (k,)
    """
    values = np.asarray(values, dtype=np.float64)
    uniq, counts = np.unique(values[~np.isnan(values)], return_counts=True)
    return uniq, counts.astype(np.int64)


def merge_histograms(a_values, a_counts, b_values, b_counts):
    """Return the histogram of the union of two histograms' rows."""
    values = np.concatenate([a_values, b_values])
    counts = np.concatenate([a_counts, b_counts])
    uniq, inverse = np.unique(values, return_inverse=True)
    return uniq, np.bincount(inverse, weights=counts, minlength=len(uniq)).astype(np.int64)


def exact_cuts(uniq):
    """Return the midpoints between adjacent distinct values (``k - 1`` cuts for ``k`` values).

    These cuts keep optimality relative to the raw values: any split of the
    raw column that a tree could make equals one of them on the data.
    """
    uniq = np.asarray(uniq, dtype=np.float64)
    return between(uniq[:-1], uniq[1:])


def between(lo, hi):
    """Return cuts ``t`` with ``lo ≤ t < hi``: the midpoint, or ``lo`` where rounding reaches ``hi``.

    Halves are added (no overflow near the largest floats); a midpoint of two
    adjacent subnormals can round onto ``hi`` (0.0 and -5e-324 give -0.0), and
    then the cut ``x ≤ t`` would not separate them.
    """
    mid = lo / 2.0 + hi / 2.0
    return np.where((mid >= hi) | (mid < lo), lo, mid)


def quantile_cuts(uniq, counts, k):
    """Return at most ``k`` exact cuts, the ones nearest the ``i / (k + 1)`` quantiles of the rows.

    The quantiles are numpy's default (linear interpolation between order
    statistics), computed from the histogram without expanding it; ties
    between two cuts go to the lower one. A subset of ``exact_cuts``.

    Parameters
    ----------
    uniq : array of float64, shape (m,)
    counts : array of int64, shape (m,)
    k : int

    Returns
    -------
    cuts : array of float64, shape (≤ k,)
    """
    mids = exact_cuts(uniq)
    if len(mids) <= k:
        return mids
    targets = histogram_quantiles(uniq, counts, np.arange(1, k + 1) / (k + 1))
    above = np.clip(np.searchsorted(mids, targets), 0, len(mids) - 1)
    below = np.clip(above - 1, 0, len(mids) - 1)
    nearer_below = np.abs(mids[below] - targets) <= np.abs(mids[above] - targets)
    return np.unique(mids[np.where(nearer_below, below, above)])


def histogram_quantiles(uniq, counts, q):
    """Return the ``q`` quantiles of the rows a histogram describes (numpy's linear method)."""
    ends = np.cumsum(counts)
    n = int(ends[-1])
    position = (n - 1) * np.asarray(q, dtype=np.float64)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, n - 1)
    value_low = uniq[np.searchsorted(ends, low, side="right")]
    value_high = uniq[np.searchsorted(ends, high, side="right")]
    return value_low + (position - low) * (value_high - value_low)


def rows_at_or_below(uniq, counts, cuts):
    """Return, for every cut, the number of rows with a value ``≤ cut`` (the support of ``x ≤ cut``)."""
    ends = np.concatenate([[0], np.cumsum(counts)])
    return ends[np.searchsorted(uniq, cuts, side="right")].astype(np.int64)


def snap_to_exact(uniq, cuts, seen=None):
    """Replace each cut by the exact midpoint that splits the distinct values the same way.

    A cut below the smallest or above the largest value splits nothing and
    is dropped. Used for thresholds chosen elsewhere, so that every
    approximate cut is one of ``exact_cuts``.

    Parameters
    ----------
    uniq : array of float64, shape (m,)
        Distinct values, ascending.
    cuts : array of float64, shape (c,)
    seen : array of float64, shape (m,), optional
        ``uniq`` as the model that chose the cuts saw them (scikit-learn's
        trees round to float32); a monotone image of ``uniq``.
    """
    seen = uniq if seen is None else seen
    below = np.searchsorted(seen, np.asarray(cuts, dtype=np.float64), side="right")
    below = np.unique(below[(below > 0) & (below < len(uniq))])
    return between(uniq[below - 1], uniq[below])
