"""Registry entry of OSDT (Hu, Rudin and Seltzer, NeurIPS 2019): branch and bound over leaf sets.

Kept light: no numba here (the web process imports it to draw forms).
"""

from dataclasses import replace

from solver.registry import Algorithm, Param, max_depth_param, regularization_param

POLICIES = ("curiosity", "lower_bound", "objective", "bfs", "dfs")


def _switch(name, label, help_text, default=True):
    return Param(name, "bool", default, help_text, label=label, group="bounds")


ALGORITHM = Algorithm(
    name="osdt",
    title="OSDT (optimal sparse decision trees, 2019)",
    summary=(
        "The original branch and bound over leaf sets: a best-first queue of whole partial trees, "
        "each with the leaves it will still split. Minimises misclassification + λ × leaves with no "
        "depth limit and proves the optimum. Slower than GOSDT's dynamic programming; pick it to "
        "reproduce the 2019 paper or to compare how the two searches close the gap."
    ),
    search_module="solver.osdt.search",
    params=(
        replace(
            regularization_param(default=0.01, help_extra="OSDT needs λ > 0: it is what keeps the tree sparse."),
            exclusive_minimum=True,
        ),
        max_depth_param(default=None, optional=True),
        Param(
            "policy",
            "choice",
            "curiosity",
            "Which partial tree to expand next. curiosity (the paper's default, best in its tests): lower "
            "bound divided by the share of rows in the fixed leaves; lower_bound; objective; bfs "
            "(first in, first out); dfs (last in, first out). The optimum does not depend on it.",
            label="Search policy",
            choices=POLICIES,
            group="search",
        ),
        Param(
            "warm_start",
            "bool",
            True,
            "Start from a CART tree's objective (with the paper's settings) so that the search prunes "
            "from the first step; the result is never worse than that tree.",
            label="Warm start from CART",
            group="search",
        ),
        Param(
            "feature_order",
            "choice",
            "gini",
            "Order in which features are tried: gini (best root Gini reduction first, as the authors' "
            "code does) or given (column order). Changes the work, never the optimum.",
            label="Feature order",
            choices=("gini", "given"),
            group="search",
        ),
        Param(
            "prune_when_queued",
            "bool",
            True,
            "Test the bounds when a partial tree is queued as well as when it is taken out, so the queue "
            "holds live trees only (less memory). Off replays the authors' code exactly, so that the "
            "paper's tree counts reproduce. Never changes the optimum.",
            label="Prune when queued",
            group="search",
        ),
        _switch(
            "use_hierarchical_bound",
            "Hierarchical lower bound (Thm 3.1)",
            "Drop a partial tree when the error of its fixed leaves plus λ × leaves reaches the best objective.",
        ),
        _switch(
            "use_lookahead_bound",
            "One-step lookahead (Lemma 3.2)",
            "Every leaf still to split adds at least one more leaf: count λ for each.",
        ),
        _switch(
            "use_equivalent_points_bound",
            "Equivalent points (Thm B.2)",
            "Rows with identical features and different labels are misclassified by every tree: count "
            "their minority in the leaves still to split.",
        ),
        _switch("use_support_bound", "Leaf support (Thm 3.3)", "Never split a leaf whose own error is at most λ."),
        _switch(
            "use_incremental_accuracy_bound",
            "Incremental accuracy (Thm 3.4)",
            "A split that gains at most λ accuracy must be split further.",
        ),
        _switch(
            "use_leaf_accuracy_bound",
            "Leaf accuracy (Thm 3.5)",
            "Reject a split that leaves a child with at most λ correctly classified rows; the feature "
            "stays dead below that leaf.",
        ),
        _switch(
            "use_leaf_count_bound",
            "Leaf count bound (Thm C.1, Cor C.2 corrected)",
            "A tree better than the incumbent has fewer than objective/λ leaves and at most one leaf per distinct row.",
        ),
        _switch(
            "use_prefix_leaf_count_bound",
            "Prefix-specific leaf count bound (Thm C.3 corrected)",
            "Splits still affordable below a partial tree: fewer than (objective − its lower bound)/λ, "
            "with the ceiling and the ≤ 2^M cap of the corrected theorem.",
        ),
        _switch(
            "use_permutation_map",
            "Leaf permutation (Cor E.1)",
            "Evaluate each set of leaves once, however the splits were ordered.",
        ),
        _switch(
            "use_similar_support",
            "Similar support (Thm F.1)",
            "Bound every tree that splits a leaf on a feature at once, and drop features whose split "
            "differs from an already dropped one on fewer rows than the margin. Not used in the paper's "
            "experiments.",
            default=False,
        ),
    ),
)
