"""The CORELS objective in exact integer arithmetic, and the data the search reads.

Objective (Angelino et al. 2018, eq. 4): ``R(d) = errors / N + λ K`` for a rule
list ``d`` with ``K`` rules. We write ``λ = lam_num / D`` as an exact fraction
(the decimal the user typed) and compare *scaled* objectives

    S = errors · D + K · lam_num · N        (so that R = S / (D · N))

as int64, so every bound test (``≥``) and incumbent update (``<``) is exact
and incremental values equal values recomputed from scratch bit for bit
(spec §4.4). ``D · N`` is kept below 2**50 so that scaled values also convert
to float64 exactly (they are priority-queue keys).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from solver import bitset

SCALE_LIMIT = 2**50


def exact_regularization(lam, n):
    """Return ``(lam_num, D)`` with ``lam_num / D`` the decimal ``lam`` and ``D · n ≤ 2**50``.

    ``0.01`` becomes ``1/100``; a value whose decimal needs a larger
    denominator (``1/6`` typed as 0.16666666666666666) becomes the nearest
    fraction with a small enough one (``1/6``).
    """
    frac = Fraction(repr(float(lam)))
    limit = max(1, SCALE_LIMIT // max(1, n))
    if frac.denominator > limit:
        frac = frac.limit_denominator(limit)
    return frac.numerator, frac.denominator


class Data(NamedTuple):
    """What the search kernels read; nothing here changes during a search.

    The search works on *classes*: the distinct rows of the antecedent matrix
    (rows captured by exactly the same antecedents, the equivalent points of
    Proposition 19). Every rule list treats a class as one, so bitsets run
    over classes, and a class's row counts are stored as bit planes: the
    rows of a set ``v`` of classes number ``Σ_k 2^k · |v ∩ total[:, k]|``.
    When every row is its own class this is the plain bitset over rows.

    Attributes
    ----------
    caps : array of uint64, shape (m, w)
        Packed capture vector of every antecedent, over classes.
    total, positive, minority : array of uint64, shape (w, planes)
        Bit planes of each class's rows, rows with label 1, and minority rows
        (``min(rows with 0, rows with 1)``, Theorem 20).
    full : array of uint64, shape (w,)
        All classes (bits past the last class are 0).
    zobrist : array of uint64, shape (m,)
        Random words whose XOR over a set of antecedents hashes the set.
    n : int
        Rows.
    scale : int
        ``D``: scaled errors are ``errors · D``.
    lam : int
        ``lam_num · N``: the scaled cost of one rule.
    majority : int
        Label of the empty list's default rule (ties predict 1, spec §1.3).
    """

    caps: np.ndarray
    total: np.ndarray
    positive: np.ndarray
    minority: np.ndarray
    full: np.ndarray
    zobrist: np.ndarray
    n: int
    scale: int
    lam: int
    majority: int


def minority_rows(A, y):
    """Return the equivalent-points minority indicator ``z`` (Theorem 20).

    Rows are grouped by the set of antecedents that capture them; in each
    group the rows with the less frequent label are marked (on a tie, the
    rows with label 1, so that a group contributes ``min(count_0, count_1)``).

    Parameters
    ----------
    A : array of uint8, shape (n, m)
        Antecedent matrix.
    y : array of int64, shape (n,)
        Labels 0/1.

    Returns
    -------
    z : array of bool, shape (n,)
    """
    n = A.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)
    if A.shape[1] == 0:
        group = np.zeros(n, dtype=np.int64)
    else:
        _, group = np.unique(np.packbits(A, axis=1), axis=0, return_inverse=True)
        group = np.asarray(group, dtype=np.int64).reshape(-1)
    ones = np.bincount(group, weights=(y == 1), minlength=group.max() + 1)
    total = np.bincount(group, minlength=group.max() + 1)
    zeros = total - ones
    minority_label = np.where(ones <= zeros, 1, 0)  # tie: mark the 1s
    return y == minority_label[group]


def row_classes(A, y):
    """Group the rows of ``A`` by signature; return the classes and their row counts.

    Returns
    -------
    first : array of int64, shape (u,)
        A row of each distinct signature, the signatures in lexicographic order (so classes that share
        antecedents sit together in a bitset).
    rows, ones : array of int64, shape (u,)
        Rows, and rows with label 1, of each class.
    """
    n, m = A.shape
    if m == 0:
        return (
            np.zeros(1 if n else 0, dtype=np.int64),
            np.array([n] if n else [], dtype=np.int64),
            np.array([np.count_nonzero(y == 1)] if n else [], dtype=np.int64),
        )
    _, first, group = np.unique(np.packbits(A, axis=1), axis=0, return_index=True, return_inverse=True)
    group = np.asarray(group, dtype=np.int64).reshape(-1)
    rows = np.bincount(group, minlength=len(first))
    ones = np.bincount(group, weights=(y == 1), minlength=len(first)).astype(np.int64)
    return np.asarray(first, dtype=np.int64), rows, ones


PACK_COLUMNS = 16  # antecedents packed at a time: the copies packing makes stay a few of (classes x 16) bytes


def class_caps(A, first):
    """Return each antecedent's classes as a bitset, shape (m, n_words(u)): the columns of ``A[first]``,
    packed a few at a time (on 1,000,000 distinct rows x 320 antecedents the whole ``A[first]`` and its
    packing copies took a gigabyte)."""
    m = A.shape[1]
    out = np.zeros((m, bitset.n_words(len(first))), dtype=np.uint64)
    for j in range(0, m, PACK_COLUMNS):
        out[j : j + PACK_COLUMNS] = bitset.pack_columns(A[first, j : j + PACK_COLUMNS])
    return out


def bit_planes(counts):
    """Return ``counts`` (shape (u,)) as packed bit planes, shape (n_words(u), planes)."""
    planes = int(counts.max()).bit_length() if len(counts) else 0
    out = np.zeros((bitset.n_words(len(counts)), planes), dtype=np.uint64)
    for k in range(planes):
        out[:, k] = bitset.pack((counts >> k) & 1)
    return out


def make_data(A, y, lam, seed=0):
    """Group rows into classes and pack them, with the labels, for the search.

    Parameters
    ----------
    A : array of uint8, shape (n, m)
    y : array of int64, shape (n,)
        Labels 0/1.
    lam : float
        Regularization λ ≥ 0.
    """
    n, m = A.shape
    lam_num, scale = exact_regularization(lam, n)
    first, rows, ones = row_classes(A, y)
    u = len(rows)
    rng = np.random.default_rng(seed)
    total_ones = int(np.count_nonzero(y == 1))
    return Data(
        caps=class_caps(A, first),
        total=bit_planes(rows),
        positive=bit_planes(ones),
        minority=bit_planes(np.minimum(ones, rows - ones)),
        full=bitset.full(u),
        zobrist=rng.integers(0, np.iinfo(np.uint64).max, size=m, dtype=np.uint64, endpoint=True),
        n=n,
        scale=scale,
        lam=lam_num * n,
        majority=1 if 2 * total_ones >= n else 0,
    )


def to_float(scaled, data):
    """Return the objective ``scaled / (D · N)`` as a float."""
    return scaled / (data.scale * data.n)


def rule_list_errors(A, y, antecedents):
    """Return ``(errors, rule labels, default label, class counts)`` of a rule list, from scratch.

    Labels are the majority label of the rows each rule captures (ties
    predict 1); the default rule predicts the majority of the uncaptured rows
    (the whole data's majority when none are left).

    Returns
    -------
    errors : int
    labels : array of int64, shape (k,)
    default : int
    counts : array of int64, shape (k + 1, 2)
    """
    y = np.asarray(y)
    left = np.ones(len(y), dtype=bool)
    counts = np.zeros((len(antecedents) + 1, 2), dtype=np.int64)
    for k, j in enumerate(antecedents):
        rows = left & (A[:, j] == 1)
        counts[k] = np.bincount(y[rows], minlength=2)
        left &= ~rows
    counts[-1] = np.bincount(y[left], minlength=2)
    labels = (2 * counts[:-1, 1] >= counts[:-1].sum(axis=1)).astype(np.int64)
    majority = 1 if 2 * np.count_nonzero(y == 1) >= len(y) else 0
    default = majority if counts[-1].sum() == 0 else int(2 * counts[-1, 1] >= counts[-1].sum())
    errors = int(counts.sum() - counts[np.arange(len(counts)), np.append(labels, default)].sum())
    return errors, labels, default, counts


def scaled_objective(errors, length, data):
    """Return ``errors · D + length · lam_num · N``."""
    return errors * data.scale + length * data.lam


def log10_remaining(room, m):
    """Return ``log10`` of Theorem 7's bound on the prefixes left to evaluate, or None when none are.

    ``Γ ≤ Σ_{queued d_p} Σ_{k=0}^{f(d_p)} P(M − L(d_p), k)`` with ``room[L, f]``
    the number of queued prefixes of length ``L`` that may grow by ``f`` rules
    (``queue.lowest_bound``). Computed in log space: the values exceed 10**300.
    """
    logs = []
    for length, f in zip(*np.nonzero(room)):
        inner = [math.lgamma(m - length + 1) - math.lgamma(m - length - k + 1) for k in range(int(f) + 1)]
        logs.append(math.log(room[length, f]) + _logsumexp(inner))
    return None if not logs else _logsumexp(logs) / math.log(10)


def _logsumexp(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def permutations_count(m, k):
    """Return ``P(m, k) = m! / (m − k)!``, the ordered prefixes of length ``k`` from ``m`` antecedents."""
    return math.perm(m, k)


def naive_evaluations(m, lam=None, length=None):
    """Return Proposition 8's bound ``Σ_{k=0}^{K} P(M, k)`` on the prefixes a search evaluates.

    ``K = min(⌊1/(2λ)⌋, M)`` (Corollary 5) unless ``length`` is given.
    """
    big = _max_length(m, lam, length)
    return sum(permutations_count(m, k) for k in range(big + 1))


def symmetric_evaluations(m, lam=None, length=None):
    """Return Theorem 17's bound ``1 + Σ_{k=1}^{K} P(M, k) / (k − 1)!`` with the symmetry-aware map."""
    big = _max_length(m, lam, length)
    return 1 + sum(Fraction(permutations_count(m, k), math.factorial(k - 1)) for k in range(1, big + 1))


def _max_length(m, lam, length):
    if length is not None:
        return min(length, m)
    if lam is None or lam <= 0:
        return m
    return min(int(Fraction(1, 2) / Fraction(repr(float(lam)))), m)
