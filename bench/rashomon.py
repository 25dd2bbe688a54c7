"""Rashomon sets: ours (solver/rashomon) against treefarms 0.2.4 on the same shared binary files.

    .venv/bin/python -m bench.rashomon                 # the grid: ε ∈ {0.01, 0.05}, depth 3–5, 60 s limit each
    .venv/bin/python -m bench.rashomon --quick         # depth 3 and 4 only
    .venv/bin/python -m bench.rashomon --report        # print the table of bench/results/rashomon.json

Each job runs in a fresh process (``bench/harness.py``). Both get the same 0/1 matrix (the shared CSV,
label last), λ = 0.01 and θ = (1 + ε) × the optimum; our ``max_depth`` d is treefarms' ``depth_budget``
d + 1 (it counts the root). For ours, time is the whole ``solve`` (GOSDT's optimum, the set's graph,
then the report: importance, reliance, votes, the stored graph) after compilation, timed apart ("search
s" is the search alone); for treefarms, its ``fit``. Memory is each process's
peak. The ratio is our time / treefarms' time. treefarms' optimum is not always proved (its log says
"Optimality Gap" > 0) and its θ is then 1.05 × an upper bound, so its set is larger: the table says so
("tf θ unproved") instead of comparing counts there (``tests/solver/rashomon/test_treefarms.py`` checks
those counts at treefarms' own θ).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import tempfile
import time
from pathlib import Path

from bench.harness import RESULTS, markdown_table, run_isolated, write_results

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
DATASETS = ("monk1", "monk2", "monk3", "tic-tac-toe", "compas-osdt-binary")
EPSILONS = (0.01, 0.05)
DEPTHS = (3, 4, 5)
LAMBDA = 0.01


def path_of(name):
    path = DATA / f"{name}.csv"
    return path if path.exists() else Path("/work/shared/datasets") / f"{name}.csv"


def load(name):
    """Return the ``Problem`` of a shared binary CSV (0/1 columns, label last)."""
    import numpy as np

    from solver.problem import Problem

    d = np.loadtxt(path_of(name), delimiter=",", skiprows=1, dtype=np.int64)
    return Problem(
        X=d[:, :-1].astype(np.uint8),
        features=[{"kind": "binary", "column": f"c{j}"} for j in range(d.shape[1] - 1)],
        y=d[:, -1],
        classes=["0", "1"],
    )


def run_ours(name, epsilon, depth, time_limit):
    """Find the set with ours; return its exact count (text), status, optimum and times."""
    from solver import Limits, solve
    from solver.api import warm

    problem = load(name)
    compile_seconds = warm("rashomon")
    t0 = time.perf_counter()
    result = solve(
        problem,
        "rashomon",
        {"regularization": LAMBDA, "epsilon": epsilon, "max_depth": depth},
        Limits(time_limit=time_limit),
    )
    seconds = time.perf_counter() - t0  # the search and the report (importance, reliance, votes, stored graph)
    e = result.extras
    return {
        "status": result.status,
        "count": str(e.get("count")),
        "optimum": e.get("optimum"),
        "proved_bound": e.get("proved_bound"),
        "vertices": e.get("vertices"),
        "solve_seconds": seconds,
        "search_seconds": result.stats["solve_seconds"],
        "compile_seconds": compile_seconds,
        "skipped": len(e.get("skipped") or []),
    }


def reference_fit(name, epsilon, depth, time_limit):
    """Find the set with treefarms; return its count (text), the optimum it used, whether it proved it, its time."""
    import pandas as pd
    from treefarms import TREEFARMS

    df = pd.read_csv(path_of(name))
    model = TREEFARMS(
        {
            "regularization": LAMBDA,
            "rashomon_bound_multiplier": epsilon,
            "rashomon_bound_adder": 0,
            "rashomon_bound": 0,
            "depth_budget": depth + 1,
            "time_limit": int(time_limit),
            "verbose": True,
        }
    )
    with tempfile.TemporaryFile(mode="w+") as log:  # treefarms' C++ prints to the process's stdout
        saved = os.dup(1)
        os.dup2(log.fileno(), 1)
        try:
            t0 = time.perf_counter()
            model.fit(df.iloc[:, :-1], df.iloc[:, -1])
            seconds = time.perf_counter() - t0
            count = model.get_tree_count()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        log.seek(0)
        text = log.read()
    optimum = re.search(r"Found Optimal Objective: ([0-9.e-]+)", text)
    return {
        "solve_seconds": seconds,
        "count": str(count),
        "optimum": float(optimum.group(1)) if optimum else None,
        "timeout": bool(model.timeout),
    }


def same_text(row):
    """Whether the counts agree; treefarms' set is at another θ when its optimum is not proved or differs."""
    ours, ref = row.get("count"), row.get("tf_count")
    if row.get("status") != "optimal" or not ref or ref == "None" or row.get("tf_timeout"):
        return None
    if row.get("tf_optimum") is None or abs(row["tf_optimum"] - row["optimum"]) > 5e-6 * max(1.0, row["optimum"]):
        return "tf θ unproved"
    return str(ours == ref)


def ratio_text(row):
    ours, ref = row.get("seconds"), row.get("tf_seconds")
    if not ours or not ref:
        return None
    if row.get("status") != "optimal":
        return f"> {ours / ref:.2f}" if not row.get("tf_timeout") else "neither finished"
    return f"< {ours / ref:.2f} (treefarms stopped)" if row.get("tf_timeout") else f"{ours / ref:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="depth 3 and 4 only")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--datasets", help="comma-separated subset")
    args = parser.parse_args()
    if args.report:
        saved = json.loads((RESULTS / "rashomon.json").read_text())
        return report(saved["cases"], saved)
    load_avg = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    depths = DEPTHS[:2] if args.quick else DEPTHS
    names = args.datasets.split(",") if args.datasets else DATASETS
    rows = []
    for name in names:
        for epsilon in EPSILONS:
            for depth in depths:
                limit = args.time_limit
                ours = run_isolated(
                    "bench.rashomon:run_ours",
                    timeout=limit + 120,
                    name=name,
                    epsilon=epsilon,
                    depth=depth,
                    time_limit=limit,
                )
                ref = run_isolated(
                    "bench.rashomon:reference_fit",
                    timeout=limit + 120,
                    name=name,
                    epsilon=epsilon,
                    depth=depth,
                    time_limit=limit,
                )
                row = {
                    "dataset": name,
                    "epsilon": epsilon,
                    "depth": depth,
                    "status": ours.get("status", ours.get("error")),
                    "count": ours.get("count"),
                    "optimum": ours.get("optimum"),
                    "vertices": ours.get("vertices"),
                    "seconds": ours.get("solve_seconds"),
                    "search": ours.get("search_seconds"),
                    "compile": ours.get("compile_seconds"),
                    "skipped": ours.get("skipped"),
                    "mb": (ours.get("peak_rss_bytes") or 0) / 2**20,
                    "tf_count": ref.get("count"),
                    "tf_optimum": ref.get("optimum"),
                    "tf_timeout": ref.get("timeout") or bool(ref.get("error")),
                    "tf_status": ref.get("error") or ("time limit" if ref.get("timeout") else "done"),
                    "tf_seconds": ref.get("solve_seconds"),
                    "tf_mb": (ref.get("peak_rss_bytes") or 0) / 2**20,
                }
                rows.append(row)
                print(row, flush=True)
    meta = {"load_average": load_avg, "date": started, "time_limit": args.time_limit, "lambda": LAMBDA}
    path = write_results("rashomon", {**meta, "cases": rows})
    report(rows, meta)
    print(f"\nresults in {path}")


def report(rows, meta):
    """Print the date, the load and the markdown table of a run."""
    la = meta["load_average"]
    print(
        f"{meta['date']}, load average at start {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}, λ = {meta['lambda']}, "
        f"limit {meta['time_limit']:g} s per job\n"
    )
    for row in rows:
        row["ratio"] = ratio_text(row)
        row["same"] = same_text(row)
        row["count_text"] = f"{int(row['count']):,}" if (row.get("count") or "None") != "None" else None
        row["tf_count_text"] = f"{int(row['tf_count']):,}" if (row.get("tf_count") or "None") != "None" else None
    print(
        markdown_table(
            rows,
            [
                ("dataset", "dataset", None),
                ("epsilon", "ε", "{:g}"),
                ("depth", "depth", None),
                ("status", "status", None),
                ("count_text", "count (ours)", None),
                ("seconds", "ours s", "{:.2f}"),
                ("search", "search s", "{:.2f}"),
                ("compile", "compile s", "{:.1f}"),
                ("mb", "ours MB", "{:.0f}"),
                ("tf_count_text", "count (treefarms)", None),
                ("tf_status", "treefarms", None),
                ("tf_seconds", "treefarms s", "{:.2f}"),
                ("tf_mb", "treefarms MB", "{:.0f}"),
                ("ratio", "ours/treefarms", None),
                ("same", "same count", None),
            ],
        )
    )


if __name__ == "__main__":
    main()
