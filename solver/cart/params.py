"""Registry entry of the greedy CART baseline."""

from solver.registry import Algorithm, Param, max_depth_param, regularization_param

ALGORITHM = Algorithm(
    name="cart",
    title="CART (greedy baseline)",
    summary=(
        "scikit-learn's greedy DecisionTreeClassifier, then pruned to minimise misclassification "
        "+ λ × leaves over its own subtrees. Fast, but proves nothing: the baseline every optimal "
        "model is compared against."
    ),
    search_module="solver.cart.search",
    params=(
        max_depth_param(default=4, optional=True),
        Param(
            "min_samples_leaf",
            "int",
            1,
            "Fewest training rows a leaf may hold.",
            label="Min rows per leaf",
            minimum=1,
        ),
        Param(
            "criterion",
            "choice",
            "gini",
            "Impurity the greedy split search minimises.",
            choices=("gini", "entropy"),
        ),
        regularization_param(
            default=0.0, help_extra="CART grows greedily, then prunes away splits that do not pay for λ."
        ),
    ),
    proves_optimality=False,
    multiclass=True,
)
