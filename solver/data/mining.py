"""Rule mining for CORELS: antecedents from a problem's binary features.

CORELS searches over rule lists whose antecedents come from a fixed, pre-mined
set (Angelino et al., JMLR 2018, §3.7 and §6.2; spec §5.1). We mine, in this
order,

1. every binary feature as it is (``age ≤ 25.5``, ``sex = male``),
2. its negation (``age > 25.5``), when ``negations`` is on,
3. every conjunction of two of the literals above (``priors > 3.5 AND
   age ≤ 25.5``), when ``max_clauses`` is 2,

and keep those whose support (fraction of rows where the antecedent holds) lies
in ``[min_support, 1 - min_support]``. An antecedent whose rows equal those of
an earlier one is dropped (the earlier, shorter one reads better and the two
are interchangeable in every rule list).

Every antecedent is a predicate built with ``solver.predicates.negate`` and
``conjunction`` over the features' own predicates, so a mined rule explains
itself in the original units and evaluates on raw rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from solver import bitset, predicates
from solver.data.table import DataError

# More antecedents than this make every expansion of the search slow (each
# node evaluates all of them) and usually mean thresholds at every midpoint of
# continuous columns; the error message says what to change.
MAX_ANTECEDENTS = 10_000


def mine(X, features, min_support=0.01, max_clauses=2, negations=True, max_antecedents=MAX_ANTECEDENTS):
    """Mine CORELS antecedents from a binary matrix.

    Parameters
    ----------
    X : array of uint8, shape (n, m)
        Binary features.
    features : list of dict
        Predicate of each column of ``X``.
    min_support : float
        Keep antecedents true on at least this fraction of rows and false on
        at least this fraction.
    max_clauses : {1, 2}
        1: single literals only; 2: also conjunctions of two literals.
    negations : bool
        Also use the negation of every feature.
    max_antecedents : int
        Refuse (``DataError``) to mine more than this many.

    Returns
    -------
    A : array of uint8, shape (n, k)
        Antecedent matrix, one column per antecedent.
    antecedents : list of dict
        Predicate of each antecedent.
    summary : dict
        ``singles`` and ``pairs`` kept, ``candidates`` considered.
    """
    X = np.ascontiguousarray(X, dtype=np.uint8)
    n = X.shape[0]
    if max_clauses not in (1, 2):
        raise ValueError(f"max_clauses must be 1 or 2, not {max_clauses!r}")
    bits = bitset.pack_columns(X)
    everything = bitset.full(n)
    lits, lit_preds = _literals(bits, features, everything, negations)
    low, high = min_support * n, (1.0 - min_support) * n
    support = np.bitwise_count(lits).sum(axis=1) if len(lits) else np.zeros(0, dtype=np.int64)
    keep_single = np.flatnonzero((support >= low) & (support <= high))
    blocks, preds = [lits[keep_single]], [lit_preds[i] for i in keep_single]
    candidates = len(lits)
    if max_clauses == 2:
        pair_bits, pair_preds, considered = _pairs(lits, lit_preds, support >= low, low, high, 4 * max_antecedents)
        blocks.append(pair_bits)
        preds += pair_preds
        candidates += considered
    all_bits = np.concatenate(blocks) if blocks else np.zeros((0, bits.shape[1]), dtype=np.uint64)
    first = _first_distinct(all_bits)
    if len(first) > max_antecedents:
        raise DataError(
            f"Rule mining found {len(first):,} antecedents (at most {max_antecedents:,}); raise the minimum "
            "support, use single clauses, or binarize numeric columns with fewer thresholds (quantile:K)."
        )
    A = np.zeros((n, len(first)), dtype=np.uint8)
    for k, i in enumerate(first):
        A[:, k] = bitset.unpack(all_bits[i], n)
    n_singles = int(np.count_nonzero(first < len(keep_single)))
    summary = {"singles": n_singles, "pairs": len(first) - n_singles, "candidates": int(candidates)}
    return A, [preds[i] for i in first], summary


def _literals(bits, features, everything, negations):
    rows, preds = [], []
    for j, p in enumerate(features):
        rows.append(bits[j])
        preds.append(p)
        if negations:
            rows.append(everything & ~bits[j])
            preds.append(predicates.negate(p))
    if not rows:
        return np.zeros((0, len(everything)), dtype=np.uint64), []
    return np.ascontiguousarray(rows, dtype=np.uint64), preds


def _pairs(lits, lit_preds, usable, low, high, limit):
    """Return the conjunctions of two literals with support in ``[low, high]``.

    A conjunction is at most as frequent as each of its literals, so only
    literals with support ≥ ``low`` take part.
    """
    idx = np.flatnonzero(usable)
    out_bits, out_preds, considered = [], [], 0
    kept = 0
    for a, i in enumerate(idx[:-1]):
        others = idx[a + 1 :]
        both = lits[i] & lits[others]
        count = np.bitwise_count(both).sum(axis=1)
        considered += len(others)
        good = np.flatnonzero((count >= low) & (count <= high))
        if len(good) == 0:
            continue
        out_bits.append(both[good])
        out_preds += [predicates.conjunction(lit_preds[i], lit_preds[j]) for j in others[good]]
        kept += len(good)
        if kept > limit:
            raise DataError(
                f"Rule mining found more than {limit:,} conjunctions; raise the minimum support, use single "
                "clauses, or binarize numeric columns with fewer thresholds (quantile:K)."
            )
    width = lits.shape[1]
    bits = np.concatenate(out_bits) if out_bits else np.zeros((0, width), dtype=np.uint64)
    return bits, out_preds, considered


def _first_distinct(bits):
    """Return the ascending indices of the first occurrence of each distinct row of ``bits``."""
    if len(bits) == 0:
        return np.zeros(0, dtype=np.int64)
    _, first = np.unique(bits, axis=0, return_index=True)
    return np.sort(first)


def mine_problem(problem, min_support=0.01, max_clauses=2, negations=True, max_antecedents=MAX_ANTECEDENTS):
    """Return ``problem`` with its features replaced by mined antecedents (see ``mine``)."""
    A, antecedents, summary = mine(problem.X, problem.features, min_support, max_clauses, negations, max_antecedents)
    kinds = "single predicates" + (" and their negations" if negations else "")
    if max_clauses == 2:
        kinds += f" ({summary['singles']}) and conjunctions of two ({summary['pairs']})"
    note = (
        f"Mined {len(antecedents)} antecedents from {problem.n_features} binary features: {kinds}, "
        f"each true on {min_support:.3g} to {1 - min_support:.3g} of the rows."
    )
    return replace(problem, X=A, features=antecedents, notes=list(problem.notes) + [note])
