"""Registry entry of CORELS: certifiably optimal rule lists (Angelino et al., JMLR 2018)."""

from solver.registry import Algorithm, Param, regularization_param

POLICY_HELP = (
    "Which queued prefix to extend next: lower_bound (smallest b + b0, the paper's default), curiosity "
    "(b / support), objective (smallest objective), bfs (shortest first) or dfs (longest first). "
    "Changes the speed, never the optimum."
)


def _bound(name, label, help, default=True):
    return Param(name, "bool", default, help + " Changes the speed, never the optimum.", label=label, group="bounds")


def mined_antecedents(n_binary, config):
    """Return an upper bound on the antecedents mining makes from ``n_binary`` features (before support filters)."""
    from solver.data.mining import MAX_ANTECEDENTS

    if config.get("antecedents") != "mined":
        return n_binary
    singles = n_binary * (2 if config.get("negations") else 1)
    pairs = singles * (singles - 1) // 2 if config.get("max_clauses", 1) >= 2 else 0
    return min(singles + pairs, MAX_ANTECEDENTS)


ALGORITHM = Algorithm(
    name="corels",
    title="CORELS (certifiably optimal rule lists)",
    summary=(
        "Branch-and-bound over ordered rule lists 'if a₁ then p₁ else if a₂ then p₂ … else p₀', minimising "
        "misclassification + λ × rules, with a certificate that no rule list over the same antecedents "
        "does better. Two classes."
    ),
    search_features=mined_antecedents,
    search_module="solver.corels.search",
    model_type="rule_list",
    # Rules are mined from the binary features: thousands of exact thresholds of a numeric column are beyond reach.
    binarization="quantile:8",
    params=(
        regularization_param(
            default=0.01,
            help_extra="Each rule costs as much as misclassifying a fraction λ "
            "of the rows; λ = 0.01 adds a rule only if it removes more than 1 % of the errors.",
        ),
        Param(
            "max_length",
            "int",
            None,
            "Most rules before the default rule. Empty means no limit (the bounds limit the length anyway).",
            label="Max rules",
            minimum=1,
            maximum=10_000,
            optional=True,
        ),
        Param(
            "antecedents",
            "choice",
            "mined",
            "mined: rules are the binary features, their negations and conjunctions of two; given: each binary "
            "column of the file is one rule antecedent, as in CORELS' own .out files.",
            label="Antecedents",
            choices=("mined", "given"),
        ),
        Param(
            "min_support",
            "float",
            0.01,
            "Mined antecedents must hold on at least this fraction of the rows, and fail on at least as many.",
            label="Minimum support",
            minimum=0.0,
            maximum=0.5,
            visible_when={"antecedents": ("mined",)},
        ),
        Param(
            # Default 1: with pairs, tables of a few thousand rows fill gigabytes before the bounds close
            # (tic-tac-toe: 666 antecedents, 2.3 GB in 18 s, unproved; singles prove it in 0.02 s).
            "max_clauses",
            "int",
            1,
            "1: single predicates only (proves on typical tables); 2: also conjunctions "
            "of two (many more antecedents: the search often fills its memory before it proves).",
            label="Clauses per antecedent",
            minimum=1,
            maximum=2,
            visible_when={"antecedents": ("mined",)},
        ),
        Param(
            "negations",
            "bool",
            True,
            "Also mine the negation of every binary feature (age > 25 beside age ≤ 25).",
            label="Negations",
            visible_when={"antecedents": ("mined",)},
        ),
        Param(
            "policy",
            "choice",
            "lower_bound",
            POLICY_HELP,
            label="Search policy",
            choices=("lower_bound", "curiosity", "objective", "bfs", "dfs"),
            group="search",
        ),
        Param(
            # Default 512 MB: with its map keyed by antecedent sets the search stores about 130 bytes a prefix,
            # 4 million prefixes here; the 60 s default run on 1,000,000 rows x 20 columns queued 1.5 GB of them.
            "queue_memory",
            "int",
            512,
            "Memory (MB) for the prefixes waiting to be extended (the trie, queue and map). When they fill it, "
            "the search sets aside the half with the worst lower bounds and goes on improving its list; the "
            "run's lower bound then stays at or under their least bound, so it proves optimality only if the "
            "best list beats them. Empty: half of what the run may still allocate.",
            label="Queue memory (MB)",
            minimum=16,
            maximum=1 << 20,
            optional=True,
            group="search",
        ),
        Param(
            "use_garbage_collection",
            "bool",
            True,
            "Free the stored prefixes that cannot lead to a better rule list whenever the best one improves "
            "(paper §5.5). Saves memory, never changes the optimum.",
            label="Garbage collection",
            group="search",
        ),
        _bound(
            "use_hierarchical_bound",
            "Hierarchical lower bound (Thm 1)",
            "Skip a prefix whose own errors plus λ per rule already reach the best objective.",
        ),
        _bound(
            "use_lookahead_bound",
            "Lookahead bound (Lemma 2)",
            "Do not queue a prefix whose lower bound plus one more rule's cost reaches the best objective.",
        ),
        _bound(
            "use_length_bound", "Prefix length bound (Thm 6)", "Do not extend a prefix beyond K + ⌊(R − b)/λ⌋ rules."
        ),
        _bound(
            "use_minimum_support_bound", "Minimum support (Thm 10)", "Drop a rule that captures fewer than λN rows."
        ),
        _bound(
            "use_accurate_support_bound",
            "Minimum accurate support (Thm 11)",
            "Drop a rule that classifies fewer than λN rows correctly.",
        ),
        _bound(
            "use_equivalent_points_bound",
            "Equivalent points bound (Thm 20)",
            "Count the errors that rows with identical antecedents but different labels force on any list.",
        ),
        _bound(
            "use_permutation_map", "Permutation map (Cor 16)", "Keep only the best ordering of each set of antecedents."
        ),
        _bound(
            "use_captured_vector_map",
            "Captured-vector map (Thm 15)",
            "Keep only the best prefix among those capturing the same rows (prunes more than the "
            "permutation map, costs a bit per distinct row in each entry; replaces it when both are on).",
            default=True,
        ),
    ),
)
