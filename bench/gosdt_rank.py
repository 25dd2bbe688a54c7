"""GOSDT's non-additive objectives (F-score, AUC_ch, pAUC_ch): time to certify on the shared binary datasets.

    .venv/bin/python -m bench.gosdt_rank                    # every case, 20 s each
    .venv/bin/python -m bench.gosdt_rank --time-limit 60
    .venv/bin/python -m bench.gosdt_rank --datasets monk1 hypothyroid --objectives auc

Each job runs in a fresh process (``bench/harness.py``): time is the search
after compilation, nodes are the child trees evaluated, and the bound trace
(thinned to at most 200 points) shows the gap closing. Results go to
``bench/results/gosdt_rank.json`` and a markdown table to stdout (the
"GOSDT non-additive objectives" section of ``bench/README.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from bench.harness import markdown_table, run_isolated, write_results

DATASETS = ("hypothyroid", "compas-osdt-binary", "car-evaluation", "tic-tac-toe", "monk1", "monk2", "monk3")
OBJECTIVES = {"f1": {"cost_weight": 1.0}, "auc": {}, "pauc": {"pauc_theta": 0.1}}
LAMBDAS = (0.01, 0.02)
DEPTHS = (3, 4)


def load(name):
    from solver.data import Roles, make_problem, read_file

    from conftest import shared_dataset

    table = read_file(shared_dataset(f"{name}.csv"))
    return make_problem(table, Roles(label=table.names[-1]), "none")


def _thin(trace, points=200):
    n = len(trace.get("elapsed", []))
    keep = range(n) if n <= points else sorted({round(i * (n - 1) / (points - 1)) for i in range(points)})
    return {k: [trace[k][i] for i in keep] for k in ("elapsed", "lower_bound", "upper_bound", "nodes")}


def run_ours(name, objective, lam, depth, time_limit):
    """Solve one case; return status, bounds, time, nodes and the thinned trace."""
    from solver import Limits, solve
    from solver.api import warm

    problem = load(name)
    compile_seconds = warm("gosdt")
    params = {"objective": objective, "regularization": lam, "max_depth": depth, **OBJECTIVES[objective]}
    result = solve(problem, "gosdt", params, Limits(time_limit=time_limit))
    s = result.stats
    return {
        "status": result.status,
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "gap": result.objective - result.lower_bound,
        "leaves": result.model.n_leaves,
        "solve_seconds": s["solve_seconds"],
        "compile_seconds": compile_seconds,
        "nodes": s["nodes"],
        "seconds_to_best": s["seconds_to_optimum"],
        "features": problem.n_features,
        "points": s["distinct_points"],
        "prunes": s["prunes"],
        "trace": _thin(result.trace),
    }


def gap_at(row, seconds):
    """Return the gap (upper − lower bound) the trace shows at ``seconds``, or None."""
    trace = row.get("trace") or {}
    gap = None
    for t, lo, up in zip(trace.get("elapsed", []), trace.get("lower_bound", []), trace.get("upper_bound", [])):
        if t > seconds:
            break
        if lo is not None and up is not None:
            gap = up - lo
    return gap


def table(rows):
    """Return the markdown table of ``rows``, with the gap left at 1 s and 5 s from each trace."""
    for row in rows:
        row["gap_1s"], row["gap_5s"] = gap_at(row, 1.0), gap_at(row, 5.0)
    return markdown_table(rows, COLUMNS)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--objectives", nargs="*", default=list(OBJECTIVES))
    parser.add_argument("--out", default="gosdt_rank")
    parser.add_argument("--table", action="store_true", help="print the table of the stored results and stop")
    args = parser.parse_args(argv)
    if args.table:
        from bench.harness import RESULTS

        print(table(json.loads((RESULTS / f"{args.out}.json").read_text())))
        return
    rows = []
    for name in args.datasets:
        for objective in args.objectives:
            for depth in DEPTHS:
                for lam in LAMBDAS:
                    t0 = time.perf_counter()
                    out = run_isolated(
                        "bench.gosdt_rank:run_ours",
                        timeout=args.time_limit * 3 + 120,
                        name=name,
                        objective=objective,
                        lam=lam,
                        depth=depth,
                        time_limit=args.time_limit,
                    )
                    row = {
                        "dataset": name,
                        "task": objective,
                        "lambda": lam,
                        "depth": depth,
                        "time_limit": args.time_limit,
                        "cpus": os.cpu_count(),
                        **out,
                    }
                    rows.append(row)
                    write_results(args.out, rows)
                    print(
                        json.dumps({k: v for k, v in row.items() if k not in ("trace", "prunes")}),
                        f"({time.perf_counter() - t0:.1f} s)",
                        flush=True,
                    )
    print(table(rows))


COLUMNS = [
    ("dataset", "dataset", "{}"),
    ("task", "objective", "{}"),
    ("lambda", "λ", "{:g}"),
    ("depth", "depth", "{}"),
    ("status", "status", "{}"),
    ("objective", "R (best)", "{:.6f}"),
    ("lower_bound", "lower bound", "{:.6f}"),
    ("gap_1s", "gap at 1 s", "{:.2g}"),
    ("gap_5s", "gap at 5 s", "{:.2g}"),
    ("gap", "final gap", "{:.2g}"),
    ("leaves", "leaves", "{}"),
    ("solve_seconds", "search s", "{:.2f}"),
    ("seconds_to_best", "s to best", "{:.2f}"),
    ("nodes", "trees evaluated", "{:,}"),
]


if __name__ == "__main__":
    main()
