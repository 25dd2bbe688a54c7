"""Registry entry of OSST: optimal sparse survival trees (Zhang, Xin, Seltzer, Rudin; AISTATS 2023).

Defaults reproduce the ``osst`` 0.1.8 package: ``time_normalizer="range"``,
``ipcw_ties="osst"``, ``min_samples_leaf=7``. Depth follows the shared
``max_depth`` (split levels; a stump has 1): ``osst``'s ``depth_budget``
counts one more, so ``max_depth=d`` searches the trees of ``depth_budget=d+1``.
"""

from dataclasses import replace

from solver.registry import Algorithm, Param, max_depth_param, regularization_param


def _bound(name, theorem, help_text):
    return Param(
        name,
        "bool",
        True,
        f"{help_text} ({theorem}). Never changes the optimum; off only slows the search.",
        group="bounds",
    )


def _data_defaults(problem, config):
    """Return λ from the data: scaled to the single-leaf integrated Brier score and the rows."""
    from solver import regularization

    loss0 = regularization.single_leaf_loss("ibs", params=config, survival=(problem.event, problem.time))
    if loss0 is None:
        return {}
    return {"regularization": regularization.scaled_default(loss0, problem.n_samples, "integrated Brier score")}


ALGORITHM = Algorithm(
    name="osst",
    title="OSST (optimal sparse survival trees)",
    summary=(
        "Provably optimal survival tree for the integrated Brier score with censoring weights "
        "+ λ × leaves; every leaf predicts the Kaplan-Meier curve of its training rows."
    ),
    search_module="solver.osst.search",
    data_defaults=_data_defaults,
    params=(
        regularization_param(
            help_extra="In units of the integrated Brier score.",
            from_data="1 % of the single-leaf loss ℓ₀ (the integrated Brier score of one Kaplan-Meier curve for every "
            "row), or ℓ₀ / N on tables of fewer than 100 rows.",
        ),
        replace(
            max_depth_param(default=4, optional=True),
            help=(
                "Most splits on any root-to-leaf path (a stump has depth 1). Empty means no limit. "
                "The osst package's depth_budget counts one more (a lone root is depth 1 there)."
            ),
        ),
        Param(
            "min_samples_leaf",
            "int",
            7,
            "Fewest training rows a leaf may hold (the osst package's minimum_captured_points; the paper uses 7).",
            label="Min rows per leaf",
            minimum=1,
        ),
        Param(
            "time_normalizer",
            "choice",
            "range",
            "Divide the integrated Brier score by y_max − y_min (range: the osst package since 2024) or by "
            "y_max (max: the paper's Eq. 1). It rescales the loss, and so the effective λ.",
            choices=("range", "max"),
            group="objective",
        ),
        Param(
            "ipcw_ties",
            "choice",
            "osst",
            "How deaths tied with censorings enter the censoring weights: osst keeps the deaths in the risk "
            "set (the osst package and the paper's figures), sksurv counts them first (scikit-survival).",
            label="Censoring ties",
            choices=("osst", "sksurv"),
            group="objective",
        ),
        _bound("use_lookahead_bound", "Thm 2.3", "One-step lookahead: a split costs at least two leaves"),
        _bound(
            "use_equivalent_points_bound",
            "Lemma 2.5, Thm 2.6",
            "Equivalent points: rows with identical features leave a loss no tree can remove",
        ),
        _bound(
            "use_incremental_progress_bound",
            "Thm B.1",
            "Incremental progress: a leaf whose avoidable loss is at most λ is never split",
        ),
        _bound(
            "use_subtree_bound",
            "Thm 2.2, Thm B.6",
            "Hierarchical bound: skip a split whose children's lower bounds already reach the best tree",
        ),
        Param(
            "use_reference_bound",
            "bool",
            False,
            "Guess lower bounds from a reference model (Eq. 12). Faster, but the tree is only optimal relative "
            "to the reference (Thm 2.7), not proved optimal.",
            label="Reference-model bound (guessing)",
            group="search",
        ),
        Param(
            "reference_model",
            "choice",
            "class_km",
            "Reference model for the guessed bounds: class_km gives every set of rows with identical features "
            "its own Kaplan-Meier curve.",
            choices=("class_km",),
            group="search",
            visible_when={"use_reference_bound": (True,)},
        ),
    ),
    requires=("time", "event"),
)
