"""The search's lower and upper bounds closing over time."""

import math

from corelsweb.figures.common import LOWER_COLOR, UPPER_COLOR, base_layout, figure


def _points(trace, key):
    xs, ys = [], []
    for t, v in zip(trace.get("elapsed", []), trace.get(key, [])):
        if v is not None:
            xs.append(t)
            ys.append(v)
    return xs, ys


LEGEND_ABOVE = {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}  # clear of the axis titles


def _x_range(trace):
    """Return an x range that shows even a run of a few milliseconds (plotly collapses a zero-width range)."""
    last = max([t for t in trace.get("elapsed", []) if t is not None] or [0.0])
    return [0, last * 1.05 if last > 0 else 0.001]


def _y_range(data):
    """Return a y range around bounds that never move (plotly draws one tick with every digit of a flat line)."""
    ys = [y for series in data for y in series["y"]]
    if not ys or max(ys) > min(ys):
        return {}
    pad = max(abs(ys[0]) * 0.05, 1e-3)
    return {"range": [ys[0] - pad, ys[0] + pad]}


def gap_points(trace):
    """Return (seconds, relative gap) where both bounds are known: (upper − lower) / upper, as ``Result.gap``."""
    xs, ys = [], []
    for t, lower, upper in zip(trace.get("elapsed", []), trace.get("lower_bound", []), trace.get("upper_bound", [])):
        if t is None or lower is None or upper is None:
            continue
        xs.append(t)
        ys.append(max(0.0, (upper - lower) / upper) if upper > 0 else 0.0)
    return xs, ys


def _gap_series(trace):
    """Return the gap as a step line on its own log axis (y2), where 5 % and 50 % are both plain to see.

    A gap of 0 (proved) has no place on a log axis: the line ends there and the axis title says so.
    """
    xs, ys = gap_points(trace)
    shown = [(x, y) for x, y in zip(xs, ys) if y > 0]
    return {
        "type": "scatter",
        "x": [x for x, _ in shown],
        "y": [y for _, y in shown],
        "name": gap_name(ys[-1] if ys else None),
        "xaxis": "x",
        "yaxis": "y2",
        "mode": "lines+markers",
        "line": {"shape": "hv", "color": "#495057", "width": 2},
        "marker": {"size": 4 if len(shown) > 3 else 9},
        "hovertemplate": "gap %{y:.2%} at %{x:.2f}s<extra></extra>",
    }


def gap_name(final):
    """Return the gap's legend entry: what it is, and the gap at the end (or that it closed)."""
    words = "Gap (upper − lower) / upper"
    if final is None:
        return words
    return f"{words}: 0 at the end, proved" if final <= 0 else f"{words}: {final:.1%} at the end"


def _gap_axis(gap):
    ys = gap["y"] or [0.01]
    # At most 100 % (the lower bound is never below 0), and at least half a decade tall.
    high = min(math.log10(max(ys)) + 0.15, 0.02)
    low = min(math.log10(min(ys)) - 0.15, high - 0.5)
    return {
        "domain": [0, 0.3],
        "type": "log",
        "title": {"text": "gap"},
        "tickformat": ".1~%",
        "nticks": 4,  # a short panel: plotly's default labelled every 5 %, one over the other
        "range": [low, high],
        "gridcolor": "#eee",
    }


def bound_trace_figure(trace, title=None):
    """Return a figure of lower and upper bound against elapsed seconds (step lines), and their gap below.

    Bounds of 0.300 and 0.285 look like one line on an objective axis; the gap panel under them has its own
    axis from 0 to the largest gap, so a gap of a few per cent, and how it closed, can be read.
    """
    data = []
    for key, name, color in (
        ("upper_bound", "Upper bound (best model so far)", UPPER_COLOR),
        ("lower_bound", "Lower bound (proved)", LOWER_COLOR),
    ):
        xs, ys = _points(trace, key)
        data.append(
            {
                "type": "scatter",
                "x": xs,
                "y": ys,
                "name": name,
                "mode": "lines+markers",
                "line": {"shape": "hv", "color": color, "width": 2},
                "marker": {"size": 4 if len(xs) > 3 else 9},
                "hovertemplate": "%{y:.6f} at %{x:.2f}s<extra>" + name + "</extra>",
            }
        )
    gap = _gap_series(trace)
    layout = base_layout(
        height=440,
        xaxis={"title": {"text": "seconds"}, "range": _x_range(trace), "gridcolor": "#eee", "anchor": "y2"},
        yaxis={
            "domain": [0.4, 1],
            "title": {"text": "objective"},
            "gridcolor": "#eee",
            "tickformat": ".5~g",
            **_y_range(data),
        },
        yaxis2=_gap_axis(gap),
        legend=LEGEND_ABOVE,
        margin={"l": 60, "r": 20, "t": 50, "b": 45},
    )
    data.append(gap)
    if title:
        layout["title"] = {"text": title, "font": {"size": 14}}
    return figure(data, layout)


def _log_ticks(data):
    """Return a log axis' tick step: 1, 2, 5 per decade over a few decades, powers of ten beyond (labels never crowd)."""
    ys = [y for series in data for y in series["y"] if y and y > 0]
    if not ys or max(ys) / min(ys) <= 1e3:
        return "D2"
    return 1


def search_size_figure(trace):
    """Return a figure of the search's size columns (queue, graph, trie, ...) over time, or None."""
    skip = {"elapsed", "lower_bound", "upper_bound", "memory", "phase"}  # phase: a stage number, not a size
    data = []
    for key in trace:
        if key in skip:
            continue
        xs, ys = _points(trace, key)
        if ys:
            data.append(
                {
                    "type": "scatter",
                    "x": xs,
                    "y": ys,
                    "name": key.replace("_", " "),
                    "mode": "lines" if len(xs) > 3 else "lines+markers",
                    "marker": {"size": 8},
                }
            )
    if not data:
        return None
    layout = base_layout(
        height=300,
        xaxis={"title": {"text": "seconds"}, "range": _x_range(trace), "gridcolor": "#eee"},
        yaxis={"title": {"text": "count"}, "type": "log", "gridcolor": "#eee", "dtick": _log_ticks(data)},
        legend=LEGEND_ABOVE,
        margin={"l": 60, "r": 20, "t": 50, "b": 45},
    )
    return figure(data, layout)
