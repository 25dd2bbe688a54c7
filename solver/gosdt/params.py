"""Registry entry of GOSDT: generalized and scalable optimal sparse decision trees
(Lin, Zhong, Hu, Rudin, Seltzer; ICML 2020).

The additive objectives (accuracy, balanced and weighted accuracy) are searched by dynamic
programming with bounds (``solver.gosdt.dpb``); F-score, AUC and partial AUC of the ROC convex
hull by the tree-level branch-and-bound of the spec's §3.4 (``solver.gosdt.rank``).
"""

from solver.gosdt import rank_params
from solver.registry import Algorithm, Param, max_depth_param, regularization_param

OBJECTIVES = ("accuracy", "balanced_accuracy", "weighted_accuracy", "f1", "auc", "pauc")

ADDITIVE_PARAMS = ()  # the DPB bound switches: use_<bound>, group="bounds"

ALGORITHM = Algorithm(
    name="gosdt",
    title="GOSDT (optimal sparse decision trees, six objectives)",
    summary=(
        "Provably optimal sparse decision tree for accuracy, balanced or weighted accuracy, F-score, "
        "or the area (or partial area) under the ROC convex hull, + λ × leaves."
    ),
    search_module="solver.gosdt.search",
    params=(
        Param(
            "objective", "choice", "accuracy",
            "What the tree is optimal for: a loss of 1 − metric, plus λ per leaf.",
            choices=OBJECTIVES, group="objective",
        ),
        regularization_param(default=0.01, help_extra="A leaf must cut the loss by at least λ to pay for itself."),
        max_depth_param(default=None, optional=True),
        Param(
            "cost_weight", "float", 1.0,
            "ω: for weighted accuracy, the cost of a false negative relative to a false positive; for F-score, "
            "a leaf predicts 0 iff ω·positives ≤ negatives.",
            label="ω", minimum=0.0, exclusive_minimum=True, group="objective",
            visible_when={"objective": ("weighted_accuracy", "f1")},
        ),
        Param(
            "pauc_theta", "float", 0.1,
            "θ: partial AUC counts the area under the ROC convex hull for false-positive rates up to θ.",
            label="θ (largest FPR)", minimum=0.0, maximum=1.0, exclusive_minimum=True, group="objective",
            visible_when={"objective": ("pauc",)},
        ),
    ) + ADDITIVE_PARAMS + rank_params.PARAMS,
    multiclass=lambda config: config.get("objective", "accuracy") == "accuracy",
)
