"""What a run page shows, as one JSON-able dict: live for the owner, frozen for a share link."""

from corelsweb.runs.metric_table import group_names
from corelsweb.runs.models import Run
from solver import registry
from solver.registry import ParameterError


def _algorithm_title(name):
    try:
        return registry.get(name).title
    except ParameterError:
        return name


def _param_rows(name, params, result=None):
    try:
        spec = registry.get(name)
    except ParameterError:
        return [(k, v) for k, v in params.items()]
    # Registry order and titles (the database may reorder JSON keys); a parameter the form hides
    # for these settings (ω for plain accuracy, say) played no part in the run and is left out.
    return [
        (p.title, _shown(p.name, params.get(p.name), result))
        for p in spec.params
        if all(params.get(other) in values for other, values in p.visible_when.items())
    ]


def _shown(name, value, result):
    """Return a parameter's value as the table shows it: ``auto`` says what it chose, once the run has a result."""
    if name == "threshold_search" and value == "auto" and result:
        ordered = "searched_directly" in ((result.get("problem") or {}).get("binarization") or {})
        return (
            "auto: ran ordered (thresholds searched in order per column)"
            if ordered
            else ("auto: ran binary (one 0/1 feature per threshold)")
        )
    chosen = ((result or {}).get("params") or {}).get(name)
    if value is None and chosen is not None and name in ((result or {}).get("extras") or {}).get("from_data", {}):
        return f"{chosen:.4g} (from the data)"
    return value


def dataset_summary(dataset, include_data=False):
    out = {
        "name": dataset.name,
        "n_rows": dataset.n_rows,
        "n_columns": dataset.n_columns,
        "columns": [{k: c.get(k) for k in ("name", "type", "missing", "distinct")} for c in dataset.columns],
        "roles": {k: v for k, v in dataset.roles.items() if k != "ignore"},
    }
    if include_data:
        out["column_names"] = dataset.column_names
        out["preview"] = dataset.preview
    return out


def run_view(run, include_data=False):
    """Return the displayable state of ``run`` (no owner-only controls, nothing private)."""
    return {
        "pk": run.pk,
        "algorithm": run.algorithm,
        "algorithm_title": _algorithm_title(run.algorithm),
        "status": run.status,
        "status_display": Run.Status(run.status).label,
        "elapsed": run.elapsed_seconds(),
        "timing": run.timing,  # where the time went (``solver.timing``), from sending to the stored result
        "params": _param_rows(run.algorithm, run.params, run.result),
        "binarization": run.binarization,
        "limits": run.limits,
        "evaluation": (run.result or {}).get("holdout", {}).get("description", ""),
        "note": run.note,
        "error": run.error,
        "created": run.created.isoformat(),
        "finished": run.finished.isoformat() if run.finished else None,
        "dataset": dataset_summary(run.dataset, include_data),
        "result": run.result,
        "group_names": group_names(run.dataset.columns, run.roles),
        "features_preview": {k: run.dataset.features_preview.get(k) for k in ("n_features", "n_rows")},
        "name": run.name,
    }
