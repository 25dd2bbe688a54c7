"""Benchmark CORELS on the paper's COMPAS configuration and the other shared datasets.

    .venv/bin/python -m bench.corels [--ablations] [--time-limit S]

The PyPI ``corels`` package does not build on current Python, so there is
no C++ run to compare against here; each row stands beside the numbers the
paper reports (Angelino et al., JMLR 2018, Table 4: ProPublica, λ = 0.005,
M = 122, means over 10 folds on a 2.2 GHz Xeon). The paper's antecedent set
("Feature Set A") is rebuilt from CORELS' own training fold
(``compas-corels-rules.csv``) by leaving out the ``current-charge-degree``
antecedents, which Feature Set A excludes: 17 single values and 102 pairs.

Each job runs in a fresh process (``bench/harness.py``): compilation (or
loading numba's cache) is timed apart from the search; wall and CPU time of
the search, peak resident memory, and the search's counters are recorded,
with the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from bench.harness import markdown_table, run_isolated, write_results

RULES = "compas-corels-rules.csv"

# Table 4 of the paper (ProPublica, λ = 0.005): minutes, ×10^6 evaluations, insertions, max logical queue.
PAPER_TABLE_4 = {
    "full": {
        "paper_minutes": 0.98,
        "paper_evaluations_m": 26,
        "paper_insertions_m": 0.29,
        "paper_queue_m": 0.24,
        "paper_length": 5,
    },
    "bfs": {
        "paper_minutes": 1.03,
        "paper_evaluations_m": 27,
        "paper_insertions_m": 0.33,
        "paper_queue_m": 0.20,
        "paper_length": 5,
    },
    "no support bounds": {
        "paper_minutes": 1.5,
        "paper_evaluations_m": 42,
        "paper_insertions_m": 0.40,
        "paper_queue_m": 0.33,
        "paper_length": 5,
    },
    "no lookahead": {
        "paper_minutes": 12.3,
        "paper_evaluations_m": 320,
        "paper_insertions_m": 3.6,
        "paper_queue_m": 3.0,
        "paper_length": 6,
    },
    "no permutation map": {
        "paper_minutes": 9.1,
        "paper_evaluations_m": 250,
        "paper_insertions_m": 2.5,
        "paper_queue_m": 2.4,
        "paper_length": 5,
    },
    "no equivalent points": {
        "paper_minutes": 130,
        "paper_evaluations_m": 940,
        "paper_insertions_m": 510,
        "paper_queue_m": 500,
        "paper_length": 11,
    },
}
ABLATIONS = {
    "bfs": {"policy": "bfs"},
    "no support bounds": {"use_minimum_support_bound": False, "use_accurate_support_bound": False},
    "no lookahead": {"use_lookahead_bound": False},
    "no permutation map": {"use_permutation_map": False},
    "no equivalent points": {"use_equivalent_points_bound": False},
}


def datasets_path(name):
    root = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "datasets")
    return os.path.abspath(os.path.join(root, name))


def load(name, binarize, drop=None):
    from solver.data import Roles, make_problem, read_file

    table = read_file(datasets_path(name))
    features = None
    if drop:
        features = tuple(c for c in table.names[:-1] if drop not in c)
    return make_problem(table, Roles(label=table.names[-1], features=features), binarize)


def job(name, regularization, antecedents="given", binarize="none", drop=None, params=None, time_limit=None):
    """Solve one configuration; return its timings and counters (runs in a fresh process)."""
    from solver import Limits, solve
    from solver.api import warm

    t0 = time.perf_counter()
    compile_seconds = warm("corels")
    import_seconds = time.perf_counter() - t0 - compile_seconds
    problem = load(name, binarize, drop)
    cpu0 = time.process_time()
    result = solve(
        problem,
        "corels",
        {"regularization": regularization, "antecedents": antecedents, **(params or {})},
        Limits(time_limit=time_limit),
    )
    s = result.stats
    return {
        "status": result.status,
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "rules": result.model.rule_texts(),
        "solve_seconds": s["solve_seconds"],
        "cpu_seconds": time.process_time() - cpu0,
        "compile_seconds": compile_seconds,
        "import_seconds": import_seconds,
        "antecedents": s["antecedents"],
        "rows": problem.n_samples,
        "classes": s["classes"],
        "evaluations": s["evaluations"],
        "lower_bound_evaluations": s["lower_bound_evaluations"],
        "queue_insertions": s["queue_insertions"],
        "max_queue_size": s["max_queue_size"],
        "max_evaluated_prefix_length": s["max_evaluated_prefix_length"],
        "time_to_optimum_seconds": s["time_to_optimum_seconds"],
        "search_peak_bytes": s["peak_memory_bytes"],
    }


def configurations(ablations):
    """Return ``(label, paper row or {}, job kwargs)`` for every benchmark run."""
    set_a = {"name": RULES, "drop": "current-charge-degree"}
    rows = [
        ("COMPAS, Feature Set A (M≈119), λ=0.005", PAPER_TABLE_4["full"], {**set_a, "regularization": 0.005}),
        ("COMPAS, Feature Set A, λ=0.01", {}, {**set_a, "regularization": 0.01}),
        ("COMPAS, CORELS' 155 antecedents, λ=0.005", {}, {"name": RULES, "regularization": 0.005}),
        ("COMPAS, CORELS' 155 antecedents, λ=0.01", {}, {"name": RULES, "regularization": 0.01}),
        ("COMPAS, CORELS' 155 antecedents, λ=0.02", {}, {"name": RULES, "regularization": 0.02}),
    ]
    if ablations:
        for label, params in ABLATIONS.items():
            rows.append(
                (
                    f"COMPAS Set A, λ=0.005, {label}",
                    PAPER_TABLE_4[label],
                    {**set_a, "regularization": 0.005, "params": params},
                )
            )
    for name in (
        "monk1.csv",
        "monk2.csv",
        "monk3.csv",
        "car-evaluation.csv",
        "tic-tac-toe.csv",
        "compas-corels-binary.csv",
        "hypothyroid.csv",
    ):
        rows.append((f"{name}, given columns, λ=0.01", {}, {"name": name, "regularization": 0.01}))
    for name, binarize in (
        ("compas-osdt-binary.csv", "none"),
        ("compas-corels-binary.csv", "none"),
        ("hypothyroid.csv", "none"),
        ("monk1.csv", "none"),
        ("monk3.csv", "none"),
        ("compas-gosdt.csv", "quantile:4"),
    ):
        rows.append(
            (
                f"{name}, mined ({binarize}), λ=0.01",
                {},
                {"name": name, "regularization": 0.01, "antecedents": "mined", "binarize": binarize},
            )
        )
    return rows


COLUMNS = [
    ("label", "configuration", None),
    ("status", "status", None),
    ("objective", "objective", "{:.5f}"),
    ("antecedents", "M", None),
    ("solve_seconds", "wall s", "{:.2f}"),
    ("cpu_seconds", "CPU s", "{:.2f}"),
    ("compile_seconds", "compile s", "{:.2f}"),
    ("lower_bound_evaluations", "LB evaluations", "{:,}"),
    ("queue_insertions", "insertions", "{:,}"),
    ("max_queue_size", "max queue", "{:,}"),
    ("max_evaluated_prefix_length", "max len", None),
    ("peak_mb", "peak MB", "{:.0f}"),
    ("paper_minutes", "paper min", None),
    ("paper_evaluations_m", "paper LB evals (M)", None),
    ("paper_insertions_m", "paper insertions (M)", None),
    ("paper_queue_m", "paper max queue (M)", None),
    ("ratio", "wall / paper", "{:.3f}"),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ablations", action="store_true", help="also run Table 4's ablations (slow)")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per run")
    args = parser.parse_args(argv)
    rows = []
    for label, paper, kwargs in configurations(args.ablations):
        load_before = os.getloadavg()[0]
        out = run_isolated("bench.corels:job", timeout=args.time_limit + 120, time_limit=args.time_limit, **kwargs)
        out.update(label=label, load_average=round(load_before, 2), **paper, config=kwargs)
        if out.get("search_peak_bytes") is not None:
            out["peak_mb"] = out["peak_rss_bytes"] / 2**20
        if paper and out.get("solve_seconds"):
            out["ratio"] = out["solve_seconds"] / (60 * paper["paper_minutes"])
        rows.append(out)
        print(
            f"{label}: {out.get('status') or out.get('error')} {out.get('solve_seconds', 0):.2f}s "
            f"(load {load_before:.1f})",
            file=sys.stderr,
            flush=True,
        )
    path = write_results("corels", rows)
    print(markdown_table(rows, COLUMNS))
    print(f"\nraw results: {path}; load average at start of each run is in the JSON.")


if __name__ == "__main__":
    main()
