"""Rashomon set pictures: objectives, features across the set, accuracy against leaves, per-row disagreement.

Every number comes from ``Result.extras`` of a ``rashomon`` run (``solver.rashomon.report``): exact
counts from the set's graph, never a listing. Feature names come from users' files and are escaped.
"""

from corelsweb.figures.common import PALETTE, base_layout, esc, figure


def histogram_figure(extras):
    """Trees per objective value (training data), one bar per distinct objective."""
    by_objective = {}
    for cell in extras.get("histogram", []):
        by_objective[cell["objective"]] = by_objective.get(cell["objective"], 0) + cell["count"]
    xs = sorted(by_objective)
    # One bar per objective value, on a category axis: a numeric axis draws a lone value as a bar 0.8 wide.
    return figure(
        [
            {
                "type": "bar",
                "x": [f"{x:.6g}" for x in xs],
                "y": [float(by_objective[x]) for x in xs],
                "marker": {"color": PALETTE[0]},
                "hovertemplate": "objective %{x}<br>%{y:,} trees<extra></extra>",
            }
        ],
        base_layout(
            xaxis={"title": {"text": "Objective (training data)"}, "type": "category"},
            yaxis={"title": {"text": "Trees"}},
        ),
    )


def importance_figure(extras):
    """Share of the set's trees that split on each feature, with its model-reliance range."""
    rows = extras.get("importance", [])[:30]
    reliance = {r["feature"]: r for r in (extras.get("reliance") or {}).get("features", [])}
    names = [esc(r["name"]) for r in rows][::-1]
    text = []
    for r in rows[::-1]:
        mr = reliance.get(r["feature"])
        extra = f"<br>model reliance {mr['min']:.4f} … {mr['max']:.4f}" if mr else ""
        text.append(f"{esc(r['name'])}: {r['trees_text']} trees{extra}")
    return figure(
        [
            {
                "type": "bar",
                "orientation": "h",
                "x": [r["share"] for r in rows][::-1],
                "y": names,
                "text": text,
                "hoverinfo": "text",
                "textposition": "none",
                "marker": {"color": PALETTE[2]},
            }
        ],
        base_layout(
            xaxis={"title": {"text": "Share of trees using the feature"}, "range": [0, 1]},
            margin={"l": 200, "r": 20, "t": 20, "b": 40},
            height=120 + 22 * len(rows),
        ),
    )


def scatter_figure(extras):
    """Training score against leaves: one marker per (mistakes, leaves) cell, sized by its number of trees."""
    cells = extras.get("histogram", [])
    counts = [c["count"] for c in cells]
    biggest = max(counts) if counts else 1
    return figure(
        [
            {
                "type": "scatter",
                "mode": "markers",
                "x": [c["leaves"] for c in cells],
                "y": [c["score"] for c in cells],
                "marker": {"size": [8 + 22 * (n / biggest) ** 0.5 for n in counts], "color": PALETTE[1]},
                "text": [f"{c['leaves']} leaves, score {c['score']:.4f}: {c['count_text']} trees" for c in cells],
                "hoverinfo": "text",
            }
        ],
        base_layout(
            xaxis={"title": {"text": "Leaves"}, "dtick": 1}, yaxis={"title": {"text": "Training score (1 − loss)"}}
        ),
    )


def disagreement_figure(votes, which):
    """Share of the set's trees predicting the positive class on every row, sorted."""
    share = sorted(votes.get("share_one", []))
    return figure(
        [
            {
                "type": "scatter",
                "mode": "lines",
                "x": list(range(1, len(share) + 1)),
                "y": share,
                "line": {"color": PALETTE[3]},
                "hovertemplate": "%{y:.3f} of trees predict 1<extra></extra>",
            }
        ],
        base_layout(
            xaxis={"title": {"text": f"{which} rows, sorted"}},
            yaxis={"title": {"text": "Share predicting positive"}, "range": [0, 1]},
        ),
    )


def rashomon_panels(result, panel):
    extras = result.get("extras") or {}
    if result.get("algorithm") != "rashomon" or not extras.get("count"):
        return []
    panels = [
        panel("rashomon-objectives", "Trees per objective value (training data)", histogram_figure(extras)),
        panel(
            "rashomon-scatter",
            "Training score against leaves",
            scatter_figure(extras),
            note="One marker per (score, leaves) pair; its size grows with the number of trees.",
        ),
    ]
    if extras.get("importance"):
        rel = extras.get("reliance") or {}
        how = "every tree of the set" if rel.get("exact") else f"{rel.get('trees', 0)} trees sampled uniformly"
        panels.append(
            panel(
                "rashomon-importance",
                "Features across the set",
                importance_figure(extras),
                wide=True,
                note="Bar: the share of trees that split on the feature (exact, from the graph). Hover: "
                f"the range of model reliance (loss increase when the feature's values are swapped "
                f"between training rows) over {how}.",
            )
        )
    for key, which in (("test_votes", "Test"), ("training_votes", "Training")):
        votes = extras.get(key) or {}
        if votes.get("share_one"):
            panels.append(
                panel(
                    f"rashomon-{key.replace('_', '-')}",
                    f"Per-row votes of the set ({which.lower()} data)",
                    disagreement_figure(votes, which),
                    note=f"The trees disagree on {votes['disagree']:,} of {votes['rows']:,} {which.lower()} rows.",
                )
            )
    return panels
