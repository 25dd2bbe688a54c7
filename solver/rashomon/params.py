"""Registry entry of the Rashomon set: every near-optimal sparse decision tree (TreeFARMS: Xin, Zhong, Chen,
Takagi, Seltzer, Rudin; NeurIPS 2022), counted exactly and explored without listing it.

The set holds every tree whose objective (GOSDT's additive objectives: a loss plus λ per leaf) is at
most θ: ``(1 + ε)·optimum`` by default, ``optimum + δ`` with ``additive_epsilon``, or an absolute
``objective_bound``. The search is ``solver.rashomon.search``.
"""

from dataclasses import replace

from solver import objectives
from solver.gosdt.params import ADDITIVE, ADDITIVE_PARAMS
from solver.registry import Algorithm, Param, max_depth_param, regularization_param

# The bounds that stay sound when every tree within θ is wanted (spec §2.1); GOSDT's other switches
# (incremental progress, leaf count, similar support) would drop members of the set and are never used.
SOUND_BOUNDS = (
    "use_hierarchical_bound",
    "use_lookahead_bound",
    "use_equivalent_points_bound",
    "use_leaf_permutation_bound",
)


def _switch(p):
    return replace(p, help=p.help.replace("Never changes the optimum", "Never changes the set"), visible_when={})


ALGORITHM = Algorithm(
    name="rashomon",
    title="Rashomon set (every near-optimal sparse tree, TreeFARMS)",
    summary=(
        "Every decision tree whose objective is within (1 + ε) of the optimum, counted exactly, with the share "
        "of trees using each feature, the rows on which good trees disagree, and the best trees to browse."
    ),
    search_module="solver.rashomon.search",
    multiclass=lambda config: objectives.get(config.get("objective", "accuracy")).multiclass,
    params=(
        Param(
            "objective",
            "choice",
            "accuracy",
            "What the trees are scored on: a loss of 1 − metric, plus λ per leaf.",
            choices=ADDITIVE,
            group="objective",
            imbalanced_default="balanced_accuracy",
        ),
        regularization_param(default=0.01, help_extra="A leaf must cut the loss by at least λ to pay for itself."),
        max_depth_param(default=None, optional=True),
        Param(
            "epsilon",
            "float",
            0.05,
            "ε: the set holds every tree with objective at most (1 + ε) × the optimum.",
            label="ε (relative)",
            minimum=0.0,
            maximum=10.0,
        ),
        Param(
            "additive_epsilon",
            "float",
            None,
            "δ: when given, the set holds every tree with objective at most the optimum + δ (instead of ε).",
            label="δ (absolute, above the optimum)",
            minimum=0.0,
            maximum=10.0,
            optional=True,
        ),
        Param(
            "objective_bound",
            "float",
            None,
            "θ: when given, the set holds every tree with objective at most θ (ε and δ are then ignored).",
            label="θ (absolute bound)",
            minimum=0.0,
            maximum=10.0,
            exclusive_minimum=True,
            optional=True,
        ),
        Param(
            "cost_weight",
            "float",
            1.0,
            "ω: for weighted accuracy, the cost of a false negative relative to a false positive.",
            label="ω",
            minimum=0.0,
            exclusive_minimum=True,
            group="objective",
            visible_when={"objective": ("weighted_accuracy",)},
        ),
        Param(
            "ignore_trivial_extensions",
            "bool",
            True,
            "Leave out trees with a split whose two children are leaves predicting the same label (as treefarms; "
            "arborenum and PRAXIS keep them).",
            group="search",
        ),
        Param(
            "leaf_labels",
            "choice",
            "majority",
            "Which labels a leaf may predict: its majority label only (as treefarms; a tie predicts the higher class), "
            "or any label, each a different tree (as arborenum and PRAXIS by default).",
            choices=("majority", "any"),
            group="search",
        ),
        Param(
            "integer_gamma",
            "bool",
            False,
            "Score trees as arborenum and PRAXIS do: mistakes + γ per leaf with the integer γ = round(λ·n), and θ "
            "rounded to the nearest integer. Off: λ is exact and θ is not rounded.",
            label="integer γ",
            group="search",
        ),
    )
    + tuple(_switch(p) for p in ADDITIVE_PARAMS if p.name in SOUND_BOUNDS),
)
