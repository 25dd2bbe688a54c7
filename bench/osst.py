"""OSST benchmark: ours against the ``osst`` 0.1.8 package on the same binary survival data.

Each fit runs in a fresh process (``bench/harness.py``; ``osst`` can crash on
a second fit in one process). Ours reports compile time separately; both
report the wall time of the fit call. ``osst``'s ``depth_budget`` is our
``max_depth + 1`` (it counts a lone root as depth 1).

    .venv/bin/python -m bench.osst [--quick]
"""

from __future__ import annotations

import argparse
import subprocess
import time

from bench.harness import markdown_table, run_isolated, write_results
from conftest import shared_dataset


# (dataset, max_depth, λ, min leaf): the spec's §7.8 oracles on the shared files, then heavier searches.
CASES = [
    ("veterans", 3, 0.001, 1),
    ("veterans", 4, 0.0025, 1),
    ("veterans", 4, 0.0025, 7),
    ("veterans", 5, 0.001, 1),
    ("gbsg2", 2, 0.001, 7),
    ("gbsg2", 3, 0.0005, 7),
    ("gbsg2", 4, 0.0005, 7),
    ("whas500", 2, 0.001, 7),
    ("whas500", 3, 0.001, 7),
    ("whas500", 4, 0.001, 7),
    ("veterans", 6, 0.001, 1),
    ("gbsg2", 5, 0.0005, 7),
    ("whas500", 5, 0.001, 7),
]
QUICK = CASES[:3] + CASES[4:6] + CASES[7:8]


def path_of(name):
    return str(shared_dataset(f"{name}-surv.csv"))


def reference_fit(path, max_depth, regularization, min_samples_leaf, time_limit=None):
    """Fit ``osst`` on a binary survival CSV (features, then time, event); return its numbers and leaves."""
    import contextlib
    import io

    import pandas as pd
    from osst.model.osst import OSST

    df = pd.read_csv(path)
    X = df.iloc[:, :-2]
    time_ = pd.DataFrame(df["time"].to_numpy())
    event = pd.DataFrame(df["event"].to_numpy().astype(int))
    config = {
        "regularization": regularization,
        "depth_budget": max_depth + 1,
        "minimum_captured_points": min_samples_leaf,
    }
    if time_limit:
        config["time_limit"] = time_limit
    model = OSST(config)
    t0, c0 = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        model.fit(X, event, time_)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "objective": float(model.ub),
        "lower_bound": float(model.lb),
        "loss": float(model.reported_loss),
        "leaves": int(model.leaves()),
        "leaf_of_row": [int(v) for v in model.predict(X)],
        "fit_seconds": wall,
        "cpu_seconds": cpu,
        "reported_seconds": float(model.time),
        "timeout": bool(model.timeout),
    }


def ours_fit(path, max_depth, regularization, min_samples_leaf, time_limit=None):
    """Fit our OSST on the same CSV; return objective, leaves, fit and compile seconds."""
    from solver.api import Limits, solve, warm
    from solver.data import Roles, make_problem, read_file

    problem = make_problem(read_file(path), Roles(time="time", event="event"), "none")
    compile_seconds = warm("osst")
    params = {"max_depth": max_depth, "regularization": regularization, "min_samples_leaf": min_samples_leaf}
    t0, c0 = time.perf_counter(), time.process_time()
    result = solve(problem, "osst", params, Limits(time_limit=time_limit))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "status": result.status,
        "leaves": result.model.n_leaves,
        "fit_seconds": wall,
        "cpu_seconds": cpu,
        "solve_seconds": result.stats["solve_seconds"],
        "compile_seconds": compile_seconds,
        "subproblems": result.stats["subproblems"],
        "ibs_ratio": result.metrics.get("ibs_ratio"),
    }


def run_case(name, depth, lam, m, time_limit):
    ref = run_isolated(
        "bench.osst:reference_fit",
        timeout=time_limit + 60,
        path=path_of(name),
        max_depth=depth,
        regularization=lam,
        min_samples_leaf=m,
        time_limit=time_limit,
    )
    ours = run_isolated(
        "bench.osst:ours_fit",
        timeout=time_limit + 120,
        path=path_of(name),
        max_depth=depth,
        regularization=lam,
        min_samples_leaf=m,
        time_limit=time_limit,
    )
    row = {
        "dataset": name,
        "max_depth": depth,
        "regularization": lam,
        "min_leaf": m,
        "ours_seconds": ours.get("fit_seconds"),
        "ours_cpu": ours.get("cpu_seconds"),
        "ours_compile": ours.get("compile_seconds"),
        "ref_cpu": ref.get("cpu_seconds"),
        "ours_memory_mb": ours.get("peak_rss_bytes", 0) / 2**20,
        "ours_objective": ours.get("objective"),
        "leaves": ours.get("leaves"),
        "ratio_ibs": ours.get("ibs_ratio"),
        "ref_seconds": ref.get("fit_seconds"),
        "ref_memory_mb": ref.get("peak_rss_bytes", 0) / 2**20,
        "ref_objective": ref.get("objective"),
        "errors": [e for e in (ours.get("error"), ref.get("error")) if e],
    }
    if row["ours_seconds"] and row["ref_seconds"]:
        row["ratio"] = row["ours_seconds"] / row["ref_seconds"]
    if row["ours_cpu"] and row["ref_cpu"]:
        row["cpu_ratio"] = row["ours_cpu"] / row["ref_cpu"]
    return row


COLUMNS = [
    ("dataset", "data", None),
    ("max_depth", "depth", None),
    ("regularization", "λ", "{:g}"),
    ("min_leaf", "m", None),
    ("leaves", "leaves", None),
    ("ours_objective", "objective (ours)", "{:.6f}"),
    ("ref_objective", "objective (osst, f32)", "{:.6f}"),
    ("ours_seconds", "ours s", "{:.4f}"),
    ("ours_compile", "ours compile s", "{:.2f}"),
    ("ref_seconds", "osst s", "{:.4f}"),
    ("ratio", "ratio", "{:.3f}"),
    ("ours_cpu", "ours CPU s", "{:.4f}"),
    ("ref_cpu", "osst CPU s", "{:.4f}"),
    ("cpu_ratio", "CPU ratio", "{:.3f}"),
    ("ours_memory_mb", "ours MB", "{:.0f}"),
    ("ref_memory_mb", "osst MB", "{:.0f}"),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the fast cases")
    parser.add_argument(
        "--case",
        action="append",
        metavar="DATA:DEPTH:LAMBDA:MIN_LEAF",
        help="run only these cases, e.g. whas500:5:0.001:7",
    )
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args(argv)
    cases = QUICK if args.quick else CASES
    if args.case:
        cases = [(d, int(k), float(lam), int(m)) for d, k, lam, m in (c.split(":") for c in args.case)]
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    rows = [run_case(*case, args.time_limit) for case in cases]
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    if not args.case:
        write_results("osst", {"load_before": load_before, "load_after": load_after, "rows": rows})
    print(markdown_table(rows, COLUMNS))
    print(f"\nuptime before: {load_before}\nuptime after: {load_after}")
    for row in rows:
        if row["errors"]:
            print(f"{row['dataset']} depth {row['max_depth']}: {'; '.join(row['errors'])}")


if __name__ == "__main__":
    main()
