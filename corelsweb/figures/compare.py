"""Several runs' bounds closing over time on one axis (OSDT's Figures 2 and 8, GOSDT's execution traces)."""

from corelsweb.figures.common import PALETTE, base_layout, esc, figure


def run_labels(results):
    """Return one short label per result: the algorithm, plus λ when the runs' λ differ, plus #k for repeats."""
    lambdas = {(r.get("params") or {}).get("regularization") for r in results}
    labels = []
    for r in results:
        label = str(r.get("algorithm", "run"))
        lam = (r.get("params") or {}).get("regularization")
        if len(lambdas) > 1 and lam is not None:
            label += f" λ={lam:g}"
        labels.append(label)
    repeated = {label for label in labels if labels.count(label) > 1}
    seen = {}
    out = []
    for label in labels:
        if label in repeated:
            seen[label] = seen.get(label, 0) + 1
            label = f"{label} #{seen[label]}"
        out.append(label)
    return out


def _series(trace, key):
    xs, ys, nodes = [], [], []
    counts = trace.get("nodes") or [None] * len(trace.get("elapsed", []))
    for t, v, n in zip(trace.get("elapsed", []), trace.get(key, []), counts):
        if v is not None:
            xs.append(t)
            ys.append(v)
            nodes.append(n if n is not None else 0)
    return xs, ys, nodes


def _optimum_marker(trace, color, name):
    """Return a star where the upper bound first reached its final value, or None."""
    xs, ys, nodes = _series(trace, "upper_bound")
    if not ys:
        return None
    i = next(k for k, y in enumerate(ys) if y == ys[-1])
    return {
        "type": "scatter",
        "x": [xs[i]],
        "y": [ys[i]],
        "customdata": [nodes[i]],
        "mode": "markers",
        "marker": {"symbol": "star", "size": 13, "color": color},
        "name": f"{name}: best found",
        "showlegend": False,
        "hovertemplate": "best %{y:.6f} at %{x:.3f}s<br>%{customdata:,} nodes<extra>" + name + "</extra>",
    }


def trace_comparison_figure(results, title="Bounds over time", labels=None):
    """Return a figure of each run's lower (dashed) and upper (solid) bound against seconds, nodes in the hover.

    Parameters
    ----------
    results : list of dict
        Stored result dicts, each with ``algorithm`` and ``trace`` (columns
        ``elapsed``, ``lower_bound``, ``upper_bound``, ``nodes``), optionally
        ``params``. A run's colour is shared by its two lines; a star marks
        where its best model was found.
    labels : list of str, optional
        One legend label per result (default: ``run_labels``).
    """
    data = []
    for k, (result, label) in enumerate(zip(results, labels or run_labels(results))):
        trace = result.get("trace") or {}
        color = PALETTE[k % len(PALETTE)]
        name = esc(label)
        for key, words, dash in (("upper_bound", "upper bound", "solid"), ("lower_bound", "lower bound", "dash")):
            xs, ys, nodes = _series(trace, key)
            if not ys:
                continue
            data.append(
                {
                    "type": "scatter",
                    "x": xs,
                    "y": ys,
                    "customdata": nodes,
                    "name": f"{name} {words}",
                    "mode": "lines",
                    "legendgroup": name,
                    "line": {"shape": "hv", "color": color, "width": 2, "dash": dash},
                    "hovertemplate": "%{y:.6f} at %{x:.3f}s<br>%{customdata:,} nodes<extra>"
                    + f"{name} {words}</extra>",
                }
            )
        star = _optimum_marker(trace, color, name)
        if star is not None:
            data.append(star)
    layout = base_layout(
        height=380,
        xaxis={"title": {"text": "seconds"}, "rangemode": "tozero", "gridcolor": "#eee"},
        yaxis={"title": {"text": "objective"}, "gridcolor": "#eee"},
        # Above the plot, under the title: below it, the legend ran into the axis title "seconds".
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        margin={"l": 60, "r": 20, "t": 90, "b": 50},
        hovermode="closest",
    )
    if title:  # the compare page heads the card instead
        layout["title"] = {"text": esc(title), "font": {"size": 14}}
    return figure(data, layout)
