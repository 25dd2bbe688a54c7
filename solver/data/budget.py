"""A 0/1 search's matrix within a budget: a numeric column's exact thresholds thinned to those nearest its quantiles.

The searches that read one 0/1 column per threshold (CORELS, OSDT, OSST, Rashomon sets, GOSDT and STreeD on
few thresholds) hold ``rows × features`` bytes, and their own bitsets and caches beside it. On a table of
337,000 rows with a few thousand exact thresholds that is gigabytes before the search starts. So under the
``exact`` binarization, when the matrix would take more than a share of the run's memory limit
(``MATRIX_SHARE``: a thirty-second; of ``DEFAULT_MEMORY`` when the run has none), each numeric column keeps at most ``k``
of its exact cuts, the ones at the ``i / (k + 1)`` quantiles of its rows, with ``k`` the largest that fits.
The result says so: the problem's binarization report is no longer exact (``thinned`` holds the counts), its
notes carry a sentence, and the model is optimal among models on the kept thresholds. A larger memory limit
keeps more; an explicit ``quantile:K`` binarization, or an algorithm that searches thresholds in order, keeps
the matrix small without this.
"""

from __future__ import annotations

import numpy as np

from solver.data.featurelist import FeatureList
from solver.data.ordered import OrderedColumns

MATRIX_SHARE = 32  # the 0/1 matrix may take 1/32 of the run's memory limit: the search holds it about twice
DEFAULT_MEMORY = 4 << 30  # the web form's default limit, for runs with none


def budget_cells(memory_limit):
    """Return how many 0/1 cells a search's matrix may hold under ``memory_limit`` bytes (None: the default)."""
    return int((memory_limit or DEFAULT_MEMORY) // MATRIX_SHARE)


def cuts_per_column(sizes, n_samples, max_cells):
    """Return the largest ``k`` with ``n_samples × Σ min(size, k) ≤ max_cells``, or 0 when even 1 is too many."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if n_samples * int(np.minimum(sizes, 1).sum()) > max_cells:
        return 0
    low, high = 1, int(sizes.max())
    while low < high:  # the largest k that fits
        mid = (low + high + 1) // 2
        if n_samples * int(np.minimum(sizes, mid).sum()) <= max_cells:
            low = mid
        else:
            high = mid - 1
    return low


def quantile_picks(rank, size, k, weights=None):
    """Return the indices (ascending, distinct) of at most ``k`` of a family's ``size`` cuts, at its rows' quantiles.

    Cut ``c`` holds the rows of rank ``≤ c``; the pick for quantile ``q = i / (k + 1)`` is the first cut holding
    at least a share ``q`` of the (weighted) rows whose rank falls below some cut (missing and top rows hold
    none). Where ties make picks coincide, cuts spread evenly among those not picked fill up to ``k``.
    """
    if size <= k:
        return np.arange(size, dtype=np.int64)
    counts = np.bincount(rank, weights=weights, minlength=size + 1)[:size]
    held = np.cumsum(counts)
    total = held[-1] if len(held) else 0
    if total <= 0:
        return np.unique(np.linspace(0, size - 1, k).round().astype(np.int64))
    targets = np.arange(1, k + 1) / (k + 1) * total
    picks = np.unique(np.minimum(np.searchsorted(held, targets, side="left"), size - 1))
    if len(picks) < k:  # heavy ties: evenly spread cuts not picked yet fill up to k
        rest = np.setdiff1d(np.arange(size), picks)
        extra = rest[np.linspace(0, len(rest) - 1, k - len(picks)).round().astype(np.int64)]
        picks = np.unique(np.concatenate([picks, extra]))
    return picks.astype(np.int64)


def keep_at_most(problem, k):
    """Return ``(problem, thinned)``: each family of more than ``k`` cuts keeps ``quantile_picks`` of them.

    ``thinned`` counts the families that lost cuts. Every other field (rows, labels, the report) is
    unchanged; feature costs follow their features. The problem has no 0/1 matrix until one is read.
    """
    ordered = problem.ordered_columns()
    features = FeatureList()
    ranks, sizes, offsets, kept = [], [], [], []
    thinned_columns = 0
    for f, (start, size) in enumerate(zip(ordered.offset.tolist(), ordered.size.tolist())):
        offsets.append(len(features))
        if size <= k:
            ranks.append(ordered.rank[f])
            sizes.append(size)
            _copy(features, problem.features, start, start + size)
            kept.append(np.arange(start, start + size))
            continue
        keep = quantile_picks(ordered.rank[f], size, k, problem.sample_weight)
        ranks.append(np.searchsorted(keep, ordered.rank[f], side="left").astype(np.int32))
        sizes.append(len(keep))
        cuts = problem.features.cuts(start, start + size) if isinstance(problem.features, FeatureList) else None
        if cuts is not None:
            features.add_thresholds(problem.features[start]["column"], cuts[keep])
        else:
            features.extend(problem.features[start + int(j)] for j in keep)
        kept.append(start + keep)
        thinned_columns += 1
    new = OrderedColumns(
        rank=np.ascontiguousarray(np.vstack(ranks)),
        offset=np.asarray(offsets, dtype=np.int64),
        size=np.asarray(sizes, dtype=np.int64),
    )
    changes = {"X": None, "ordered": new, "features": features}
    if problem.feature_cost is not None:
        changes["feature_cost"] = problem.feature_cost[np.concatenate(kept)]
    return problem.with_changes(**changes), thinned_columns


def thinned(problem, max_cells):
    """Return ``problem`` with its numeric columns' cuts thinned so that its 0/1 matrix has at most ``max_cells``.

    Unchanged when the matrix exists already, when the problem is not an exact binarization made from ordered
    columns, when it fits, or when even one cut per column would not fit (the matrix's own check then refuses
    with what to change).
    """
    if problem.has_binary or problem.ordered is None or not problem.binarization.get("exact", False):
        return problem
    ordered = problem.ordered
    n = ordered.n_samples
    if ordered.cells() <= max_cells:
        return problem
    k = cuts_per_column(ordered.size, n, max_cells)
    if k == 0:
        return problem
    reduced, thinned_columns = keep_at_most(problem, k)
    report = dict(problem.binarization)
    exact_features = int(ordered.n_features)
    report.update(
        method=f"{report.get('method', 'exact')}, thinned to {k:,} per column",
        exact=False,
        n_features=int(reduced.n_features),
        thinned={
            "exact_features": exact_features,
            "features": int(reduced.n_features),
            "per_column": int(k),
            "columns": int(thinned_columns),
            "budget_bytes": int(max_cells),
        },
    )
    note = (
        f"This search reads one 0/1 column per threshold: the exact thresholds ({exact_features:,} features on "
        f"{n:,} rows, {ordered.cells() / 2**30:,.1f} GB) would not fit in its share of the memory limit "
        f"({max_cells / 2**30:,.2f} GB), so each of {thinned_columns:,} numeric columns keeps at most {k:,} "
        "thresholds, at its quantiles; the model is optimal among models on these thresholds. A larger memory "
        "limit keeps more; STreeD and GOSDT search every threshold of a numeric column in order."
    )
    for key in ("best_accuracy", "note"):
        report.pop(key, None)
    if report.get("best_accuracy_raw") is not None and problem.y is not None:
        from solver.data.binarize import best_accuracy, row_groups

        groups = row_groups(reduced.ordered.rank, n)
        report["best_accuracy"] = best_accuracy(groups, problem.y, problem.weights, int(problem.y.max()) + 1)
    report["note"] = note
    return reduced.with_changes(binarization=report, notes=[*problem.notes, note])


def _copy(features, source, start, stop):
    cuts = source.cuts(start, stop) if isinstance(source, FeatureList) and stop - start > 1 else None
    if cuts is not None:
        features.add_thresholds(source[start]["column"], cuts)
    else:
        features.extend(source[j] for j in range(start, stop))
