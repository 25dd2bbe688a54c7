"""What a search picked its splits from, per raw column, compact enough to store with every result."""

from __future__ import annotations

from solver import predicates

MAX_LISTED = 60  # thresholds or values listed per column; the count covers the rest


def summarize(features, ordered=None):
    """Return one entry per raw column of the binary ``features``, in order of first use.

    Parameters
    ----------
    features : list of dict
        Predicates (``solver.predicates``).
    ordered : OrderedColumns, optional
        The features' families (``solver.data.ordered``): a numeric column's thousands of cuts are then
        counted, not walked.

    Returns
    -------
    list of dict
        ``{"column", "count", "thresholds": [float], "values": [str], "other": [str]}``:
        the cut points of ``column ≤ t`` features, the values of ``column = v``
        (or ordered ``≤ v``) features, and the text of any other predicate.
    """
    by_column = {}
    if ordered is not None:
        picked = []
        for start, size in zip(ordered.offset.tolist(), ordered.size.tolist()):
            picked += features[start : start + min(size, MAX_LISTED)]
            if size > MAX_LISTED:  # counted, not listed
                column = features[start]["column"]
                entry = by_column.get(column)
                if entry is None:
                    entry = by_column[column] = {
                        "column": column,
                        "count": 0,
                        "thresholds": [],
                        "values": [],
                        "other": [],
                    }
                entry["count"] += size - MAX_LISTED
        features = picked
    for p in features:
        if p is None:
            continue
        kind = p["kind"]
        column = p["column"] if "column" in p else predicates.columns_used(p)[0]
        entry = by_column.get(column)
        if entry is None:
            entry = by_column[column] = {"column": column, "count": 0, "thresholds": [], "values": [], "other": []}
        entry["count"] += 1
        if kind == "threshold":
            entry["thresholds"].append(p["threshold"])
        elif kind == "equals" or kind == "ordinal":
            entry["values"].append(str(p["value"]))
        else:
            entry["other"].append(predicates.text(p))
    for entry in by_column.values():
        entry["thresholds"] = [float(t) for t in sorted(entry["thresholds"])[:MAX_LISTED]]
        entry["values"] = entry["values"][:MAX_LISTED]
        entry["other"] = entry["other"][:MAX_LISTED]
    return list(by_column.values())
