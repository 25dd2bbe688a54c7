"""The tree drawn with plotly: split predicates at inner nodes, predictions and counts at leaves.

Layout: leaves are spread evenly left to right (the "yes" branch of a split
drawn on the left, as most tree diagrams do), inner nodes centred above their
children, one row per depth.
"""

from corelsweb.figures.common import base_layout, class_color, esc, figure
from solver import predicates
from solver.models import LEAF, Tree

ROW_HEIGHT = 1.0
LEAF_WIDTH = 150  # pixels per leaf, so that leaf boxes never overlap
AUTOSIZE_WIDTH = 1100


def layout_positions(tree):
    """Return ``(x, depth)`` lists for every node; leaves at 0, 1, 2, ... in drawing order."""
    x = [0.0] * tree.n_nodes
    depth = [0] * tree.n_nodes
    next_leaf = [0]

    def place(i, d):
        depth[i] = d
        if tree.feature[i] == LEAF:
            x[i] = float(next_leaf[0])
            next_leaf[0] += 1
            return
        # The "yes" child (feature = 1, stored as right) is drawn on the left.
        place(int(tree.right[i]), d + 1)
        place(int(tree.left[i]), d + 1)
        x[i] = (x[int(tree.right[i])] + x[int(tree.left[i])]) / 2.0

    place(0, 0)
    return x, depth


def node_label(tree, i):
    """Return the escaped label text of node ``i``."""
    if tree.feature[i] != LEAF:
        return esc(predicates.text(tree.features[tree.feature[i]]))
    return f"<b>{esc(leaf_output(tree, i))}</b><br>" + "<br>".join(esc(t) for t in count_lines(tree, i))


def leaf_output(tree, i):
    if tree.kind == "survival":
        return f"leaf {i}"
    if tree.classes:
        return tree.classes[int(tree.prediction[i])]
    return str(int(tree.prediction[i]))


def count_lines(tree, i):
    """Return the short lines under a leaf's prediction: rows, and the positive share or events."""
    counts = tree.counts[i]
    if tree.kind == "survival" and len(counts) >= 2:
        return [f"n={counts[0]:g}", f"events={counts[1]:g}"]
    total = counts.sum()
    lines = [f"n={total:g}"]
    if total > 0 and len(counts) == 2:
        lines.append(f"{100 * counts[1] / total:.0f}% {tree.classes[1] if tree.classes else 1}")
    return lines


def hover_text(tree, i, rules):
    lines = []
    if i in rules:
        rule = rules[i] or ["(every row)"]
        lines.append("<b>Rule</b><br>" + "<br>AND ".join(esc(r) for r in rule))
        lines.append(f"<b>Predicts</b> {esc(leaf_output(tree, i))}")
    else:
        lines.append(f"<b>Split</b> {esc(predicates.text(tree.features[tree.feature[i]]))}?")
    if tree.kind != "survival" and tree.classes:
        counts = tree.counts[i]
        lines.append("<br>".join(f"{esc(c)}: {counts[k]:g}" for k, c in enumerate(tree.classes) if k < len(counts)))
    else:
        lines.append(esc(", ".join(count_lines(tree, i))))
    return "<br>".join(lines)


def tree_figure(model_dict):
    """Return a plotly figure dict drawing the tree stored as ``model_dict``."""
    tree = Tree.from_dict(model_dict)
    x, depth = layout_positions(tree)
    y = [-d * ROW_HEIGHT for d in depth]
    rules = tree.leaf_rules()
    edge_x, edge_y, annotations = [], [], []
    for i in range(tree.n_nodes):
        if tree.feature[i] == LEAF:
            continue
        for child, word in ((int(tree.right[i]), "yes"), (int(tree.left[i]), "no")):
            edge_x += [x[i], x[child], None]
            edge_y += [y[i], y[child], None]
            annotations.append({
                "x": (x[i] + x[child]) / 2, "y": (y[i] + y[child]) / 2, "text": word, "showarrow": False,
                "font": {"size": 11, "color": "#666"}, "bgcolor": "white",
            })
    for i in range(tree.n_nodes):
        leaf = tree.feature[i] == LEAF
        color = class_color(int(tree.prediction[i])) if leaf else "#333"
        annotations.append({
            "x": x[i], "y": y[i], "text": node_label(tree, i), "showarrow": False,
            "bordercolor": color, "borderwidth": 2, "borderpad": 5,
            "bgcolor": _tint(color) if leaf else "#f8f9fa", "font": {"size": 12},
        })
    edges = {"type": "scatter", "x": edge_x, "y": edge_y, "mode": "lines",
             "line": {"color": "#adb5bd", "width": 2}, "hoverinfo": "skip", "showlegend": False}
    nodes = {
        "type": "scatter", "x": x, "y": y, "mode": "markers",
        "marker": {"size": 28, "opacity": 0, "color": "white"},
        "hovertext": [hover_text(tree, i, rules) for i in range(tree.n_nodes)],
        "hoverinfo": "text", "showlegend": False, "name": "nodes",
    }
    n_leaves = max(1, tree.n_leaves)
    height = 160 + 120 * (max(depth) + 1)
    layout = base_layout(
        height=height,
        xaxis={"visible": False, "range": [-0.7, n_leaves - 0.3]},
        yaxis={"visible": False, "range": [-(max(depth) + 0.6) * ROW_HEIGHT, 0.6]},
        annotations=annotations,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        hovermode="closest",
        meta={"n_leaves": tree.n_leaves, "depth": tree.depth},
    )
    if LEAF_WIDTH * n_leaves > AUTOSIZE_WIDTH:
        layout["width"] = LEAF_WIDTH * n_leaves  # wider than the page: the container scrolls
    return figure([edges, nodes], layout)


def _tint(hex_color):
    """Return a light tint of ``#rrggbb`` for leaf backgrounds."""
    r, g, b = (int(hex_color[k:k + 2], 16) for k in (1, 3, 5))
    return "#%02x%02x%02x" % tuple(int(c + (255 - c) * 0.82) for c in (r, g, b))
