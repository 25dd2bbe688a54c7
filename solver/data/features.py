"""What a binarization yields, for the dataset page: every binary feature with its support.

Two ways to the same JSON-able ``dict``:

``preview_from_problem(problem)``
    From a binarized ``Problem`` (the whole table was read): exact supports,
    boosted cuts, and the measured loss of reachable accuracy.
``preview_from_profile(columns, roles, method, n_rows)``
    From the stored column profiles alone (large files): exact for the
    exact and quantile methods on columns whose histogram was kept, marked
    as estimated where the profile holds only a sample; boosted cuts cannot
    be known before the model is fitted.

The dict holds ``method``, ``exact``, ``n_features``, ``features`` (up to
``LISTED`` of ``{"text", "column", "support"}``), ``estimated``, ``notes``,
``slow`` (a warning sentence or None), ``by_column`` (``[column, count]``) and, from a problem, the report of
``solver.data.binarize.binarization_report``.
"""

from __future__ import annotations

import numpy as np

from solver import predicates
from solver.data import thresholds
from solver.data.binarize import parse_method
from solver.data.columns import QUANTILE_KS

LISTED = 500
SLOW_FEATURES = 100
MANY = "many"  # marks a column with too many exact thresholds to list


def slow_warning(n_features, more=False, thresholds=0):
    """Return a warning sentence when ``n_features`` make an exact tree search likely slow, else None.

    ``thresholds``: how many of them are thresholds of numeric columns (several per column), which the ordered
    searches walk in order instead of one 0/1 feature each — the sentence says so, so that it does not
    contradict a run form whose estimate is for the ordered search.
    """
    if n_features <= SLOW_FEATURES:
        return None
    text = (
        f"{'More than ' if more else ''}{n_features:,} binary features: the work of a tree search over 0/1 features "
        "grows roughly like the number of features to the power of the depth, so expect long runs unless the "
        "depth is small or λ is large."
    )
    if thresholds > SLOW_FEATURES:
        text += (
            f" {thresholds:,} of them are thresholds of numeric columns, which STreeD (accuracy, misclassification "
            "costs, policies) and GOSDT (accuracy objectives) search in order per column instead, far faster; "
            "each run form's estimate says which search that run gets."
        )
    return text + " The quantile or boosted binarizations make far fewer features."


def feature_support(problem):
    """Return the rows where each binary feature is true: array of int64, shape (n_features,).

    From the ordered columns (a cumulative count of each family's ranks), so the binary matrix is not built.
    """
    ordered = problem.ordered_columns()
    support = np.zeros(ordered.n_features, dtype=np.int64)
    for f in range(len(ordered.size)):
        m, start = int(ordered.size[f]), int(ordered.offset[f])
        support[start : start + m] = np.cumsum(np.bincount(ordered.rank[f], minlength=m + 1))[:m]
    return support


def _threshold_features(problem):
    """Return how many features of ``problem`` are thresholds of numeric columns with more than one."""
    sizes = problem.ordered_columns().size
    return int(sizes[sizes > 1].sum())


def preview_from_problem(problem):
    """Return the preview of a binarized ``Problem``."""
    support = feature_support(problem)
    features = [
        {"text": predicates.text(p), "column": predicates.columns_used(p)[0], "support": int(s)}
        for p, s in zip(problem.features[:LISTED], support[:LISTED].tolist())
    ]
    report = dict(problem.binarization)
    by_column = {}
    for p in problem.features:
        column = predicates.columns_used(p)[0]
        by_column[column] = by_column.get(column, 0) + 1
    return {
        "method": report.get("method", ""),
        "exact": report.get("exact", True),
        "n_rows": int(problem.n_samples),
        "n_features": int(problem.n_features),
        "features": features,
        "estimated": False,
        "notes": [n for n in problem.notes if n != report.get("note")],
        "slow": slow_warning(problem.n_features, thresholds=_threshold_features(problem)),
        "by_column": list(by_column.items()),
        "report": report,
    }


def preview_from_profile(columns, roles, method, n_rows):
    """Return the preview computed from stored column profiles.

    Parameters
    ----------
    columns : list of dict
        Profile entries (``solver.data.profile.column_entry``).
    roles : Roles
    method : str
    n_rows : int
    """
    method = parse_method(method)
    by_name = {c["name"]: c for c in columns}
    features, notes, total, many, by_column = [], [], 0, [], []
    numeric = 0  # thresholds of numeric columns with several (the ordered searches walk them in order)
    for name in roles.feature_columns([c["name"] for c in columns]):
        entry = by_name[name]
        items, count, note = _column_preview(entry, roles, method)
        total += count
        if count > 1 and entry.get("numeric", "minimum" in entry):
            numeric += count
        missing_feature = entry["missing"] and roles.policy(name) == "feature" and entry["type"] != "empty"
        if count + bool(missing_feature):
            by_column.append([name, count + bool(missing_feature)])
        features += items
        if note == MANY:
            many.append(entry)
        elif note:
            notes.append(note)
        if entry["missing"] and roles.policy(name) == "feature" and entry["type"] != "empty":
            total += 1
            features.append(
                {"text": predicates.text(predicates.missing(name)), "column": name, "support": entry["missing"]}
            )
    if many:
        notes.insert(0, _many_note(many))
    estimated = any(f.get("estimated") for f in features[:LISTED])
    if estimated:
        notes.append("Supports marked ≈ are estimated from a random sample of the column.")
    return {
        "method": method.text,
        "exact": method.exact,
        "n_rows": int(n_rows),
        "n_features": int(total),
        "n_features_more": any(c.get("distinct_more", False) for c in many),
        "features": features[:LISTED],
        "estimated": estimated,
        "notes": notes,
        "slow": slow_warning(total, any(c.get("distinct_more", False) for c in many), numeric),
        "by_column": by_column,
        "report": {},
    }


def _column_preview(entry, roles, method):
    """Return ``(items, count, note)`` for one feature column's profile: listed features, how many, a sentence."""
    name, kind = entry["name"], entry["type"]
    if kind in ("empty", "constant"):
        return [], 0, entry.get("note")
    if entry.get("numeric", "minimum" in entry):
        return _numeric_preview(entry, method)
    counts = entry.get("counts", {})
    if name in roles.ordered:
        order = [v for v in roles.ordered[name] if v in counts]
        items, below = [], 0
        for v in order[:-1]:
            below += counts[v]
            items.append(_item(predicates.ordinal(name, roles.ordered[name], v), below))
        return items, len(items), None
    if kind == "binary":
        level = sorted(counts)[1]
        return [_item(predicates.equals(name, level), counts[level])], 1, None
    present = sum(counts.values()) + entry.get("other_rows", 0)
    distinct = max(entry["distinct"], len(counts)) + (1 if entry.get("distinct_more", False) else 0)
    kept, note = roles.kept_levels(name, counts, present, distinct)
    if not kept:
        return [], 0, note
    items = [_item(predicates.equals(name, v), counts[v]) for v in sorted(kept)]
    if len(kept) < entry["distinct"] or entry.get("distinct_more", False):
        items.append(_item(predicates.other(name, kept), present - sum(counts[v] for v in kept)))
    return items, len(items), note or entry.get("note")


def _numeric_preview(entry, method):
    name = entry["name"]
    if entry["type"] == "binary" and {entry.get("minimum"), entry.get("maximum")} == {0.0, 1.0}:
        return [_item(predicates.binary(name), entry.get("counts", {}).get("1", 0))], 1, None
    if method.name == "none":
        return [], 0, f"Column {name!r} is not 0/1; the 'none' binarization cannot use it."
    hist = entry.get("hist")
    if hist:
        uniq, counts = np.array(hist["values"]), np.array(hist["counts"], dtype=np.int64)
        if method.name == "gbdt":
            note = f"Column {name!r}: the boosted model picks its thresholds when a run starts (at most {len(uniq) - 1:,})."
            return [], 0, note
        cuts = (
            thresholds.exact_cuts(uniq) if method.name == "exact" else thresholds.quantile_cuts(uniq, counts, method.k)
        )
        support = thresholds.rows_at_or_below(uniq, counts, cuts)
        return [_item(predicates.threshold(name, t), s) for t, s in zip(cuts, support)], len(cuts), None
    more = "more than " if entry.get("distinct_more", False) else ""
    count = entry["distinct"] - 1
    if method.name == "exact":
        return [], count, MANY
    if method.name == "quantile" and str(method.k) in entry.get("quantile_cuts", {}):
        q = entry["quantile_cuts"][str(method.k)]
        sampled = entry.get("sampled", False)
        items = [_item(predicates.threshold(name, t), s, sampled) for t, s in zip(q["cuts"], q["rows"])]
        return items, len(items), None
    at_most = method.k if method.name == "quantile" else count
    note = (
        f"Column {name!r} has {more}{entry['distinct']:,} distinct values; its thresholds are chosen when a "
        f"run starts (at most {at_most:,}). Quantile counts with a preview here: {', '.join(map(str, QUANTILE_KS))}."
    )
    return [], at_most, note


def _many_note(entries):
    """Return one sentence about the columns whose exact thresholds are too many to list."""
    names = ", ".join(repr(c["name"]) for c in entries[:6]) + (
        f" and {len(entries) - 6} more" if len(entries) > 6 else ""
    )
    fewest = min(c["distinct"] for c in entries)
    more = "more than " if any(c.get("distinct_more", False) for c in entries) else "at least "
    return (
        f"{len(entries)} column{'s' if len(entries) > 1 else ''} ({names}) ha{'ve' if len(entries) > 1 else 's'} "
        f"{more}{fewest:,} distinct values each, so as many exact thresholds; they are not listed."
    )


def _item(p, support, estimated=False):
    out = {"text": predicates.text(p), "column": predicates.columns_used(p)[0], "support": int(support)}
    if estimated:
        out["estimated"] = True
    return out
