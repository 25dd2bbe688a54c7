"""plotly figure builders: pure functions from stored results to figure dicts.

The run page shows the model figure, then one *panel* per entry that the
builders in ``PANEL_BUILDERS`` return. A builder takes the result dict and
returns a list of panels; a panel is a dict with ``id`` (unique on the page),
``title``, ``figure`` (a plotly figure dict), optional ``note`` (plain text)
and ``wide`` (spans the page). Adding a picture for an algorithm means adding
a builder here, not editing templates.
"""

from corelsweb.figures.classification import confusion_figure
from corelsweb.figures.corels import queue_length_figure, remaining_space_figure
from corelsweb.figures.rashomon import rashomon_panels as _rashomon_panels
from corelsweb.figures.roc import roc_hull_figure
from corelsweb.figures.streed import streed_panels as _streed_panels
from corelsweb.figures.survival import brier_figure, composition_figure, km_figure, metrics_figure
from corelsweb.figures.trace import bound_trace_figure, search_size_figure
from corelsweb.figures.tree import tree_figure

__all__ = [
    "bound_trace_figure",
    "confusion_figure",
    "model_figure",
    "panels_for_result",
    "search_size_figure",
    "tree_figure",
]


def panel(id, title, figure, note="", wide=False):
    return {"id": id, "element_id": f"fig-{id}", "title": title, "figure": figure, "note": note, "wide": wide}


def model_figure(result):
    """Return the figure of the model itself (trees), or None (rule lists are shown as a table)."""
    model = result["model"]
    if model["type"] == "tree":
        return tree_figure(model)
    return None


def confusion_panels(result):
    metrics = result.get("metrics") or {}
    if not metrics.get("confusion_matrix"):
        return []
    classes = result["model"]["classes"]
    panels = [panel("confusion", "Confusion matrix (training)", confusion_figure(metrics["confusion_matrix"], classes))]
    test = ((result.get("holdout") or {}).get("metrics") or {}).get("confusion_matrix")
    if test:
        panels.append(panel("confusion-test", "Confusion matrix (test)", confusion_figure(test, classes)))
    return panels


def trace_panels(result):
    trace = result.get("trace") or {}
    # A heuristic proves no bound, so it has no bound trace to show.
    if not trace.get("elapsed") or result.get("lower_bound") is None:
        return []
    panels = [panel("trace", "Lower and upper bound over time", bound_trace_figure(trace))]
    size = search_size_figure(trace)
    if size is not None:
        panels.append(panel("search-size", "Search size over time", size))
    return panels


def survival_panels(result):
    model = result["model"]
    if model.get("kind") != "survival" or not model.get("curves"):
        return []
    note = (result.get("stats") or {}).get("guarantee", "")
    panels = [
        panel(
            "km",
            "Kaplan-Meier curve of each leaf (95 % bands; numbers at risk below)",
            km_figure(model),
            note=note,
            wide=True,
        ),
        panel("leaf-composition", "Events and censored samples per leaf", composition_figure(model)),
    ]
    if (result.get("metrics") or {}).get("ibs") is not None:
        test = (result.get("holdout") or {}).get("metrics")
        test = test if test and test.get("ibs") is not None else None
        title = "Survival metrics (training and test)" if test else "Survival metrics (training)"
        panels.append(panel("survival-metrics", title, metrics_figure(result["metrics"], test=test)))
    brier = (result.get("extras") or {}).get("brier_curve")
    if brier:
        panels.append(
            panel(
                "brier",
                "Brier score over time (training)",
                brier_figure(brier),
                note="The integrated Brier score is the area under the tree's curve divided by the time normaliser.",
            )
        )
    return panels


def corels_panels(result):
    history = (result.get("extras") or {}).get("queue_by_length")
    if result.get("algorithm") != "corels" or not history or not history.get("elapsed"):
        return []
    panels = [
        panel(
            "queue-lengths",
            "Queued prefixes by length",
            queue_length_figure(history),
            note="Prefixes waiting to be extended, one line per number of rules (paper Figs 15-17).",
        )
    ]
    remaining = remaining_space_figure(history)
    if remaining is not None:
        panels.append(
            panel(
                "remaining-space",
                "Search space left",
                remaining,
                note="Upper bound on the prefixes still to evaluate (Theorem 7), in powers of ten.",
            )
        )
    return panels


def roc_panels(result):
    figure = roc_hull_figure(result)
    if figure is None:
        return []
    note = (
        "The tree scores each row by its leaf's share of positives; sorting the leaves by that share gives "
        "its ROC curve, the convex hull, one segment per leaf, coloured by what the leaf predicts. The star "
        "is the point the leaf labels choose."
    )
    if (result.get("params") or {}).get("objective") == "pauc":
        note += " The shaded area is the partial AUC the objective maximises."
    return [panel("roc", "ROC convex hull of the tree", figure, note=note)]


def streed_panels(result):
    return _streed_panels(result, panel)


def rashomon_panels(result):
    return _rashomon_panels(result, panel)


PANEL_BUILDERS = [
    confusion_panels,
    rashomon_panels,
    roc_panels,
    survival_panels,
    streed_panels,
    trace_panels,
    corels_panels,
]


def panels_for_result(result):
    """Return every panel for a stored result dict, in page order."""
    out = []
    for builder in PANEL_BUILDERS:
        out += builder(result)
    return out
