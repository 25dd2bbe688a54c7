"""When the ordered search is used: light rules, importable without compiling a kernel (forms, estimates).

The 0/1 searches (bitset pair counts, GOSDT's DPB) are faster on few binary features; the ordered one when
numeric columns bring many thresholds (measured on bank at quantile:16/64/256, on compas-gosdt and on
hypothyroid: ``bench/README.md``).
"""

ORDERED_FROM_FEATURES = 256
ORDERED_FROM_CUTS_PER_COLUMN = 4
STREED_TASKS = ("accuracy", "cost_sensitive", "policy")
GOSDT_OBJECTIVES = ("accuracy", "balanced_accuracy", "weighted_accuracy")


def prefers(n_features, n_families):
    """Whether ``n_features`` binary features in ``n_families`` ordered columns are worth the ordered search.

    At least ``ORDERED_FROM_FEATURES`` features and ``ORDERED_FROM_CUTS_PER_COLUMN`` per column on average
    (0/1 and one-hot columns are columns of one cut, where the bitset searches win).
    """
    return n_features >= ORDERED_FROM_FEATURES and n_features >= ORDERED_FROM_CUTS_PER_COLUMN * n_families


def chosen(algorithm, config, n_features, n_families, test_costs=False):
    """Whether ``algorithm`` with ``config`` searches thresholds in order on data of this shape.

    ``test_costs``: the problem has a non-zero cost of testing some feature (STreeD's cost-sensitive task then
    runs the 0/1 search).
    """
    if algorithm == "streed":
        objective = config.get("objective")
        able = (
            objective in STREED_TASKS
            and not (objective == "policy" and config.get("capacity") is not None)
            and not (objective == "cost_sensitive" and test_costs)
        )
    elif algorithm == "gosdt":
        able = config.get("objective") in GOSDT_OBJECTIVES
    else:
        return False
    choice = config.get("threshold_search", "auto")
    return able and (choice == "ordered" or (choice == "auto" and prefers(n_features, n_families)))
