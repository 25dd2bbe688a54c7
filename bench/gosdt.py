"""GOSDT (our DPB) against the gosdt package (1.0.4) on the same binarized data.

    .venv/bin/python -m bench.gosdt                 # the full grid, 60 s limit each (hypothyroid: 900 s)
    .venv/bin/python -m bench.gosdt --quick         # the CI subset
    .venv/bin/python -m bench.gosdt --report        # print the tables of bench/results/gosdt.json

Each job runs in a fresh process (``bench/harness.py``). Both solvers get the
same 0/1 matrix: our exact binarization (a threshold at every midpoint) of the
shared CSV. For ours, time is the search after compilation (compilation is
timed apart) and memory the process peak; for gosdt, time is its ``fit`` and
memory its process peak. The ratio is our time / gosdt's time.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from bench.harness import RESULTS, markdown_table, run_isolated, shared_dataset, write_results

DATASETS = ("monk1", "monk2", "monk3", "tic-tac-toe", "car-evaluation", "compas-gosdt")
LAMBDAS = (0.005, 0.01, 0.02)
DEPTHS = (3, 4, 5)
QUICK = [(name, lam, depth) for name in DATASETS for lam in (0.01, 0.02) for depth in (3, 4)]
CERTIFY = [("hypothyroid", 0.005, 5)]
CERTIFY_SECONDS = 900


def load(name):
    """Return the problem of a shared CSV (label last), binarized exactly."""
    from solver.data import Roles, make_problem, read_file

    path = shared_dataset(f"{name}.csv")
    table = read_file(path)
    return make_problem(table, Roles(label=table.names[-1]), "exact")


def run_ours(name, lam, depth, time_limit, objective="accuracy", params=None):
    """Solve with our GOSDT; return time, bounds, graph size and the tree's leaves."""
    from solver import Limits, solve
    from solver.api import warm

    problem = load(name)
    compile_seconds = warm("gosdt")
    result = solve(
        problem,
        "gosdt",
        {"objective": objective, "regularization": lam, "max_depth": depth, **(params or {})},
        Limits(time_limit=time_limit),
    )
    s = result.stats
    return {
        "status": result.status,
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "leaves": result.model.n_leaves,
        "solve_seconds": s["solve_seconds"],
        "compile_seconds": compile_seconds,
        "graph_size": s["subproblems"],
        "expansions": s["expansions"],
        "features": problem.n_features,
        "points": s["equivalent_points"],
    }


def reference_fit(name, lam, depth, time_limit, balance=False):
    """Solve with the gosdt package on our binarized matrix; return its time, bounds and leaves."""
    import pandas as pd
    from gosdt import GOSDTClassifier

    problem = load(name)
    X = pd.DataFrame(problem.X, columns=[f"x{j}" for j in range(problem.n_features)])
    clf = GOSDTClassifier(
        regularization=lam, allow_small_reg=True, depth_budget=depth, balance=balance, time_limit=int(time_limit)
    )
    t0 = time.perf_counter()
    clf.fit(X, problem.y)
    seconds = time.perf_counter() - t0
    model = json.loads(clf.result_.model) if clf.result_.model else None
    leaves = sum(1 for _ in _leaves(model[0])) if model else None
    return {
        "solve_seconds": seconds,
        "objective": float(clf.result_.upperbound),
        "lower_bound": float(clf.result_.lowerbound),
        "status": str(clf.result_.status),
        "leaves": leaves,
        "graph_size": int(clf.result_.graph_size),
    }


def _leaves(node):
    if "prediction" in node:
        yield node
        return
    yield from _leaves(node["true"])
    yield from _leaves(node["false"])


def agree_text(row):
    """Same optimum when both proved it; otherwise whether our tree is at least as good as gosdt's incumbent."""
    ours, ref = row.get("objective"), row.get("gosdt_objective")
    if ours is None or ref is None:
        return None
    if row.get("status") == "optimal" and row.get("gosdt_lower") == ref:
        return str(abs(ours - ref) < 1e-6)
    return "ours ≤ gosdt's" if ours <= ref + 1e-6 else "gosdt's better"


def ratio_text(row):
    ours, ref = row.get("seconds"), row.get("gosdt_seconds")
    if not ours or not ref:
        return None
    ref_proved = row.get("gosdt_lower") == row.get("gosdt_objective")
    if row.get("status") == "optimal":
        return f"{ours / ref:.2f}" if ref_proved else f"< {ours / ref:.2f} (gosdt stopped)"
    return f"> {ours / ref:.2f}" if ref_proved else "neither proved"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the CI subset")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--datasets", help="comma-separated subset; its rows replace those in the saved results")
    args = parser.parse_args()
    if args.report:
        return report(json.loads((RESULTS / "gosdt.json").read_text())["cases"])
    load_avg = os.getloadavg()
    cases = QUICK if args.quick else [(n, lam, d) for n in DATASETS for lam in LAMBDAS for d in DEPTHS]
    cases += CERTIFY
    if args.datasets:
        cases = [case for case in cases if case[0] in args.datasets.split(",")]
    rows = []
    for name, lam, depth in cases:
        limit = max(args.time_limit, CERTIFY_SECONDS) if (name, lam, depth) in CERTIFY else args.time_limit
        ours = run_isolated(
            "bench.gosdt:run_ours", timeout=limit + 300, name=name, lam=lam, depth=depth, time_limit=limit
        )
        ref = run_isolated(
            "bench.gosdt:reference_fit", timeout=limit + 300, name=name, lam=lam, depth=depth, time_limit=limit
        )
        row = {
            "dataset": name,
            "lambda": lam,
            "depth": depth,
            "features": ours.get("features"),
            "points": ours.get("points"),
            "status": ours.get("status", ours.get("error")),
            "objective": ours.get("objective"),
            "lower": ours.get("lower_bound"),
            "leaves": ours.get("leaves"),
            "seconds": ours.get("solve_seconds"),
            "compile": ours.get("compile_seconds"),
            "graph": ours.get("graph_size"),
            "mb": (ours.get("peak_rss_bytes") or 0) / 2**20,
            "gosdt_seconds": ref.get("solve_seconds"),
            "gosdt_objective": ref.get("objective"),
            "gosdt_lower": ref.get("lower_bound"),
            "gosdt_graph": ref.get("graph_size"),
            "gosdt_status": ref.get("status", ref.get("error")),
            "gosdt_mb": (ref.get("peak_rss_bytes") or 0) / 2**20,
        }
        rows.append(row)
        print(row, flush=True)
    if args.datasets:  # keep the other rows of the saved run
        done = {(r["dataset"], r["lambda"], r["depth"]) for r in rows}
        saved = json.loads((RESULTS / "gosdt.json").read_text())["cases"]
        rows = [r for r in saved if (r["dataset"], r["lambda"], r["depth"]) not in done] + rows
    path = write_results("gosdt", {"load_average": load_avg, "time_limit": args.time_limit, "cases": rows})
    print(f"\nload average at start: {load_avg[0]:.2f} {load_avg[1]:.2f} {load_avg[2]:.2f}; results in {path}\n")
    report(rows)


def report(rows):
    """Print the markdown table of a run."""
    for row in rows:
        row["ratio"] = ratio_text(row)
        row["agree"] = agree_text(row)
    print(
        markdown_table(
            rows,
            [
                ("dataset", "dataset", None),
                ("lambda", "λ", "{:g}"),
                ("depth", "depth", None),
                ("features", "features", None),
                ("status", "status", None),
                ("objective", "R (ours)", "{:.6f}"),
                ("lower", "lower", "{:.6f}"),
                ("leaves", "leaves", None),
                ("seconds", "ours s", "{:.3f}"),
                ("compile", "compile s", "{:.1f}"),
                ("graph", "graph", "{:,}"),
                ("mb", "ours MB", "{:.0f}"),
                ("gosdt_seconds", "gosdt s", "{:.3f}"),
                ("gosdt_lower", "gosdt lower", "{:.6f}"),
                ("gosdt_graph", "gosdt graph", "{:,}"),
                ("gosdt_mb", "gosdt MB", "{:.0f}"),
                ("ratio", "ours/gosdt", None),
                ("agree", "same R*", None),
            ],
        )
    )


if __name__ == "__main__":
    main()
