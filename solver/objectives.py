"""What a model can optimise: every objective once, as data.

An algorithm offers objectives by name (its ``objective`` parameter's choices); what an objective *is*
lives here, once: the loss in words, which direction is better, the column roles it needs, whether it
takes more than two classes, whether it is a sum over leaves (so GOSDT's dynamic programming with bounds
and the Rashomon set apply), which algorithms offer it, and its single-leaf loss ℓ₀ (the "at most L
leaves" conversion and the estimates use it). Kept light: the web process imports it to draw forms.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Objective:
    """One objective. The loss is always minimised; ``metric`` names the score users read (higher is better)."""

    name: str
    loss: str  # the loss in words, as the compare page prints it
    metric: str  # the score users read, higher is better
    algorithms: tuple  # which algorithms offer it (their ``objective`` choices)
    roles: tuple = ("label",)  # the column roles it needs
    multiclass: bool = False  # more than two classes allowed
    additive: bool = False  # a sum of per-leaf losses (GOSDT's dynamic programming, Rashomon sets)
    constrained: bool = False  # a constraint beside the loss (fairness δ)

    def loss0(self, class_weights=None, params=None, survival=None):
        """Return ℓ₀, this objective's loss of the best one-leaf model (None when the data to know it is missing)."""
        from solver.regularization import single_leaf_loss

        if self.name not in LOSS0_OBJECTIVES:
            return None
        return single_leaf_loss(self.name, class_weights, params, survival)


# The objectives whose single-leaf loss ``solver.regularization.single_leaf_loss`` knows.
LOSS0_OBJECTIVES = ("accuracy", "balanced_accuracy", "weighted_accuracy", "f1", "auc", "pauc", "ibs")

OBJECTIVES = {
    o.name: o
    for o in (
        Objective(
            "accuracy",
            "misclassification rate",
            "accuracy",
            ("gosdt", "streed", "osdt", "corels", "cart", "rashomon"),
            multiclass=True,
            additive=True,
        ),
        Objective(
            "balanced_accuracy", "1 − balanced accuracy", "balanced accuracy", ("gosdt", "rashomon"), additive=True
        ),
        Objective(
            "weighted_accuracy", "weighted misclassification", "weighted accuracy", ("gosdt", "rashomon"), additive=True
        ),
        Objective("cost_sensitive", "misclassification cost", "− misclassification cost", ("streed",), multiclass=True),
        Objective("f1", "1 − F1", "F1 score", ("gosdt", "streed")),
        Objective("auc", "1 − AUC", "AUC of the ROC convex hull", ("gosdt",)),
        Objective("pauc", "1 − partial AUC", "partial AUC of the ROC convex hull", ("gosdt",)),
        Objective(
            "demographic_parity",
            "misclassification rate (demographic parity ≤ δ)",
            "accuracy",
            ("streed",),
            roles=("label", "group"),
            constrained=True,
        ),
        Objective(
            "equality_of_opportunity",
            "misclassification rate (equality of opportunity ≤ δ)",
            "accuracy",
            ("streed",),
            roles=("label", "group"),
            constrained=True,
        ),
        Objective("policy", "− policy value", "policy value", ("streed",), roles=("treatment", "outcome")),
        Objective("ibs", "integrated Brier score", "1 − integrated Brier score", ("osst",), roles=("time", "event")),
    )
}


def get(name):
    """Return the objective called ``name``; raise ``KeyError`` naming the known ones."""
    try:
        return OBJECTIVES[name]
    except KeyError:
        raise KeyError(f"unknown objective {name!r}; known: {', '.join(OBJECTIVES)}") from None


def offered_by(algorithm):
    """Return the names of the objectives ``algorithm`` offers, in this module's order."""
    return tuple(o.name for o in OBJECTIVES.values() if algorithm in o.algorithms)


def additive(algorithm):
    """Return the names of the additive objectives ``algorithm`` offers."""
    return tuple(o.name for o in OBJECTIVES.values() if algorithm in o.algorithms and o.additive)
