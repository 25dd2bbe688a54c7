"""Registry entry of STreeD (van der Linden, de Weerdt, Demirović; NeurIPS 2023).

Depth-limited optimal trees for separable objectives and constraints by
dynamic programming. Kept light: no compiled kernels here (the web process imports it).
"""

import math
from dataclasses import replace

from solver import objectives
from solver.registry import Algorithm, Param, ParameterError, max_depth_param

TASKS = objectives.offered_by("streed")


def _switch(name, label, help_text, default=True):
    return Param(
        name,
        "bool",
        default,
        help_text + " Never changes the optimum; off only slows the search.",
        label=label,
        group="bounds",
    )


def _requires(config):
    return objectives.get(config["objective"]).roles


def _check(config):
    if (
        config["objective"] in ("f1", "demographic_parity", "equality_of_opportunity")
        and config["min_samples_leaf"] < 1
    ):
        raise ParameterError("min_samples_leaf must be at least 1.")
    if config["objective"] == "cost_sensitive" and config.get("misclassification_costs"):
        try:
            cost_rows(config["misclassification_costs"])
        except ValueError as e:
            raise ParameterError(f"{str(e)[0].upper()}{str(e)[1:]}.") from None


def cost_rows(text):
    """Return the rows of a misclassification-cost text (``"0 1; 5 0"``) as lists of floats.

    Raises ``ValueError`` saying what is wrong: not numbers, not a square table of at least two
    classes, a negative or infinite cost. Whether it has one row per class is for the data to say.
    """
    shown = text.strip()
    rows = [row.replace(",", " ").split() for row in shown.strip(";").split(";")]
    try:
        values = [[float(x) for x in row] for row in rows]
    except ValueError:
        raise ValueError(f"the misclassification costs must be numbers; got {shown!r}") from None
    if len(values) < 2 or any(len(row) != len(values) for row in values):
        raise ValueError(
            "the misclassification costs must be a square table: one row per class, rows separated "
            f"by ';', as many numbers in each as there are rows; got {shown!r}"
        )
    if not all(math.isfinite(x) and x >= 0 for row in values for x in row):
        raise ValueError(f"the misclassification costs must be finite numbers ≥ 0; got {shown!r}")
    return values


ALGORITHM = Algorithm(
    name="streed",
    title="STreeD (separable optimal trees, 2023)",
    summary=(
        "Depth-limited optimal trees by dynamic programming for any separable objective: accuracy, "
        "cost-sensitive classification (misclassification and test costs), the F1 score (through the Pareto "
        "front of false negatives and false positives), accuracy under demographic-parity or equal-opportunity "
        "constraints, and prescriptive policy trees. Proves the optimum for the given depth and node limits."
    ),
    search_module="solver.streed.search",
    params=(
        Param(
            "objective",
            "choice",
            "accuracy",
            "What the tree optimises: accuracy (fewest misclassifications), cost_sensitive (misclassification "
            "costs, below, plus feature test costs), f1 (best F1 over the front of false negatives and false "
            "positives), demographic_parity / equality_of_opportunity (fewest errors with discrimination at most δ), "
            "policy (the treatment assignment with the highest estimated outcome).",
            choices=TASKS,
            group="objective",
            imbalanced_default="f1",
        ),
        replace(
            max_depth_param(default=3, optional=False, maximum=8),
            help="Most splits on any root-to-leaf path (a stump has 1); STreeD always needs one.",
        ),
        Param(
            "max_nodes",
            "int",
            None,
            "Most branching nodes in the tree (a tree with n of them has n + 1 leaves). Empty: 2^depth − 1.",
            label="Max branching nodes",
            minimum=0,
            optional=True,
        ),
        Param(
            "min_samples_leaf", "int", 1, "Fewest training rows a leaf may hold.", label="Min rows per leaf", minimum=1
        ),
        Param(
            "delta",
            "float",
            0.01,
            "Largest allowed discrimination: |P(ŷ=1 | group) − P(ŷ=1 | other)| (demographic parity) or the "
            "same among positive rows (equality of opportunity), on the training data.",
            label="Fairness δ",
            minimum=0.0,
            maximum=1.0,
            group="objective",
            visible_when={"objective": ("demographic_parity", "equality_of_opportunity")},
        ),
        Param(
            "misclassification_costs",
            "text",
            None,
            "What each error costs: one row per true class, one number per predicted class, rows separated by "
            "';', numbers by spaces or commas, classes in the confusion matrix's order (sorted, the positive "
            "class last when one is chosen). For classes no, yes: '0 1; 5 0' makes a missed yes cost 5 and a "
            "false yes 1. Empty: every error costs 1.",
            label="Misclassification costs",
            optional=True,
            group="objective",
            visible_when={"objective": ("cost_sensitive",)},
        ),
        Param(
            "teacher",
            "choice",
            "doubly_robust",
            "How each row scores each treatment: direct (a ridge regression of the outcome per treatment), "
            "ipw (observed outcome over the treatment's share) or doubly_robust (both).",
            choices=("direct", "ipw", "doubly_robust"),
            group="objective",
            visible_when={"objective": ("policy",)},
        ),
        Param(
            "capacity",
            "float",
            None,
            "Largest share of rows the policy may send to a treatment other than the reference treatment "
            "(below). A capacity constraint (App. A.4). Empty: no limit.",
            label="Treatment capacity",
            minimum=0.0,
            maximum=1.0,
            optional=True,
            group="objective",
            visible_when={"objective": ("policy",)},
        ),
        Param(
            "reference_treatment",
            "text",
            None,
            "The treatment that uses no capacity (say, no intervention), as written in the treatment column. "
            "Empty: the first treatment value in sorted order (0 for 0/1 treatments).",
            label="Reference treatment",
            optional=True,
            group="objective",
            visible_when={"objective": ("policy",)},
        ),
        _switch(
            "use_depth_two_solver",
            "Depth-two solver (App. B)",
            "Solve every depth-two subproblem from one pass of feature-pair counts.",
        ),
        _switch(
            "use_upper_bound",
            "Upper bounds (App. B, Eqs. 38–42)",
            "Pass the best value so far into the children, which then stop early.",
        ),
        _switch(
            "use_lower_bound",
            "Lower bounds (App. B, Eqs. 43–46)",
            "Skip a split whose children's cached lower bounds cannot beat the best value.",
        ),
        _switch(
            "use_similarity_lower_bound",
            "Similarity lower bound (App. B, Eq. 45)",
            "Bound a subproblem from a solved one with similar rows (tasks without constraints or test costs).",
        ),
        _switch(
            "use_dataset_caching", "Dataset caching (§3.5)", "Reuse the solution of any subproblem with the same rows."
        ),
        _switch(
            "use_branch_caching",
            "Branch caching (§3.5)",
            "Reuse the solution of any subproblem with the same path decisions.",
            default=False,
        ),
        Param(
            "threshold_search",
            "choice",
            "auto",
            "How thresholds of numeric columns are searched: ordered (each column's rows sorted once, "
            "a depth-two sweep, neighbouring thresholds bounded together: ConTree's search), binary (one 0/1 "
            "feature per threshold, bitset pair counts), or auto (ordered when the columns bring many "
            "thresholds). Ordered serves accuracy, misclassification costs and policies without a capacity; "
            "F1 runs on it as Dinkelbach iterations (auto: where its 0/1 search would be too large); the other tasks search 0/1 features, and on more thresholds than "
            "that search can take (auto) keep the quantile thresholds of each column that fit, and say so. "
            "Never changes the optimum (but for that reduction).",
            label="Threshold search",
            choices=("auto", "ordered", "binary"),
            group="search",
        ),
    ),
    requires=_requires,
    multiclass=lambda config: objectives.get(config["objective"]).multiclass,
    renamed={"task": "objective"},
    check=_check,
)
