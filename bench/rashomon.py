"""Rashomon sets: ours (solver/rashomon) against arborenum 0.2.6, PRAXIS 0.0.30 and treefarms 0.2.4.

    .venv/bin/python -m bench.rashomon                     # the grid below, 60 s limit per job
    .venv/bin/python -m bench.rashomon --datasets monk3 --depths 3
    .venv/bin/python -m bench.rashomon --report            # print the tables of bench/results/rashomon.json
    .venv/bin/python -m bench.rashomon --builder python --out rashomon-python   # ours with the Python graph builder

Every job runs in a fresh process (``bench/harness.py``), λ = 0.01, ε = 0.05.

**Table 1, arborenum's definition** (``leaf_labels="any"``, trivial extensions kept, integer γ = round(λ·n)):
arborenum runs first with its own θ (``llround(1.05 × a greedy tree's score)``, read from its log);
PRAXIS and ours then get that same integer θ (PRAXIS as ``root_budget``, ours as ``objective_bound``), so
the three count one set. Shared binary files at depths 3–5 on their 0/1 columns; ``bank.csv`` and
``raisin.csv`` (raw numeric) at depths 2–3: arborenum on the raw columns (its own thresholds), PRAXIS and
ours on our exact binarization (one 0/1 feature per midpoint). Times: arborenum's and PRAXIS's ``fit``
(the fastest of up to 5 fits within 2 s: a fit of milliseconds varies by tens of percent);
ours the whole ``solve`` after compilation ("ours s": GOSDT's optimum, the set's graph and the report) and
its search alone ("search s").

**Table 2, treefarms' definition** (our default: majority leaves, no trivial extensions, λ exact): ours
against treefarms on the binary files; treefarms' θ is 1.05 × its own optimum, not always proved ("tf θ
unproved": the counts are then of different sets).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import re
import tempfile
import time

from bench.harness import RESULTS, best_of, markdown_table, run_isolated, shared_dataset, write_results

BINARY = ("monk2", "monk3", "compas-osdt-binary", "tic-tac-toe")
NUMERIC = ("bank", "raisin")
DEPTHS = {"binary": (3, 4, 5), "numeric": (2, 3)}
LAMBDA, EPSILON = 0.01, 0.05
THEIRS = {"leaf_labels": "any", "ignore_trivial_extensions": False, "integer_gamma": True}


def path_of(name):
    return shared_dataset(f"{name}.csv")


def load(name):
    """Return ``(Problem, raw X, y)``: a binary file's own 0/1 columns, a numeric file binarized exactly."""
    import numpy as np

    from solver.data import Roles, make_problem, read_file
    from solver.problem import binary_problem

    if name in NUMERIC:
        problem = make_problem(read_file(path_of(name)), Roles(label="label"))
        d = np.loadtxt(path_of(name), delimiter=",", skiprows=1)
        return problem, d[:, :-1], d[:, -1].astype(np.int64)
    d = np.loadtxt(path_of(name), delimiter=",", skiprows=1, dtype=np.int64)
    return binary_problem(d[:, :-1], d[:, -1]), d[:, :-1], d[:, -1]


@contextlib.contextmanager
def captured():
    """Capture what C++ prints on file descriptor 1; the text is in the yielded list once the block ends."""
    out = []
    with tempfile.TemporaryFile(mode="w+") as log:
        saved = os.dup(1)
        os.dup2(log.fileno(), 1)
        try:
            yield out
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            log.seek(0)
            out.append(log.read())


def reference_fit(tool, name, depth, budget=None):
    """Fit arborenum or PRAXIS at their definition; return its count (text), θ (integer score) and ``fit`` time."""
    import numpy as np

    from arborenum import ArborEnum
    from praxis import PRAXIS

    problem, X_raw, y = load(name)

    def fit():
        if tool == "arborenum":
            model = ArborEnum()
            if name in NUMERIC:  # its own search on the raw columns
                model.fit(X_raw, y, lambda_reg=LAMBDA, depth_budget=depth, rashomon_mult=EPSILON, root_budget=budget)
            else:
                model.fit_binarized(
                    X_raw.astype(np.uint8),
                    y,
                    lambda_reg=LAMBDA,
                    depth_budget=depth,
                    rashomon_mult=EPSILON,
                    root_budget=budget,
                )
        else:
            model = PRAXIS()
            model.fit(
                np.asarray(problem.X, dtype=np.uint8),
                np.asarray(problem.y),
                lambda_reg=LAMBDA,
                depth_budget=depth,
                rashomon_mult=EPSILON,
                root_budget=budget,
            )
        return model

    with captured() as log:
        model, seconds, first = best_of(fit, repeats=5, budget=2.0)  # the fastest of up to 5 fits within 2 s
        count = model.count_trees()
    bound = re.search(r"Objective bound(?: \(user-set\))?: (\d+)", log[0])
    return {"count": str(count), "seconds": seconds, "first": first, "bound": int(bound.group(1)) if bound else budget}


def ours_fit(name, depth, time_limit, budget=None, definition="theirs", builder="kernels"):
    """Find the set with ours at arborenum's definition (θ = ``budget``, an integer score) or at our default.

    ``builder="python"``: the set's graph is built by the Python builder (``graph.Builder``, the code before the
    kernels) instead of the kernels (``graph.KernelBuilder``), for a before/after comparison on the same code.
    """
    from solver import Limits, solve
    from solver.api import warm

    problem, _, _ = load(name)
    compile_seconds = warm("rashomon")
    if builder == "python":  # after the warm-up, which runs the kernels
        from solver.rashomon import search

        search.KernelBuilder = search.Builder
    params = {"regularization": LAMBDA, "epsilon": EPSILON, "max_depth": depth}
    if definition == "theirs":
        params.update(THEIRS, objective_bound=budget / problem.n_samples)  # rounds back to ``budget``
    t0 = time.perf_counter()
    result = solve(problem, "rashomon", params, Limits(time_limit=time_limit))
    seconds = time.perf_counter() - t0
    e = result.extras
    return {
        "status": result.status,
        "count": str(e.get("count")),
        "optimum": e.get("optimum"),
        "bound": None if e.get("theta") is None else round(e["theta"] * problem.n_samples),
        "seconds": seconds,
        "search_seconds": result.stats["solve_seconds"],
        "compile_seconds": compile_seconds,
        "features": int(problem.n_features),
    }


def treefarms_fit(name, depth, time_limit):
    """Find the set with treefarms (``depth_budget`` = our depth + 1); return its count, optimum, time."""
    import pandas as pd
    from treefarms import TREEFARMS

    df = pd.read_csv(path_of(name))
    config = {"regularization": LAMBDA, "rashomon_bound_multiplier": EPSILON, "rashomon_bound_adder": 0}
    config.update(rashomon_bound=0, depth_budget=depth + 1, time_limit=int(time_limit), verbose=True)
    model = TREEFARMS(config)
    with captured() as log:
        t0 = time.perf_counter()
        model.fit(df.iloc[:, :-1], df.iloc[:, -1])
        seconds = time.perf_counter() - t0
        count = model.get_tree_count()
    optimum = re.search(r"Found Optimal Objective: ([0-9.e-]+)", log[0])
    return {
        "seconds": seconds,
        "count": str(count),
        "optimum": float(optimum.group(1)) if optimum else None,
        "timeout": bool(model.timeout),
    }


def case_theirs(name, depth, limit, builder="kernels"):
    """One row of table 1: arborenum (its θ), then PRAXIS and ours at that θ."""
    timeout = limit + 120
    a = run_isolated("bench.rashomon:reference_fit", timeout=timeout, tool="arborenum", name=name, depth=depth)
    row = {"dataset": name, "depth": depth, "theta": a.get("bound"), "a_count": a.get("count")}
    row.update(a_seconds=a.get("seconds"), a_error=a.get("error"))
    if a.get("bound") is None:
        return row
    p = run_isolated(
        "bench.rashomon:reference_fit", timeout=timeout, tool="praxis", name=name, depth=depth, budget=a["bound"]
    )
    o = run_isolated(
        "bench.rashomon:ours_fit",
        timeout=timeout,
        name=name,
        depth=depth,
        time_limit=limit,
        budget=a["bound"],
        builder=builder,
    )
    row.update(p_count=p.get("count"), p_seconds=p.get("seconds"), p_error=p.get("error"))
    row.update({f"o_{k}": o.get(k) for k in ("status", "count", "seconds", "search_seconds", "features", "error")})
    row["o_mb"] = (o.get("peak_rss_bytes") or 0) / 2**20
    return row


def case_treefarms(name, depth, limit):
    """One row of table 2: ours at our default definition against treefarms."""
    timeout = limit + 120
    o = run_isolated(
        "bench.rashomon:ours_fit", timeout=timeout, name=name, depth=depth, time_limit=limit, definition="ours"
    )
    t = run_isolated("bench.rashomon:treefarms_fit", timeout=timeout, name=name, depth=depth, time_limit=limit)
    row = {"dataset": name, "depth": depth}
    row.update({f"o_{k}": o.get(k) for k in ("status", "count", "optimum", "seconds", "search_seconds", "error")})
    row.update({f"t_{k}": t.get(k) for k in ("count", "optimum", "seconds", "timeout", "error")})
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--datasets", help="comma-separated subset")
    parser.add_argument("--depths", help="comma-separated subset")
    parser.add_argument("--no-treefarms", action="store_true")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--builder", choices=("kernels", "python"), default="kernels", help="how ours builds the graph")
    parser.add_argument("--out", default="rashomon", help="results file: bench/results/OUT.json")
    args = parser.parse_args()
    if args.report:
        return report(json.loads((RESULTS / f"{args.out}.json").read_text()))
    meta = {
        "load_average": os.getloadavg(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "time_limit": args.time_limit,
        "builder": args.builder,
    }
    names = args.datasets.split(",") if args.datasets else BINARY + NUMERIC
    theirs, farms = [], []
    for name in names:
        depths = DEPTHS["numeric" if name in NUMERIC else "binary"]
        for depth in [int(d) for d in args.depths.split(",")] if args.depths else depths:
            theirs.append(case_theirs(name, depth, args.time_limit, args.builder))
            print(theirs[-1], flush=True)
            if name in BINARY and not args.no_treefarms:
                farms.append(case_treefarms(name, depth, args.time_limit))
                print(farms[-1], flush=True)
    meta["load_average_end"] = os.getloadavg()
    saved = {**meta, "theirs": theirs, "treefarms": farms}
    path = write_results(args.out, saved)
    report(saved)
    print(f"\nresults in {path}")


def _ratio(ours, fastest):
    return None if not ours or not fastest else ours / fastest


def report(saved):
    """Print the date, the load and the two markdown tables of a run."""
    la, end = saved["load_average"], saved.get("load_average_end") or saved["load_average"]
    print(
        f"{saved['date']}, load average {la[0]:.2f} at start, {end[0]:.2f} at the end; λ = {LAMBDA}, ε = {EPSILON}, "
        f"limit {saved['time_limit']:g} s per job; ours' graph built by {saved.get('builder', 'python')}\n"
    )
    for row in saved["theirs"]:
        counts = {row.get("a_count"), row.get("p_count"), row.get("o_count")}
        finished = row.get("o_status") == "optimal"
        row["same"] = None if not finished else ("yes" if len(counts) == 1 else "no")
        times = [t for t in (row.get("a_seconds"), row.get("p_seconds")) if t]
        row["ratio"] = _ratio(row.get("o_search_seconds"), min(times) if times else None) if finished else None
        row["o_text"] = row.get("o_count") if finished else f"{row.get('o_status') or row.get('o_error')}"
    print(
        markdown_table(
            saved["theirs"],
            [
                ("dataset", "dataset", None),
                ("depth", "depth", None),
                ("theta", "θ (score)", None),
                ("o_features", "0/1 features", None),
                ("a_count", "arborenum", None),
                ("p_count", "PRAXIS", None),
                ("o_text", "ours", None),
                ("same", "same count", None),
                ("a_seconds", "arborenum s", "{:.3f}"),
                ("p_seconds", "PRAXIS s", "{:.3f}"),
                ("o_search_seconds", "ours search s", "{:.2f}"),
                ("o_seconds", "ours s", "{:.2f}"),
                ("ratio", "ours search / fastest", "{:.1f}"),
                ("o_mb", "ours MB", "{:.0f}"),
            ],
        )
    )
    if saved.get("treefarms"):
        for row in saved["treefarms"]:
            tf, ours = row.get("t_optimum"), row.get("o_optimum")
            proved = tf is not None and ours is not None and abs(tf - ours) <= 5e-6 * max(1.0, ours)
            row["same"] = str(row.get("o_count") == row.get("t_count")) if proved else "tf θ unproved"
            row["ratio"] = (
                _ratio(row.get("o_seconds"), row.get("t_seconds")) if row.get("o_status") == "optimal" else None
            )
        print()
        print(
            markdown_table(
                saved["treefarms"],
                [
                    ("dataset", "dataset", None),
                    ("depth", "depth", None),
                    ("o_status", "ours", None),
                    ("o_count", "count (ours)", None),
                    ("t_count", "count (treefarms)", None),
                    ("same", "same count", None),
                    ("o_search_seconds", "ours search s", "{:.2f}"),
                    ("o_seconds", "ours s", "{:.2f}"),
                    ("t_seconds", "treefarms s", "{:.2f}"),
                    ("ratio", "ours / treefarms", "{:.2f}"),
                ],
            )
        )


if __name__ == "__main__":
    main()
