"""Helpers shared by the figure builders: escaping, colours, layout defaults.

Every figure builder is a pure function from stored result data to a plotly
figure dict. Text that came from a user's file is escaped here, because
plotly.js renders a subset of HTML in labels.
"""

import html

PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d", "#bab0ac"]
LOWER_COLOR = "#2b8a3e"
UPPER_COLOR = "#c92a2a"
FONT = {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13}


def esc(text):
    """Escape text from user data for plotly labels (entities are decoded, tags are not run)."""
    return html.escape(str(text), quote=True)


def class_color(index):
    return PALETTE[index % len(PALETTE)]


def base_layout(**overrides):
    layout = {
        "font": FONT,
        "margin": {"l": 50, "r": 20, "t": 40, "b": 40},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hoverlabel": {"align": "left"},
    }
    layout.update(overrides)
    return layout


def figure(data, layout):
    return {"data": data, "layout": layout}
