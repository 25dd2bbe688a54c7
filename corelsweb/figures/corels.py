"""Figures of a CORELS search: the queue by prefix length and the remaining search space (paper Figs 14-17)."""

from corelsweb.figures.common import PALETTE, base_layout, figure


def queue_length_figure(history):
    """Return the queued prefixes of each length over time (log scale), the total shaded grey.

    ``history`` is ``Result.extras["queue_by_length"]``: ``elapsed`` (seconds)
    and ``counts`` (for each sample, the number of queued prefixes of length
    0, 1, 2, ...).
    """
    elapsed, counts = history.get("elapsed", []), history.get("counts", [])
    longest = max((len(c) for c in counts), default=0)
    totals = [sum(c) for c in counts]
    data = [
        {
            "type": "scatter",
            "x": elapsed,
            "y": [t if t > 0 else None for t in totals],
            "name": "all lengths",
            "mode": "lines",
            "line": {"color": "#bbbbbb", "width": 1},
            "fill": "tozeroy",
            "fillcolor": "rgba(0,0,0,0.08)",
            "hovertemplate": "%{y} prefixes at %{x:.2f}s<extra>all lengths</extra>",
        }
    ]
    for k in range(longest):
        ys = [c[k] if k < len(c) and c[k] > 0 else None for c in counts]
        if not any(ys):
            continue
        name = f"length {k}"
        data.append(
            {
                "type": "scatter",
                "x": elapsed,
                "y": ys,
                "name": name,
                "mode": "lines",
                "line": {"color": PALETTE[k % len(PALETTE)], "width": 2},
                "hovertemplate": "%{y} prefixes at %{x:.2f}s<extra>" + name + "</extra>",
            }
        )
    layout = base_layout(
        height=320,
        xaxis={"title": {"text": "seconds"}, "rangemode": "tozero", "gridcolor": "#eee"},
        yaxis={"title": {"text": "queued prefixes"}, "type": "log", "gridcolor": "#eee"},
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        margin={"l": 60, "r": 20, "t": 50, "b": 45},
    )
    return figure(data, layout)


def remaining_space_figure(history):
    """Return ``log10`` of Theorem 7's bound on the prefixes left to evaluate, over time, or None."""
    points = [(t, v) for t, v in zip(history.get("elapsed", []), history.get("log10_remaining", [])) if v is not None]
    if not points:
        return None
    data = [
        {
            "type": "scatter",
            "x": [t for t, _ in points],
            "y": [v for _, v in points],
            "mode": "lines+markers",
            "name": "log10 remaining",
            "line": {"shape": "hv", "color": "#4c78a8"},
            "marker": {"size": 4},
            "hovertemplate": "10^%{y:.1f} prefixes left at %{x:.2f}s<extra></extra>",
        }
    ]
    layout = base_layout(
        height=260,
        xaxis={"title": {"text": "seconds"}, "rangemode": "tozero", "gridcolor": "#eee"},
        yaxis={"title": {"text": "log10 prefixes left (upper bound)"}, "rangemode": "tozero", "gridcolor": "#eee"},
        showlegend=False,
    )
    return figure(data, layout)
