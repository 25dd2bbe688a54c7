"""Figures of survival trees: per-leaf Kaplan-Meier curves with bands and an at-risk table,
the leaves' composition, and the survival metrics.

Each leaf is drawn in ``class_color(prediction[leaf])``, the colour the tree
figure gives the same leaf, and named ``leaf k`` (1, 2, ... left to right) as the
tree figure names it.
"""

import numpy as np

from corelsweb.figures.common import base_layout, class_color, esc, figure

RISK_TICKS = 6  # times at which the at-risk table counts
BAND_OPACITY = 0.12
BAND_MIN_SAMPLES = 10  # smaller leaves have bands too wide to read: hidden until asked for


def leaf_order(model_dict):
    """Return the node indices of the leaves with curves, in the tree figure's order (leaf 1, leaf 2, ...)."""
    numbers = _numbers(model_dict)
    return sorted((int(k) for k in model_dict.get("curves", {})), key=lambda i: numbers.get(i, i))


def _numbers(model_dict):
    from corelsweb.figures.tree import leaf_numbers
    from solver.models import Tree

    return leaf_numbers(Tree.from_dict(model_dict))


def leaf_name(model_dict, leaf, numbers=None):
    """Return ``leaf k``, the name the tree figure gives the leaf at node ``leaf``."""
    return f"leaf {(numbers or _numbers(model_dict)).get(leaf, leaf)}"


def _rgba(hex_color, alpha):
    r, g, b = (int(hex_color[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _steps(curve, key):
    """Return the (x, y) of a right-continuous step curve from time 0 (value 1) through its times."""
    return [0.0] + list(curve["time"]), [1.0] + list(curve[key])


def at_risk_at(curve, t):
    """Return the number of the leaf's samples still at risk at time ``t`` (observed at or after ``t``)."""
    times = np.asarray(curve["time"], dtype=float)
    k = int(np.searchsorted(times, t, side="left"))
    return int(curve["at_risk"][k]) if k < len(times) else 0


def risk_times(curves):
    """Return evenly spaced times from 0 to the last observed time, for the at-risk table."""
    last = max((c["time"][-1] for c in curves if c["time"]), default=1.0) or 1.0
    return [float(t) for t in np.linspace(0.0, last, RISK_TICKS)]


def km_traces(leaf, curve, color, name, band_visible=True):
    """Return the plotly traces of one leaf: band, step curve and censoring marks."""
    x, lower = _steps(curve, "lower")
    _, upper = _steps(curve, "upper")
    _, y = _steps(curve, "survival")
    group = f"leaf{leaf}"
    band = {
        "type": "scatter",
        "x": x + x[::-1],
        "y": upper + lower[::-1],
        "fill": "toself",
        "mode": "lines",
        "line": {"width": 0, "shape": "hv"},
        "fillcolor": _rgba(color, BAND_OPACITY),
        "hoverinfo": "skip",
        "legendgroup": group,
        "showlegend": False,
        "xaxis": "x",
        "yaxis": "y",
        "visible": band_visible,
        "meta": "band",
    }
    line = {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines",
        "name": name,
        "legendgroup": group,
        "line": {"shape": "hv", "color": color, "width": 2},
        "xaxis": "x",
        "yaxis": "y",
        "customdata": list(zip(lower, upper)),
        "hovertemplate": name + ": S(%{x:.4g}) = %{y:.3f} (95 %: %{customdata[0]:.3f}–%{customdata[1]:.3f})"
        "<extra></extra>",
    }
    censored = [i for i, c in enumerate(curve.get("censored", [])) if c > 0]
    marks = {
        "type": "scatter",
        "x": [curve["time"][i] for i in censored],
        "y": [curve["survival"][i] for i in censored],
        "mode": "markers",
        "marker": {"symbol": "line-ns-open", "size": 8, "color": color},
        "legendgroup": group,
        "showlegend": False,
        "hoverinfo": "skip",
        "xaxis": "x",
        "yaxis": "y",
    }
    return [band, line, marks]


def km_figure(model_dict):
    """Return the Kaplan-Meier curves of every leaf on one plot, with 95 % bands and an at-risk table."""
    leaves = leaf_order(model_dict)
    numbers = _numbers(model_dict)
    curves = {i: model_dict["curves"][str(i)] for i in leaves}
    ticks = risk_times(curves.values())
    data = []
    for row, leaf in enumerate(leaves):
        color = class_color(int(model_dict["prediction"][leaf]))
        n = int(model_dict["counts"][leaf][0])
        data += km_traces(
            leaf,
            curves[leaf],
            color,
            f"{leaf_name(model_dict, leaf, numbers)} (n={n})",
            band_visible=n >= BAND_MIN_SAMPLES,
        )
        data.append(
            {
                "type": "scatter",
                "x": ticks,
                "y": [row] * len(ticks),
                "mode": "text",
                "text": [str(at_risk_at(curves[leaf], t)) for t in ticks],
                "textfont": {"color": color, "size": 11},
                "legendgroup": f"leaf{leaf}",
                "showlegend": False,
                "hoverinfo": "skip",
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
    table_share = min(0.45, 0.06 + 0.045 * len(leaves))
    layout = base_layout(
        height=420 + 18 * len(leaves),
        xaxis={
            "title": {"text": "time"},
            "range": [-0.04 * ticks[-1], 1.04 * ticks[-1]],
            "gridcolor": "#eee",
            "anchor": "y",
            "zeroline": False,
        },
        yaxis={
            "title": {"text": "survival probability"},
            "range": [0, 1.05],
            "gridcolor": "#eee",
            "domain": [table_share + 0.12, 1.0],
        },
        xaxis2={"matches": "x", "showticklabels": False, "anchor": "y2", "showgrid": False, "zeroline": False},
        yaxis2={
            "domain": [0, table_share],
            "range": [len(leaves) - 0.5, -0.5],
            "showgrid": False,
            "tickvals": list(range(len(leaves))),
            "ticktext": [leaf_name(model_dict, leaf, numbers) for leaf in leaves],
            "zeroline": False,
            "showline": False,
        },
        legend={"orientation": "v", "x": 1.02, "y": 1.0},
        margin={"l": 70, "r": 20, "t": 40, "b": 40},
        hovermode="closest",
        updatemenus=[band_buttons(data)],
        annotations=[
            {
                "text": "numbers at risk",
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "y": table_share + 0.02,
                "xanchor": "left",
                "yanchor": "bottom",
                "font": {"size": 12, "color": "#555"},
            }
        ],
    )
    return figure(data, layout)


def band_buttons(data):
    """Return a plotly menu that shows the 95 % bands of the larger leaves, of all leaves, or of none."""
    bands = [i for i, trace in enumerate(data) if trace.get("meta") == "band"]
    default = [data[i]["visible"] for i in bands]
    buttons = [
        ("bands: leaves with n ≥ %d" % BAND_MIN_SAMPLES, default),
        ("bands: all leaves", [True] * len(bands)),
        ("no bands", [False] * len(bands)),
    ]
    return {
        "type": "buttons",
        "direction": "right",
        "x": 0,
        "y": 1.0,
        "xanchor": "left",
        "yanchor": "bottom",
        "pad": {"t": 0, "b": 4},
        "showactive": True,
        "font": {"size": 11},
        "buttons": [
            {"label": label, "method": "restyle", "args": [{"visible": visible}, bands]} for label, visible in buttons
        ],
    }


def composition_figure(model_dict):
    """Return stacked bars of events and censored samples per leaf, in the leaves' colours."""
    leaves = leaf_order(model_dict)
    numbers = _numbers(model_dict)
    names = [leaf_name(model_dict, leaf, numbers) for leaf in leaves]
    counts = model_dict["counts"]
    colors = [class_color(int(model_dict["prediction"][leaf])) for leaf in leaves]
    events = [counts[leaf][1] for leaf in leaves]
    censored = [counts[leaf][0] - counts[leaf][1] for leaf in leaves]
    data = [
        {
            "type": "bar",
            "x": names,
            "y": events,
            "name": "events (solid)",
            "marker": {"color": colors},
            "hovertemplate": "%{x}: %{y} events<extra></extra>",
        },
        {
            "type": "bar",
            "x": names,
            "y": censored,
            "name": "censored (light)",
            "marker": {"color": [_rgba(c, 0.35) for c in colors], "line": {"color": colors, "width": 1}},
            "hovertemplate": "%{x}: %{y} censored<extra></extra>",
        },
    ]
    layout = base_layout(
        barmode="stack",
        height=300,
        showlegend=True,
        margin={"l": 60, "r": 20, "t": 40, "b": 40},
        yaxis={"title": {"text": "samples"}, "gridcolor": "#eee"},
        legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        xaxis={"type": "category"},
    )
    return figure(data, layout)


METRIC_ROWS = (
    ("ibs", "Integrated Brier score (IPCW)", "lower is better; the training loss of the objective"),
    ("ibs_ratio", "IBS ratio", "1 − IBS / IBS of one Kaplan-Meier curve for everyone (like R²)"),
    ("harrell_c", "Harrell's C-index", "share of comparable pairs ordered right by the curves; 0.5 is chance"),
    ("uno_c", "Uno's C-index", "Harrell's C weighted by the inverse censoring probability"),
    ("root_ibs", "IBS of the single-leaf model", "the reference of the IBS ratio"),
)


def metrics_figure(metrics, column="training", test=None):
    """Return a table of the survival metrics (``solver.survival_metrics.tree_metrics`` output), with a test column."""

    def fmt(v):
        return "—" if v is None else f"{v:.4f}" if abs(v) >= 1e-3 else f"{v:.3g}"

    rows = [
        (label, fmt(metrics.get(key)), *([fmt(test.get(key))] if test is not None else []), note)
        for key, label, note in METRIC_ROWS
        if key in metrics
    ]
    convention = (
        f"training n = {metrics.get('n_samples')}, events = {metrics.get('events')}"
        + (f"; test n = {test.get('n_samples')}, events = {test.get('events')}" if test is not None else "")
        + f"; censoring ties: {esc(metrics.get('ipcw_ties', 'osst'))}, time normaliser: "
        f"{esc(metrics.get('time_normalizer', 'range'))}"
    )
    header = ["metric", column] + (["test"] if test is not None else []) + ["meaning"]
    data = [
        {
            "type": "table",
            "columnwidth": [30, 12, 12, 46] if test is not None else [34, 14, 52],
            "header": {"values": header, "fill": {"color": "#f1f5fb"}, "align": "left"},
            "cells": {
                "values": [list(c) for c in zip(*rows)],
                "align": ["left", "right", "right", "left"],
                "height": 26,
            },
        }
    ]
    layout = base_layout(
        height=90 + 46 * len(rows),
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        annotations=[
            {
                "text": convention,
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "y": 0,
                "yanchor": "top",
                "font": {"size": 11, "color": "#666"},
            }
        ],
    )
    return figure(data, layout)


def brier_figure(curve):
    """Return the Brier score over time of the tree against one KM curve for everyone (``extras.brier_curve``)."""
    data = []
    for key, name, color, dash in (
        ("root", "one Kaplan-Meier curve for everyone", "#868e96", "dash"),
        ("tree", "the tree", "#4c78a8", "solid"),
    ):
        data.append(
            {
                "type": "scatter",
                "x": curve["time"],
                "y": curve[key],
                "name": name,
                "mode": "lines",
                "line": {"shape": "hv", "color": color, "dash": dash, "width": 2},
                "hovertemplate": "BS(%{x:.4g}) = %{y:.4f}<extra>" + name + "</extra>",
            }
        )
    layout = base_layout(
        height=320,
        xaxis={"title": {"text": "time"}, "gridcolor": "#eee"},
        yaxis={"title": {"text": "Brier score (IPCW)"}, "rangemode": "tozero", "gridcolor": "#eee"},
        legend={"orientation": "h", "y": -0.25},
    )
    return figure(data, layout)
