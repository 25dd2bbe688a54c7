"""Figures of classification results: the confusion matrix."""

from corelsweb.figures.common import base_layout, esc, figure


def confusion_figure(matrix, classes):
    """Return a heatmap of the confusion matrix (rows true class, columns predicted)."""
    labels = [esc(c) for c in classes]
    total = sum(sum(row) for row in matrix) or 1
    text = [[f"{v:g}<br>({100 * v / total:.1f}%)" for v in row] for row in matrix]
    data = [
        {
            "type": "heatmap",
            "z": matrix,
            "x": labels,
            "y": labels,
            "text": text,
            "texttemplate": "%{text}",
            "colorscale": [[0, "#f1f5fb"], [1, "#4c78a8"]],
            "showscale": False,
            "hovertemplate": "true %{y}, predicted %{x}: %{z}<extra></extra>",
        }
    ]
    layout = base_layout(
        height=300,
        width=360,
        # automargin: a class name such as MORTGAGE was cut to "ORTGAGE" by the fixed left margin.
        xaxis={"title": {"text": "predicted"}, "type": "category", "side": "bottom", "automargin": True},
        yaxis={"title": {"text": "true"}, "type": "category", "autorange": "reversed", "automargin": True},
        margin={"l": 70, "r": 10, "t": 20, "b": 50},
    )
    return figure(data, layout)
