"""Registry entry of GOSDT: generalized and scalable optimal sparse decision trees
(Lin, Zhong, Hu, Rudin, Seltzer; ICML 2020).

The additive objectives (accuracy, balanced and weighted accuracy) are searched by dynamic
programming with bounds (``solver.gosdt.dpb``); F-score, AUC and partial AUC of the ROC convex
hull by the tree-level branch-and-bound of the spec's §3.4 (``solver.gosdt.rank``).
"""

from dataclasses import replace

from solver import objectives
from solver.gosdt.rank import params as rank_params
from solver.registry import Algorithm, Param, max_depth_param, regularization_param

OBJECTIVES = objectives.offered_by("gosdt")

ADDITIVE = objectives.additive("gosdt")


def _bound(name, theorem, help_text):
    return Param(
        name,
        "bool",
        True,
        f"{help_text} ({theorem}). Never changes the optimum; off only slows the search.",
        group="bounds",
        visible_when={"objective": ADDITIVE},
    )


# The bound switches of the dynamic programming with bounds (spec §2.11–§2.12, §3.2).
ADDITIVE_PARAMS = (
    _bound(
        "use_hierarchical_bound",
        "Thm B.1, B.3",
        "Hierarchical lower bound: skip a split whose children's lower bounds already exceed the best subtree",
    ),
    _bound(
        "use_lookahead_bound",
        "Thm B.2",
        "One-step lookahead: a split costs at least two leaves, so a subproblem starts at min(leaf, 2λ + ...)",
    ),
    _bound(
        "use_incremental_progress_bound",
        "Thm B.6",
        "Incremental progress to split: a subproblem whose avoidable loss is at most λ stays a leaf",
    ),
    _bound(
        "use_progress_lower_bound",
        "Thm B.7",
        "Lower bound on incremental progress: when a split's two leaves gain at most λ, one child must split",
    ),
    _bound(
        "use_equivalent_points_bound",
        "Thm B.9, Eq. 9",
        "Equivalent points: rows with identical features carry a loss that no tree removes",
    ),
    _bound(
        "use_leaf_permutation_bound",
        "Thm B.8, §4.1",
        "Leaf permutation: subproblems are keyed by their support set, so one reached by several paths is solved once",
    ),
    _bound(
        "use_leaf_count_bound",
        "Thm B.4, B.5",
        "Upper bound on leaves: a subproblem whose best objective is at most 2λ cannot afford a split",
    ),
    _bound(
        "use_similar_support_bound",
        "Thm 4.1",
        "Incremental similar support: adjacent thresholds move few rows, so their splits' bounds differ by little",
    ),
)


def _switches(additive, rank):
    """One switch per bound: a bound that both searches use shows for every objective."""
    rank_by_name = {p.name: p for p in rank}
    merged = []
    for p in additive:
        r = rank_by_name.get(p.name)
        merged.append(
            p
            if r is None
            else replace(p, label=r.label, help=f"{p.help} For F-score, AUC and pAUC: {r.help}", visible_when={})
        )
    additive_names = {p.name for p in additive}
    return tuple(merged) + tuple(p for p in rank if p.name not in additive_names)


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
            "objective",
            "choice",
            "accuracy",
            "What the tree is optimal for: a loss of 1 − metric, plus λ per leaf.",
            choices=OBJECTIVES,
            group="objective",
            imbalanced_default="balanced_accuracy",
        ),
        regularization_param(default=0.01, help_extra="A leaf must cut the loss by at least λ to pay for itself."),
        max_depth_param(default=None, optional=True),
        Param(
            "cost_weight",
            "float",
            1.0,
            "ω: for weighted accuracy, the cost of a false negative relative to a false positive; for F-score, "
            "a leaf predicts 0 iff ω·positives ≤ negatives.",
            label="ω",
            minimum=0.0,
            exclusive_minimum=True,
            group="objective",
            visible_when={"objective": ("weighted_accuracy", "f1")},
        ),
        Param(
            "pauc_theta",
            "float",
            0.1,
            "θ: partial AUC counts the area under the ROC convex hull for false-positive rates up to θ.",
            label="θ (largest FPR)",
            minimum=0.0,
            maximum=1.0,
            exclusive_minimum=True,
            group="objective",
            visible_when={"objective": ("pauc",)},
        ),
    )
    + _switches(ADDITIVE_PARAMS, rank_params.PARAMS)
    + (
        Param(
            "threshold_search",
            "choice",
            "auto",
            "How thresholds of numeric columns are searched: ordered (each column's rows sorted once, a "
            "depth-first search in which neighbouring thresholds are bounded together: the operational form of "
            "Thm 4.1, as in ConTree), binary (the dynamic programming over one 0/1 feature per threshold), or "
            "auto (ordered when the columns bring many thresholds). Never changes the optimum.",
            label="Threshold search",
            choices=("auto", "ordered", "binary"),
            group="search",
            visible_when={"objective": ADDITIVE},
        ),
    ),
    multiclass=lambda config: objectives.get(config.get("objective", "accuracy")).multiclass,
)
