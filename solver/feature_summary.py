"""What a search picked its splits from, per raw column, compact enough to store with every result."""

from __future__ import annotations

from solver import predicates

MAX_LISTED = 60  # thresholds or values listed per column; the count covers the rest


def summarize(features):
    """Return one entry per raw column of the binary ``features``, in order of first use.

    Parameters
    ----------
    features : list of dict
        Predicates (``solver.predicates``).

    Returns
    -------
    list of dict
        ``{"column", "count", "thresholds": [float], "values": [str], "other": [str]}``:
        the cut points of ``column ≤ t`` features, the values of ``column = v``
        (or ordered ``≤ v``) features, and the text of any other predicate.
    """
    by_column = {}
    for p in features:
        if p is None:
            continue
        column = predicates.columns_used(p)[0]
        entry = by_column.setdefault(column, {"column": column, "count": 0, "thresholds": [], "values": [],
                                              "other": []})
        entry["count"] += 1
        if p["kind"] == "threshold":
            entry["thresholds"].append(float(p["threshold"]))
        elif p["kind"] in ("equals", "ordinal"):
            entry["values"].append(str(p["value"]))
        else:
            entry["other"].append(predicates.text(p))
    for entry in by_column.values():
        entry["thresholds"] = sorted(entry["thresholds"])[:MAX_LISTED]
        entry["values"] = entry["values"][:MAX_LISTED]
        entry["other"] = entry["other"][:MAX_LISTED]
    return list(by_column.values())
