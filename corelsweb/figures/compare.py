"""Several runs on one picture: their bound traces on one time axis."""

from corelsweb.figures.common import PALETTE, base_layout, esc, figure


def run_label(result, index):
    lam = result.get("params", {}).get("regularization")
    extra = f", λ={lam:g}" if isinstance(lam, (int, float)) else ""
    return esc(f"#{index} {result['algorithm']}{extra}")


def trace_comparison_figure(results, labels=None):
    """Return one figure with every run's lower (dashed) and upper (solid) bound against time.

    ``results`` are result dicts; runs that prove nothing (no lower bound) show
    their objective only. Hover shows nodes evaluated.
    """
    data = []
    for k, result in enumerate(results):
        trace = result.get("trace") or {}
        color = PALETTE[k % len(PALETTE)]
        label = labels[k] if labels else run_label(result, k + 1)
        for key, dash, word in (("upper_bound", "solid", "upper"), ("lower_bound", "dash", "lower")):
            points = [(t, v, n) for t, v, n in zip(trace.get("elapsed", []), trace.get(key, []), trace.get("nodes", []))
                      if v is not None]
            if not points:
                continue
            data.append({
                "type": "scatter", "mode": "lines", "name": f"{label} {word}",
                "x": [p[0] for p in points], "y": [p[1] for p in points], "customdata": [p[2] for p in points],
                "line": {"color": color, "dash": dash, "shape": "hv", "width": 2},
                "hovertemplate": "%{y:.6f} at %{x:.3f}s, %{customdata} nodes<extra>" + f"{label} {word}</extra>",
            })
    layout = base_layout(
        height=380,
        xaxis={"title": {"text": "seconds"}, "rangemode": "tozero", "gridcolor": "#eee"},
        yaxis={"title": {"text": "objective"}, "gridcolor": "#eee"},
        legend={"orientation": "h", "y": -0.25},
    )
    return figure(data, layout)
