"""The regularization path: train and validation score and model size against λ, and score against size."""

import math

from corelsweb.figures.common import LOWER_COLOR, PALETTE, base_layout, esc, figure


def path_figure(rows, metric, metric_title, chosen=None):
    """Return a figure of the path summary rows (one per λ), the chosen λ marked with a star."""
    rows = sorted((r for r in rows if r.get("folds_done")), key=lambda r: r["lambda"])
    lams = [r["lambda"] for r in rows]
    title = esc(metric_title)
    data = [
        {
            "type": "bar",
            "x": lams,
            "y": [r["leaves_mean"] for r in rows],
            "name": "leaves (mean)",
            "yaxis": "y2",
            "marker": {"color": "#dee2e6"},
            "opacity": 0.7,
            "hovertemplate": "λ=%{x}: %{y:.1f} leaves<extra></extra>",
        },
        {
            "type": "scatter",
            "x": lams,
            "y": [r["valid_mean"] for r in rows],
            "name": f"validation {title}",
            "mode": "lines+markers",
            "line": {"color": PALETTE[0]},
            "error_y": {"type": "data", "array": [r["valid_std"] or 0 for r in rows], "visible": True},
        },
        {
            "type": "scatter",
            "x": lams,
            "y": [r["train_mean"] for r in rows],
            "name": f"training {title}",
            "mode": "lines+markers",
            "line": {"color": PALETTE[1], "dash": "dot"},
        },
    ]
    best = next((r for r in rows if r["lambda"] == chosen), None)
    if best is not None:
        data.append(
            {
                "type": "scatter",
                "x": [chosen],
                "y": [best["valid_mean"]],
                "name": f"chosen λ = {chosen:g}",
                "mode": "markers",
                "marker": {"symbol": "star", "size": 18, "color": LOWER_COLOR},
            }
        )
    layout = base_layout(
        height=380,
        xaxis={"title": {"text": "λ (log scale)"}, "type": "log", "gridcolor": "#eee", **lambda_ticks(lams)},
        yaxis={"title": {"text": title}, "gridcolor": "#eee"},
        yaxis2={
            "title": {"text": "leaves"},
            "overlaying": "y",
            "side": "right",
            "showgrid": False,
            "rangemode": "tozero",
            "tickformat": "d",
            "dtick": _leaf_step(rows),
        },
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        margin={"l": 60, "r": 60, "t": 50, "b": 45},
    )
    return figure(data, layout)


def lambda_ticks(lams, most=8):
    """Return a λ axis' ticks, each labelled with its whole value: at the grid's λs, or at powers of ten.

    plotly labels a log axis' minor ticks with a bare digit ("3 … 9"), which reads as λ = 3.
    """
    lams = sorted({lam for lam in lams if lam and lam > 0})
    if not lams:
        return {}
    if len(lams) > most:
        low, high = math.floor(math.log10(lams[0])), math.ceil(math.log10(lams[-1]))
        lams = [10.0**k for k in range(low, high + 1)]
    return {"tickmode": "array", "tickvals": lams, "ticktext": [f"{lam:g}" for lam in lams]}


def _leaf_step(rows):
    """Return a whole-number tick step for a leaves axis (never ticks such as 0.13, 1.11, 2.09)."""
    top = max([r.get("leaves_mean") or 0 for r in rows] or [1])
    return max(1, int(math.ceil(top / 8)))


def frontier_figure(rows, algorithm, metric_title):
    """Return score against mean leaves, one point per λ, for the path's algorithm and its stored CART baseline."""
    rows = [r for r in rows if r.get("folds_done")]
    cart = [{**r["cart"], "lambda": r["lambda"]} for r in rows if r.get("cart")]
    data = []
    for label, color, points in ((esc(algorithm), PALETTE[0], rows), ("CART", PALETTE[3], cart)):
        points = sorted(points, key=lambda p: (p["leaves_mean"], -p["lambda"]))
        for key, part, dash in (("valid_mean", "validation", "solid"), ("train_mean", "training", "dot")):
            if points:
                data.append(
                    {
                        "type": "scatter",
                        "mode": "lines+markers",
                        "name": f"{label} {part}",
                        "x": [p["leaves_mean"] for p in points],
                        "y": [p[key] for p in points],
                        "customdata": [p["lambda"] for p in points],
                        "line": {"color": color, "dash": dash},
                        "hovertemplate": f"{label} {part}, λ=%{{customdata:g}}: "
                        "%{x:.1f} leaves, %{y:.4f}<extra></extra>",
                    }
                )
    layout = base_layout(
        height=380,
        xaxis={"title": {"text": "leaves (mean over folds)"}, "gridcolor": "#eee", "rangemode": "tozero"},
        yaxis={"title": {"text": esc(metric_title)}, "gridcolor": "#eee"},
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        margin={"l": 60, "r": 20, "t": 50, "b": 45},
    )
    return figure(data, layout)
