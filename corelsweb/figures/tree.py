"""The tree drawn with plotly: split predicates at inner nodes, predictions and counts at leaves.

Layout: leaves are spread evenly left to right (the "yes" branch of a split
drawn on the left, as most tree diagrams do), inner nodes centred above their
children, one row per depth.
"""

from corelsweb.figures.common import base_layout, class_color, esc, figure
from solver import predicates
from solver.models import LEAF, Tree

ROW_HEIGHT = 1.0
LEAF_WIDTH = 130  # pixels per leaf, so that leaf boxes never overlap
AUTOSIZE_WIDTH = 1150  # the width of a full-width card


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


def node_label(tree, i, numbers=None):
    """Return the escaped label text of node ``i``."""
    if tree.feature[i] != LEAF:
        return esc(predicates.text(tree.features[tree.feature[i]]))
    return f"<b>{esc(leaf_output(tree, i, numbers))}</b><br>" + "<br>".join(esc(t) for t in count_lines(tree, i))


def leaf_output(tree, i, numbers=None):
    if tree.kind == "survival":
        return f"leaf {(numbers or leaf_numbers(tree))[i]}"
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


def hover_text(tree, i, rules, numbers=None):
    lines = []
    if i in rules:
        rule = rules[i] or ["(every row)"]
        lines.append("<b>Rule</b><br>" + "<br>AND ".join(esc(r) for r in rule))
        lines.append(f"<b>Predicts</b> {esc(leaf_output(tree, i, numbers))}")
    else:
        lines.append(f"<b>Split</b> {esc(predicates.text(tree.features[tree.feature[i]]))}?")
    if tree.kind != "survival" and tree.classes:
        counts = tree.counts[i]
        lines.append("<br>".join(f"{esc(c)}: {counts[k]:g}" for k, c in enumerate(tree.classes) if k < len(counts)))
    else:
        lines.append(esc(", ".join(count_lines(tree, i))))
    return "<br>".join(lines)


def leaf_numbers(tree):
    """Return ``{node: k}``: the leaves numbered 1, 2, ... left to right as drawn (survival leaves are named so)."""
    x, _ = layout_positions(tree)
    leaves = sorted((i for i in range(tree.n_nodes) if tree.feature[i] == LEAF), key=lambda i: x[i])
    return {i: k + 1 for k, i in enumerate(leaves)}


def tree_rule_lines(model_dict):
    """Return the tree as text, one line per leaf: ``leaf k: if A and B then <prediction> (counts)``."""
    tree = Tree.from_dict(model_dict)
    numbers = leaf_numbers(tree)
    rules = tree.leaf_rules()
    lines = []
    for i in sorted(numbers, key=numbers.get):
        condition = " AND ".join(rules[i]) if rules[i] else "every row"
        output = leaf_output(tree, i, numbers)
        lines.append(f"leaf {numbers[i]}: if {condition} then {output} ({', '.join(count_lines(tree, i))})")
    return lines


def _visible(tree, show_depth):
    """Return ``(nodes, collapsed)``: the nodes drawn when the tree is shown to ``show_depth``, and the inner nodes
    drawn folded (their subtree summarised in one box)."""
    nodes, collapsed, stack = [], set(), [(0, 0)]
    while stack:
        i, d = stack.pop()
        nodes.append(i)
        if tree.feature[i] == LEAF:
            continue
        if show_depth is not None and d >= show_depth:
            collapsed.add(i)
            continue
        stack += [(int(tree.left[i]), d + 1), (int(tree.right[i]), d + 1)]
    return nodes, collapsed


def _positions(tree, collapsed):
    """Return ``(x, depth)`` per node with folded subtrees drawn as one leaf-wide box."""
    x, depth = {}, {}
    next_slot = [0]

    def place(i, d):
        depth[i] = d
        if tree.feature[i] == LEAF or i in collapsed:
            x[i] = float(next_slot[0])
            next_slot[0] += 1
            return
        place(int(tree.right[i]), d + 1)
        place(int(tree.left[i]), d + 1)
        x[i] = (x[int(tree.right[i])] + x[int(tree.left[i])]) / 2.0

    place(0, 0)
    return x, depth, next_slot[0]


def _subtree_leaves(tree, i):
    if tree.feature[i] == LEAF:
        return 1
    return _subtree_leaves(tree, int(tree.left[i])) + _subtree_leaves(tree, int(tree.right[i]))


def _view(tree, show_depth, rules, numbers):
    """Return ``(traces, layout_parts)`` drawing the tree down to ``show_depth`` (None: whole)."""
    nodes, collapsed = _visible(tree, show_depth)
    x, depth, slots = _positions(tree, collapsed)
    y = {i: -depth[i] * ROW_HEIGHT for i in nodes}
    edge_x, edge_y, annotations = [], [], []
    for i in nodes:
        if tree.feature[i] == LEAF or i in collapsed:
            continue
        for child, word in ((int(tree.right[i]), "yes"), (int(tree.left[i]), "no")):
            edge_x += [x[i], x[child], None]
            edge_y += [y[i], y[child], None]
            annotations.append(
                {
                    "x": (x[i] + x[child]) / 2,
                    "y": (y[i] + y[child]) / 2,
                    "text": word,
                    "showarrow": False,
                    "font": {"size": 11, "color": "#666"},
                    "bgcolor": "white",
                }
            )
    for i in nodes:
        leaf = tree.feature[i] == LEAF
        if i in collapsed:
            text = f"{node_label(tree, i, numbers)}<br><i>⋯ {_subtree_leaves(tree, i)} leaves below</i>"
            color, background = "#868e96", "#f1f3f5"
        else:
            color = class_color(int(tree.prediction[i])) if leaf else "#333"
            text, background = node_label(tree, i, numbers), _tint(color) if leaf else "#f8f9fa"
        annotations.append(
            {
                "x": x[i],
                "y": y[i],
                "text": text,
                "showarrow": False,
                "bordercolor": color,
                "borderwidth": 2,
                "borderpad": 5,
                "bgcolor": background,
                "font": {"size": 12},
            }
        )
    edges = {
        "type": "scatter",
        "x": edge_x,
        "y": edge_y,
        "mode": "lines",
        "line": {"color": "#adb5bd", "width": 2},
        "hoverinfo": "skip",
        "showlegend": False,
    }
    marks = {
        "type": "scatter",
        "x": [x[i] for i in nodes],
        "y": [y[i] for i in nodes],
        "mode": "markers",
        "marker": {"size": 28, "opacity": 0, "color": "white"},
        "hovertext": [hover_text(tree, i, rules, numbers) for i in nodes],
        "hoverinfo": "text",
        "showlegend": False,
        "name": "nodes",
    }
    deepest = max(depth[i] for i in nodes)
    parts = {
        "annotations": annotations,
        "xaxis.range": [-0.7, max(1, slots) - 0.3],
        "yaxis.range": [-(deepest + 0.6) * ROW_HEIGHT, 0.6],
        "height": 160 + 120 * (deepest + 1),
        "slots": slots,
    }
    return [edges, marks], parts


def tree_figure(model_dict, views=True):
    """Return a plotly figure dict drawing the tree stored as ``model_dict``.

    A tree too wide for the page is drawn fitted to its width, folded below the
    deepest level whose boxes fit (each folded subtree one box saying how many
    leaves it holds); a menu above it shows more levels, and the plot zooms and
    pans (drag, scroll). With ``views=False`` the whole tree is drawn in one view,
    as wide as it needs (the container scrolls).
    """
    tree = Tree.from_dict(model_dict)
    rules = tree.leaf_rules()
    numbers = leaf_numbers(tree)
    full_depth = tree.depth
    depths = [None]
    if views:
        fits = [
            d for d in range(1, full_depth) if _view(tree, d, rules, numbers)[1]["slots"] * LEAF_WIDTH <= AUTOSIZE_WIDTH
        ]
        if _view(tree, None, rules, numbers)[1]["slots"] * LEAF_WIDTH > AUTOSIZE_WIDTH and full_depth > 1:
            start = fits[-1] if fits else 1
            depths = list(range(start, full_depth)) + [None]
    drawn = [_view(tree, d, rules, numbers) for d in depths]
    data = []
    for k, (traces, _) in enumerate(drawn):
        data += [{**t, "visible": k == 0} for t in traces]
    first = drawn[0][1]
    layout = base_layout(
        height=first["height"],
        xaxis={"visible": False, "range": first["xaxis.range"]},
        yaxis={"visible": False, "range": first["yaxis.range"]},
        annotations=first["annotations"],
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        hovermode="closest",
        dragmode="pan",
        meta={"n_leaves": tree.n_leaves, "depth": tree.depth, "tree": True, "shown_depth": depths[0] or full_depth},
    )
    if len(drawn) > 1:
        buttons = []
        for k, (d, (_, parts)) in enumerate(zip(depths, drawn)):
            visible = [j // 2 == k for j in range(2 * len(drawn))]
            label = f"all {full_depth} levels" if d is None else f"{d} level{'s' if d > 1 else ''}"
            buttons.append(
                {
                    "method": "update",
                    "label": label,
                    "args": [{"visible": visible}, {k2: v for k2, v in parts.items() if k2 != "slots"}],
                }
            )
        layout["updatemenus"] = [
            {
                "type": "dropdown",
                "buttons": buttons,
                "active": 0,
                "x": 0,
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
            }
        ]
        layout["margin"]["t"] = 40
        layout["height"] += 30
    elif first["slots"] * LEAF_WIDTH > AUTOSIZE_WIDTH:
        layout["width"] = LEAF_WIDTH * first["slots"]  # views=False: as wide as the tree, the container scrolls
    return figure(data, layout)


def _tint(hex_color):
    """Return a light tint of ``#rrggbb`` for leaf backgrounds."""
    r, g, b = (int(hex_color[k : k + 2], 16) for k in (1, 3, 5))
    return "#%02x%02x%02x" % tuple(int(c + (255 - c) * 0.82) for c in (r, g, b))
