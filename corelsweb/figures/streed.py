"""STreeD pictures: the root Pareto front (F1, fairness) with the trees of its points, and the policy value.

The front's points come from ``Result.extras["front"]``, with the trees of up
to 40 points spread along it (the reported one included); the tree panel
switches between them with a drop-down, so each is one click away.
"""

from corelsweb.figures.common import base_layout, esc, figure
from corelsweb.figures.tree import AUTOSIZE_WIDTH, tree_figure
from solver.streed.search import spread

MAX_TREES = 40  # trees offered in the selector (spread along the front, the chosen one always included)


def _axes(extras):
    if extras["task"] == "f1":
        return "FN", "FP", "False negatives", "False positives"
    if extras["task"] == "policy":
        return "treated_share", "policy_value", "Share of rows treated", "Estimated total outcome (teacher scores)"
    return "misclassifications", "discrimination", "Misclassifications", "Discrimination (training)"


def point_text(extras, point):
    """Return the escaped description of one front point."""
    values = point["values"]
    parts = [f"{esc(k)}={v:.4g}" for k, v in values.items()]
    return ", ".join(parts) + (" (reported)" if point.get("chosen") else "")


def point_label(extras, point):
    """Return a front point in words for the tree menu: ``565 errors, discrimination 0.043 (reported)``."""
    v = point["values"]
    if extras["task"] == "f1":
        text = f"{v.get('FN', 0):g} false negatives, {v.get('FP', 0):g} false positives"
    elif extras["task"] == "policy":
        text = point_text(extras, point).replace(" (reported)", "")
    else:
        text = f"{v.get('misclassifications', 0):,.0f} errors, discrimination {v.get('discrimination', 0):.3f}"
    return text + (" (reported)" if point.get("chosen") else "")


def non_dominated(points, xkey, ykey, maximise_y=False):
    """Return the points no other point dominates (x smaller or equal, y better or equal, one strictly)."""
    sign = -1.0 if maximise_y else 1.0
    out = []
    for p in points:
        px, py = p["values"][xkey], sign * p["values"][ykey]
        if not any(
            q["values"][xkey] <= px
            and sign * q["values"][ykey] <= py
            and (q["values"][xkey] < px or sign * q["values"][ykey] < py)
            for q in points
        ):
            out.append(p)
    return out


def front_figure(extras):
    """Return the scatter of the root front: (FN, FP) for F1, (errors, discrimination) for fairness.

    Only non-dominated points are drawn (a point another point beats on both axes is no trade-off).
    """
    xkey, ykey, xtitle, ytitle = _axes(extras)
    front = extras["front"] if extras["task"] == "policy" else non_dominated(extras["front"], xkey, ykey)
    points = sorted(front, key=lambda p: (p["values"][xkey], p["values"][ykey]))
    xs = [p["values"][xkey] for p in points]
    ys = [p["values"][ykey] for p in points]
    text = [point_text(extras, p) for p in points]
    data = [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines+markers" if extras["task"] == "f1" else "markers",
            "line": {"shape": "hv", "color": "#adb5bd"},
            "marker": {"size": 7, "color": "#1f77b4"},
            "hovertext": text,
            "hoverinfo": "text",
            "name": "front",
        }
    ]
    chosen = [p for p in points if p.get("chosen")]
    if chosen:
        c = chosen[0]
        data.append(
            {
                "type": "scatter",
                "x": [c["values"][xkey]],
                "y": [c["values"][ykey]],
                "mode": "markers",
                "marker": {"size": 14, "color": "#d62728", "symbol": "star"},
                "name": "reported tree",
                "hovertext": [point_text(extras, c)],
                "hoverinfo": "text",
            }
        )
    shapes = []
    if extras["task"] != "f1" and extras.get("delta") is not None:
        shapes.append(
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": extras["delta"],
                "y1": extras["delta"],
                "line": {"dash": "dash", "color": "#d62728"},
            }
        )
    layout = base_layout(
        height=380,
        xaxis={"title": {"text": xtitle}},
        yaxis={"title": {"text": ytitle}},
        shapes=shapes,
        hovermode="closest",
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
    )  # above the plot
    return figure(data, layout)


def pick_points(points, limit=MAX_TREES):
    """Return the indices of at most ``limit`` points with a tree, spread along the front, the reported one included.

    The solver stores the trees of 40 points spread along the front (``solver.streed.search``).
    """
    have = [i for i, p in enumerate(points) if "model" in p]
    chosen = [k for k, i in enumerate(have) if points[i].get("chosen")]
    return [have[k] for k in spread(len(have), limit, chosen)]


def front_trees_figure(extras):
    """Return one figure holding the trees of the front points, with a drop-down to switch between them."""
    points = extras["front"]
    picked = pick_points(points)
    data, buttons, start = [], [], 0
    figures = [tree_figure(points[i]["model"], views=False) for i in picked]
    counts = [len(f["data"]) for f in figures]
    shown = next((k for k, i in enumerate(picked) if points[i].get("chosen")), 0)
    for k, (i, fig) in enumerate(zip(picked, figures)):
        for trace in fig["data"]:
            data.append({**trace, "visible": k == shown})
        visible = [False] * sum(counts)
        visible[start : start + counts[k]] = [True] * counts[k]
        start += counts[k]
        layout = fig["layout"]
        # Each tree brings its own width: a wide tree drawn in a narrow tree's width would overlap its labels.
        buttons.append(
            {
                "method": "update",
                "label": point_label(extras, points[i]),
                "args": [
                    {"visible": visible},
                    {
                        "annotations": layout["annotations"],
                        "xaxis.range": layout["xaxis"]["range"],
                        "yaxis.range": layout["yaxis"]["range"],
                        "height": layout["height"] + 60,
                        "width": layout.get("width", AUTOSIZE_WIDTH),
                    },
                ],
            }
        )
    base = figures[shown]["layout"]
    layout = {
        **base,
        "height": base["height"] + 60,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "updatemenus": [
            {
                "type": "dropdown",
                "buttons": buttons,
                "active": shown,
                "x": 0,
                "y": 1.12,
                "xanchor": "left",
                "yanchor": "top",
            }
        ],
    }
    return figure(data, layout)


def policy_figure(extras):
    """Return bars of the tree's policy value next to treating everyone alike."""
    constant = extras.get("constant_policies") or {}
    names = ["tree"] + [f"all {esc(k)}" for k in constant]
    values = [extras["value"]["policy_value"]] + list(constant.values())
    data = [
        {
            "type": "bar",
            "x": names,
            "y": values,
            "marker": {"color": ["#2ca02c"] + ["#adb5bd"] * len(constant)},
            "hovertemplate": "%{x}: %{y:.4g}<extra></extra>",
        }
    ]
    layout = base_layout(height=320, yaxis={"title": {"text": "Estimated total outcome (teacher scores)"}})
    return figure(data, layout)


def streed_panels(result, panel):
    """Return the STreeD panels of a stored result dict (``panel`` builds one panel dict)."""
    extras = result.get("extras") or {}
    if result.get("algorithm") != "streed" or not extras.get("task"):
        return []
    out = []
    if extras.get("front"):
        if extras["task"] == "f1":
            note = (
                "Every tree on the root front of (false negatives, false positives); the reported one has the best F1."
            )
        elif extras["task"] == "policy":
            note = (
                "Trees found at the root; the reported one has the best value treating at most the capacity. "
                "With the upper bound on, the root prunes on the value alone, so this is not the whole front."
            )
            if extras.get("reference_treatment") is not None:
                note += (
                    f" Treated: sent to any treatment but {extras['reference_treatment']}."  # the page escapes notes
                )
        else:
            note = (
                "Trees found at the root; the reported one has the fewest errors with discrimination ≤ δ. "
                "With the upper bound on, the root prunes on errors alone, so this is not the whole front."
            )
        out.append(panel("streed-front", "Pareto front at the root", front_figure(extras), note=note))
        out.append(
            panel(
                "streed-front-trees",
                "Tree of a front point (choose it above the tree)",
                front_trees_figure(extras),
                wide=True,
            )
        )
    if extras["task"] == "policy" and extras.get("value"):
        out.append(
            panel(
                "streed-policy",
                "Policy value (training, teacher scores)",
                policy_figure(extras),
                note=f"Teacher: {esc(result.get('params', {}).get('teacher', ''))}.",
            )
        )
    return out
