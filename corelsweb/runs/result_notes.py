"""Sentences a run page owes its reader about a result: a constant model and why, reduced thresholds, data defaults."""

from solver.registry import imbalanced

# What to try when a model predicts one class for every row of an imbalanced label: (algorithm, objective, words).
FITTING_OBJECTIVES = (
    ("gosdt", "balanced_accuracy", "GOSDT with balanced accuracy"),
    ("gosdt", "f1", "GOSDT with F1"),
    ("streed", "f1", "STreeD with F1"),
    ("streed", "cost_sensitive", "STreeD with misclassification costs"),
)


def result_notes(result):
    """Return ``[{"id", "text", "warn", "offers"}]``: what the reader of this result must be told, in order."""
    notes = []
    extras = result.get("extras") or {}
    constant = constant_note(result)
    if constant:
        notes.append(constant)
    budget = extras.get("threshold_budget")
    if budget:
        notes.append({"id": "threshold-budget", "text": budget["note"], "warn": True, "offers": ()})
    aside = extras.get("set_aside")  # CORELS's queue past its memory budget
    if aside:
        notes.append({"id": "set-aside", "text": aside["note"], "warn": True, "offers": ()})
    for name, sentence in (extras.get("from_data") or {}).items():
        notes.append({"id": f"from-data-{name}", "text": sentence, "warn": False, "offers": ()})
    return notes


def predicted_classes(model):
    """Return the set of class indices a classification model can predict (None for other kinds)."""
    if model.get("kind", "classification") != "classification":
        return None
    if model["type"] == "tree":
        return {p for f, p in zip(model["feature"], model["prediction"]) if f < 0}
    return set(model["predictions"]) | {model["default"]}


def constant_note(result):
    """Return the note on a model that predicts one class for every row, saying why, or None."""
    model = result.get("model") or {}
    predicted = predicted_classes(model) if model else None
    if not predicted or len(predicted) != 1:
        return None
    (index,) = predicted
    classes = model.get("classes") or []
    counts = (result.get("problem") or {}).get("class_counts") or []
    if index >= len(classes) or len(counts) != len(classes) or not sum(counts):
        return None
    value, share = classes[index], counts[index] / sum(counts)
    majority = counts[index] == max(counts)
    what = f"This model predicts {value!r} for every row"
    what += f": the majority class ({share:.1%} of the training rows)." if majority else f" ({share:.1%} of them)."
    if result.get("status") == "optimal":
        why = (
            " It is the proved optimum of this objective: no model within these settings scores better than "
            "that one prediction"
        )
        why += ", so the accuracy shown is the base rate, and no minority row is found." if majority else "."
    else:
        why = (
            " The search stopped before it found a model that scores better than this one prediction "
            f"(status: {str(result.get('status', '')).replace('_', ' ')}); a longer time limit, a smaller depth "
            "or fewer thresholds may find one."
        )
    params = result.get("params") or {}
    offers = ()
    if majority and imbalanced(counts):
        offers = tuple(
            {"algorithm": a, "objective": o, "words": w}
            for a, o, w in FITTING_OBJECTIVES
            if not (result.get("algorithm") == a and params.get("objective") == o)
        )
        why += " On an imbalanced label, objectives that value the minority class fit better:"
    return {"id": "constant-model", "text": what + why, "warn": True, "offers": offers}
