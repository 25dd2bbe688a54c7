"""What a run's objective is, in words, and its single-leaf loss ℓ₀ on a dataset (λ from L leaves, estimates)."""

import numpy as np

from solver.objectives import LOSS0_OBJECTIVES, OBJECTIVES
from solver.regularization import single_leaf_loss

SURVIVAL_CONVENTIONS = [(ties, normalizer) for ties in ("osst", "sksurv") for normalizer in ("range", "max")]

# The loss each objective minimises, in words (compare page, run page).
OBJECTIVE_WORDS = {o.name: o.loss for o in OBJECTIVES.values()}


def objective_name(algorithm, config):
    """Return the objective a run of ``algorithm`` with ``config`` minimises (a key of ``OBJECTIVE_WORDS``)."""
    if algorithm == "osst":
        return "ibs"
    return config.get("objective") or "accuracy"


def objective_words(algorithm, config):
    """Return e.g. ``1 − F1 + λ × leaves``: the whole objective of a run, with its penalty."""
    name = objective_name(algorithm, config)
    words = OBJECTIVE_WORDS.get(name, name)
    if config.get("regularization") is not None and algorithm != "streed":
        words += f" + λ × {'rules' if algorithm == 'corels' else 'leaves'}"
    return words


def single_leaf_data(problem):
    """Return what ℓ₀ needs of a problem, JSON-able: class weights and the one-curve IBS per convention."""
    out = {}
    if problem.y is not None:
        out["class_weights"] = np.bincount(problem.y, weights=problem.weights, minlength=problem.n_classes).tolist()
    if problem.time is not None and problem.event is not None:
        out["ibs"] = {
            f"{t}/{n}": single_leaf_loss(
                "ibs", params={"ipcw_ties": t, "time_normalizer": n}, survival=(problem.event, problem.time)
            )
            for t, n in SURVIVAL_CONVENTIONS
        }
    return out


def dataset_loss0(dataset, algorithm, config, preview):
    """Return ℓ₀ of ``algorithm`` with ``config`` on ``dataset`` (None when it cannot be known before the run)."""
    data = preview.get("single_leaf") or {}
    name = objective_name(algorithm, config)
    if name == "ibs":
        convention = f"{config.get('ipcw_ties', 'osst')}/{config.get('time_normalizer', 'range')}"
        return (data.get("ibs") or {}).get(convention)
    weights = data.get("class_weights")
    if weights is None and not dataset.roles.get("weight"):
        weights = list((dataset.label_counts() or {}).values()) or None
        if weights is not None and len(weights) == 2:
            # Profile counts are keyed by value; the positive class is the last class of the problem.
            weights = _ordered_counts(dataset)
    if name not in LOSS0_OBJECTIVES:
        name = "accuracy"  # STreeD's other objectives have no λ; the estimate reads accuracy's ℓ₀
    return OBJECTIVES[name].loss0(weights, config)


def _ordered_counts(dataset):
    from solver.data.binarize import label_classes

    counts = dataset.label_counts() or {}
    values = np.array(list(counts), dtype=object)
    _, classes = label_classes(values, dataset.roles.get("positive_class") or None)
    return [counts[c] for c in classes]
