"""Parameters of GOSDT's tree-level search for the non-additive objectives (F-score, AUC, pAUC).

``solver/gosdt/params.py`` appends ``PARAMS`` to the algorithm's parameters; they show only for
those objectives (``visible_when={"objective": NON_ADDITIVE}``). Kept light: no numba here.
"""

from solver import objectives
from solver.registry import Param

NON_ADDITIVE = tuple(name for name in objectives.offered_by("gosdt") if not objectives.get(name).additive)


def _switch(name, label, help_text):
    return Param(name, "bool", True, help_text, label=label, group="bounds", visible_when={"objective": NON_ADDITIVE})


PARAMS = (
    _switch(
        "use_hierarchical_bound",
        "Hierarchical lower bound (Thm B.1; AUC: Thms 2.1–2.2)",
        "Drop a partial tree when its fixed leaves alone, with the leaves still to split made perfectly pure, "
        "cannot beat the best tree: for AUC the split positives go to the top of the ROC curve and the split "
        "negatives to the bottom.",
    ),
    _switch(
        "use_lookahead_bound",
        "One-step lookahead (Thm B.2)",
        "Every leaf still to split adds at least one more leaf: count λ for each.",
    ),
    _switch(
        "use_equivalent_points_bound",
        "Equivalent points (Thm C.3; F-score: safe B.9)",
        "Rows with identical features stay together in every tree: for AUC and pAUC each mixed group is a "
        "leaf of the best-case ROC curve; for F-score every group's minority counts as a false positive "
        "(the paper's form of this bound can cut optima for F-score).",
    ),
    _switch(
        "use_incremental_progress_bound",
        "Incremental progress (Thm B.6; AUC: Thm C.2)",
        "Never split a leaf when even two pure children would gain less than λ, in every tree the search "
        "can still reach from it.",
    ),
    _switch(
        "use_leaf_permutation_bound",
        "Leaf permutation (Thm B.8)",
        "Evaluate each set of leaves once, however the splits were ordered.",
    ),
)
