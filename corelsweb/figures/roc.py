"""ROC convex hulls of classification trees (GOSDT's Figures 2 and 10): one run, several runs, a λ path.

A tree whose leaves score rows by their training positive share has, as its
ROC curve, the polyline through its leaves sorted by that share: each leaf is
one segment (``solver.roc``). The run panel draws it on the training data,
each segment in its leaf's colour from the tree panel (the predicted class),
with the operating point the leaf labels choose, the θ region of a partial
AUC objective shaded, and, when the run was scored on held-out rows with
per-leaf counts, the held-out curve with the leaves in the same order.
"""

from __future__ import annotations

import numpy as np

from corelsweb.figures.common import PALETTE, base_layout, class_color, esc, figure
from solver.models import Tree
from solver.roc import auc_ch, hull_points, pauc_ch

PAUC_FILL = "rgba(76, 120, 168, 0.18)"
PATH_COLORS = [
    "#440154",
    "#482878",
    "#3e4989",
    "#31688e",
    "#26828e",
    "#1f9e89",
    "#35b779",
    "#6ece58",
    "#b5de2b",
    "#fde725",
]


def tree_roc(model_dict):
    """Return the training ROC hull of a binary classification tree, or None when it has none.

    Returns
    -------
    dict
        ``fpr``, ``tpr`` (hull vertices), ``leaves`` (node of each segment, in
        order), ``pos``, ``neg`` (training counts of those leaves), ``score``
        (their scores), ``auc``, ``tree`` (the ``Tree``).
    """
    if model_dict.get("type") != "tree" or model_dict.get("kind", "classification") != "classification":
        return None
    tree = Tree.from_dict(model_dict)
    if tree.counts.shape[1] != 2:
        return None
    leaves = np.flatnonzero(tree.is_leaf)
    pos, neg = tree.counts[leaves, 1], tree.counts[leaves, 0]
    if pos.sum() <= 0 or neg.sum() <= 0:
        return None
    fpr, tpr, order = hull_points(pos, neg)
    return {
        "fpr": fpr.tolist(),
        "tpr": tpr.tolist(),
        "leaves": leaves[order].tolist(),
        "pos": pos[order].tolist(),
        "neg": neg[order].tolist(),
        "score": (pos / (pos + neg))[order].tolist(),
        "auc": auc_ch(pos, neg),
        "tree": tree,
    }


def rule_list_roc(model_dict):
    """Return the training ROC hull of a two-class rule list (each rule, and the default, one segment), or None.

    A rule list scores a row by the positive share of the rule that captures it, just as a tree does by its leaf.
    """
    if model_dict.get("type") != "rule_list":
        return None
    counts = np.asarray(model_dict.get("counts") or [], dtype=np.float64)
    if counts.ndim != 2 or counts.shape[1] != 2:
        return None
    pos, neg = counts[:, 1], counts[:, 0]
    if pos.sum() <= 0 or neg.sum() <= 0:
        return None
    fpr, tpr, _ = hull_points(pos, neg)
    return {"fpr": fpr.tolist(), "tpr": tpr.tolist(), "auc": auc_ch(pos, neg)}


def model_roc(model_dict):
    """Return the training ROC hull of a two-class tree or rule list (``fpr``, ``tpr``, ``auc``), or None."""
    return tree_roc(model_dict) or rule_list_roc(model_dict)


def holdout_roc(roc, holdout):
    """Return the held-out ROC curve with the leaves in training-score order, or None.

    Uses ``holdout["metrics"]["leaf_counts"]`` (``{"node": [...], "counts": [[neg, pos], ...]}``). It is
    an ROC curve, not a hull: on new rows the training order need not be the best one.
    """
    counts = ((holdout or {}).get("metrics") or {}).get("leaf_counts")
    if roc is None or not counts:
        return None
    by_node = {int(n): c for n, c in zip(counts["node"], counts["counts"])}
    neg = np.array([float(by_node.get(n, (0, 0))[0]) for n in roc["leaves"]])
    pos = np.array([float(by_node.get(n, (0, 0))[1]) for n in roc["leaves"]])
    if pos.sum() <= 0 or neg.sum() <= 0:
        return None
    fpr = np.concatenate([[0.0], np.cumsum(neg) / neg.sum()])
    tpr = np.concatenate([[0.0], np.cumsum(pos) / pos.sum()])
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    return {"fpr": fpr.tolist(), "tpr": tpr.tolist(), "pos": pos.tolist(), "neg": neg.tolist(), "auc": area}


def pauc_polygon(fpr, tpr, theta):
    """Return the (x, y) outline of the area under the hull for FPR ∈ [0, θ]."""
    xs, ys = [0.0], [0.0]
    for x, y in zip(fpr, tpr):
        if x >= theta:
            break
        xs.append(x)
        ys.append(y)
    xs.append(theta)
    ys.append(float(np.interp(theta, fpr, tpr)))
    return xs + [theta, 0.0], ys + [0.0, 0.0]


def _leaf_hover(tree, rules, node, pos, neg, score):
    rule = rules.get(node) or ["(every row)"]
    label = tree.classes[int(tree.prediction[node])] if tree.classes else str(int(tree.prediction[node]))
    return (
        "<b>Leaf</b><br>"
        + "<br>AND ".join(esc(r) for r in rule)
        + f"<br><b>Predicts</b> {esc(label)}"
        + f"<br>positives {pos:g}, negatives {neg:g}<br>score (positive share) {score:.4f}"
    )


def _diagonal():
    return {
        "type": "scatter",
        "x": [0, 1],
        "y": [0, 1],
        "mode": "lines",
        "hoverinfo": "skip",
        "showlegend": False,
        "line": {"color": "#ced4da", "dash": "dot", "width": 1},
    }


def _roc_layout(height=440, **extra):
    return base_layout(
        height=height,
        xaxis={
            "title": {"text": "false positive rate"},
            "range": [-0.01, 1.01],
            "gridcolor": "#eee",
            "zeroline": False,
            "constrain": "domain",
        },
        yaxis={
            "title": {"text": "true positive rate"},
            "range": [-0.01, 1.01],
            "gridcolor": "#eee",
            "zeroline": False,
            "scaleanchor": "x",
        },
        hovermode="closest",
        legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"},
        **extra,
    )


def roc_hull_figure(result):
    """Return the figure of a result's training ROC hull (and held-out curve), or None when it has none."""
    roc = tree_roc(result.get("model") or {})
    if roc is None:
        return None
    tree, rules = roc["tree"], roc["tree"].leaf_rules()
    params = result.get("params") or {}
    data = [_diagonal()]
    if params.get("objective") == "pauc" and params.get("pauc_theta"):
        theta = float(params["pauc_theta"])
        xs, ys = pauc_polygon(roc["fpr"], roc["tpr"], theta)
        area = pauc_ch(roc["pos"], roc["neg"], theta)
        data.append(
            {
                "type": "scatter",
                "x": xs,
                "y": ys,
                "fill": "toself",
                "fillcolor": PAUC_FILL,
                "mode": "none",
                "name": f"pAUC up to FPR θ={theta:g}: {area:.4f} (÷θ: {area / theta:.4f})",
                "hoverinfo": "skip",
            }
        )
    shown = set()
    for k, node in enumerate(roc["leaves"]):
        klass = int(tree.prediction[node])
        name = f"leaf predicts {esc(tree.classes[klass]) if tree.classes else klass}"
        data.append(
            {
                "type": "scatter",
                "x": roc["fpr"][k : k + 2],
                "y": roc["tpr"][k : k + 2],
                "mode": "lines+markers",
                "line": {"color": class_color(klass), "width": 3},
                "marker": {"size": 6, "color": class_color(klass)},
                "name": name,
                "legendgroup": name,
                "showlegend": klass not in shown,
                "hovertext": _leaf_hover(tree, rules, node, roc["pos"][k], roc["neg"][k], roc["score"][k]),
                "hoverinfo": "text",
            }
        )
        shown.add(klass)
    point = operating_point(tree)
    if point is not None:
        data.append(
            {
                "type": "scatter",
                "x": [point[0]],
                "y": [point[1]],
                "mode": "markers",
                "name": "leaf labels",
                "marker": {"symbol": "star", "size": 14, "color": "#212529"},
                "hovertemplate": "the leaves' labels: FPR %{x:.3f}, TPR %{y:.3f}<extra></extra>",
            }
        )
    held = holdout_roc(roc, result.get("holdout"))
    if held is not None:
        data.append(
            {
                "type": "scatter",
                "x": held["fpr"],
                "y": held["tpr"],
                "mode": "lines+markers",
                "name": f"held out (AUC {held['auc']:.4f})",
                "line": {"color": "#495057", "dash": "dash"},
                "hovertemplate": "held out: FPR %{x:.3f}, TPR %{y:.3f}<extra></extra>",
            }
        )
    layout = _roc_layout(
        title={"text": f"training AUC of the hull {roc['auc']:.4f}", "font": {"size": 13}},
        meta={
            "hull": {"fpr": roc["fpr"], "tpr": roc["tpr"]},
            "auc": roc["auc"],
            "holdout": held and {"fpr": held["fpr"], "tpr": held["tpr"]},
        },
    )
    return figure(data, layout)


def operating_point(tree):
    """Return the (FPR, TPR) of the tree's own leaf labels on the training data."""
    leaves = tree.is_leaf
    pos, neg = tree.counts[leaves, 1], tree.counts[leaves, 0]
    yes = tree.prediction[leaves] == 1
    if pos.sum() <= 0 or neg.sum() <= 0:
        return None
    return float(neg[yes].sum() / neg.sum()), float(pos[yes].sum() / pos.sum())


def roc_overlay_figure(runs, title="ROC convex hulls"):
    """Return one ROC plot with each run's training hull; each legend entry links to its run.

    Parameters
    ----------
    runs : list of (str, str, dict)
        ``(label, url, result)``: the legend label, the run page's address and
        the stored result dict. Runs without a two-class tree or rule list are left out.
    """
    data = [_diagonal()]
    for k, (label, url, result) in enumerate(runs):
        roc = model_roc((result or {}).get("model") or {})
        if roc is None:
            continue
        color = PALETTE[k % len(PALETTE)]
        name = f'<a href="{esc(url)}">{esc(label)}</a> AUC {roc["auc"]:.4f}'
        data.append(
            {
                "type": "scatter",
                "x": roc["fpr"],
                "y": roc["tpr"],
                "mode": "lines+markers",
                "name": name,
                "line": {"color": color, "width": 2},
                "customdata": [url] * len(roc["fpr"]),
                "hovertemplate": f"{esc(label)}<br>FPR %{{x:.3f}}, TPR %{{y:.3f}}<extra></extra>",
            }
        )
    return figure(data, _roc_layout(title={"text": esc(title), "font": {"size": 13}}))


def roc_path_figure(entries):
    """Return one ROC plot with the training hull of each λ of a regularization path, dark to light as λ grows.

    Parameters
    ----------
    entries : list of (float, str, dict)
        ``(λ, url, result)`` of one run per λ; the legend links each curve to its run.
    """
    entries = sorted(
        ((lam, url, res) for lam, url, res in entries if tree_roc((res or {}).get("model") or {})), key=lambda e: e[0]
    )
    data = [_diagonal()]
    for k, (lam, url, result) in enumerate(entries):
        roc = tree_roc(result["model"])
        color = PATH_COLORS[int(round(k * (len(PATH_COLORS) - 1) / max(1, len(entries) - 1)))]
        leaves = len(roc["leaves"])
        data.append(
            {
                "type": "scatter",
                "x": roc["fpr"],
                "y": roc["tpr"],
                "mode": "lines+markers",
                "name": f'<a href="{esc(url)}">λ={lam:g}</a>: {leaves} leaves, AUC {roc["auc"]:.4f}',
                "line": {"color": color, "width": 2},
                "hovertemplate": f"λ={lam:g}<br>FPR %{{x:.3f}}, TPR %{{y:.3f}}<extra></extra>",
            }
        )
    return figure(data, _roc_layout(title={"text": "ROC hull at each λ", "font": {"size": 13}}))
