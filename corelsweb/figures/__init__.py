"""plotly figure builders: pure functions from stored results to figure dicts."""

from corelsweb.figures.classification import confusion_figure
from corelsweb.figures.trace import bound_trace_figure, search_size_figure
from corelsweb.figures.tree import tree_figure

__all__ = ["bound_trace_figure", "confusion_figure", "figures_for_result", "search_size_figure", "tree_figure"]


def figures_for_result(result):
    """Return ``{name: figure}`` for a stored result dict: model, trace, search size, confusion."""
    figs = {}
    model = result["model"]
    if model["type"] == "tree":
        figs["model"] = tree_figure(model)
    trace = result.get("trace") or {}
    # A heuristic proves no bound, so it has no bound trace to show.
    if trace.get("elapsed") and result.get("lower_bound") is not None:
        figs["trace"] = bound_trace_figure(trace)
        size = search_size_figure(trace)
        if size is not None:
            figs["search_size"] = size
    metrics = result.get("metrics") or {}
    if metrics.get("confusion_matrix"):
        figs["confusion"] = confusion_figure(metrics["confusion_matrix"], model["classes"])
    return figs
