"""Anytime contract: how long past its time limit, and past a cancel, each algorithm takes to return.

    PYTHONPATH=$PWD .venv/bin/python -m bench.anytime [--time-limit 2] [--cancel-after 1] [--only NAME ...]

For every case (an algorithm, or one of its searches, on an input far too large to finish) it warms the
kernels (compilation is not counted), then

* solves with ``time_limit`` T and reports the wall time of the whole ``solve`` call (search set-up, the
  driver's loop, the final model and its metrics) and its overshoot past T;
* solves again without a limit and cancels from another thread after ``cancel_after`` seconds (the way the
  web's supervisor does: ``on_progress`` returns False once a flag is set), and reports the time from the
  cancel to the return of ``solve``.

The binarization of the raw table (``make_problem``) happens before a run's clock starts; its time is
reported separately. One process runs the cases one after another (no timing assertions: a benchmark).
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time

from bench.harness import markdown_table, shared_dataset, write_results


# name, algorithm, file, roles, binarization, params
CASES = [
    (
        "corels",
        "corels",
        "compas-corels-rules.csv",
        {"label": "recidivate-within-two-years"},
        "exact",
        {"regularization": 0.00001, "antecedents": "given"},
    ),
    ("corels (eeg, mined)", "corels", "eeg.csv", {"label": "label"}, "quantile:32", {"regularization": 0.00001}),
    (
        "osdt",
        "osdt",
        "compas-corels-rules.csv",
        {"label": "recidivate-within-two-years"},
        "exact",
        {"regularization": 0.00001},
    ),
    ("osdt (eeg)", "osdt", "eeg.csv", {"label": "label"}, "quantile:16", {"regularization": 0.00001}),
    (
        "gosdt dpb (binary)",
        "gosdt",
        "eeg.csv",
        {"label": "label"},
        "quantile:64",
        {"regularization": 0.00001, "threshold_search": "binary"},
    ),
    (
        "gosdt dpb (ordered)",
        "gosdt",
        "eeg.csv",
        {"label": "label"},
        "exact",
        {"regularization": 0.00001, "max_depth": 6, "threshold_search": "ordered"},
    ),
    (
        "gosdt rank (f1)",
        "gosdt",
        "eeg.csv",
        {"label": "label"},
        "quantile:16",
        {"objective": "f1", "regularization": 0.00001},
    ),
    (
        "gosdt rank (auc)",
        "gosdt",
        "compas-corels-rules.csv",
        {"label": "recidivate-within-two-years"},
        "exact",
        {"objective": "auc", "regularization": 0.00001},
    ),
    (
        "streed binary",
        "streed",
        "eeg.csv",
        {"label": "label"},
        "quantile:32",
        {"max_depth": 6, "threshold_search": "binary"},
    ),
    (
        "streed binary (bank exact d3)",
        "streed",
        "bank.csv",
        {"label": "label"},
        "exact",
        {"max_depth": 3, "threshold_search": "binary"},
    ),
    (
        "streed binary (bank exact d3, f1)",
        "streed",
        "bank.csv",
        {"label": "label"},
        "exact",
        {"max_depth": 3, "objective": "f1"},
    ),
    (
        "streed binary (bank exact d3, cost-sensitive)",
        "streed",
        "bank.csv",
        {"label": "label"},
        "exact",
        {
            "max_depth": 3,
            "objective": "cost_sensitive",
            "misclassification_costs": "0 1; 5 0",
            "threshold_search": "binary",
        },
    ),
    (
        "streed ordered",
        "streed",
        "eeg.csv",
        {"label": "label"},
        "exact",
        {"max_depth": 5, "threshold_search": "ordered"},
    ),
    (
        "streed ordered (segment d4)",
        "streed",
        "segment.csv",
        {"label": "label"},
        "exact",
        {"max_depth": 4, "threshold_search": "ordered"},
    ),
    (
        "osst",
        "osst",
        "whas500-surv.csv",
        {"time": "time", "event": "event"},
        "exact",
        {"regularization": 0.00001, "max_depth": 8},
    ),
    ("cart", "cart", "eeg.csv", {"label": "label"}, "exact", {}),
    ("cart (unlimited depth)", "cart", "eeg.csv", {"label": "label"}, "exact", {"max_depth": None}),
    ("osdt (eeg, exact)", "osdt", "eeg.csv", {"label": "label"}, "exact", {"regularization": 0.00001}),
    (
        "gosdt dpb (binary, exact)",
        "gosdt",
        "eeg.csv",
        {"label": "label"},
        "exact",
        {"regularization": 0.00001, "threshold_search": "binary"},
    ),
    (
        "gosdt rank (f1, exact)",
        "gosdt",
        "eeg.csv",
        {"label": "label"},
        "exact",
        {"objective": "f1", "regularization": 0.00001},
    ),
    ("corels (eeg, exact, mined)", "corels", "eeg.csv", {"label": "label"}, "exact", {"regularization": 0.00001}),
]


def _problem(file, roles, binarization):
    from solver.data import Roles, make_problem, read_file

    table = read_file(shared_dataset(file))
    t0 = time.perf_counter()
    problem = make_problem(table, Roles(**roles), binarization)
    return problem, time.perf_counter() - t0


class _Timed:
    """Record how long the search module's ``make_search`` (the set-up before the driver's loop) takes."""

    def __init__(self, module):
        self.module, self.make_search, self.seconds = module, module.make_search, None

    def __enter__(self):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            out = self.make_search(*args, **kwargs)
            self.seconds = time.perf_counter() - t0
            return out

        self.module.make_search = timed
        return self

    def __exit__(self, *exc):
        self.module.make_search = self.make_search


def measure(case, time_limit, cancel_after):
    import importlib

    from solver import registry
    from solver.api import Limits, solve, warm

    name, algorithm, file, roles, binarization, params = case
    warm(algorithm)
    problem, binarize_seconds = _problem(file, roles, binarization)
    module = importlib.import_module(registry.get(algorithm).search_module)
    with _Timed(module) as setup:
        t0 = time.perf_counter()
        result = solve(problem, algorithm, params, Limits(time_limit=time_limit))
        wall = time.perf_counter() - t0
    row = {
        "case": name,
        "algorithm": algorithm,
        "file": file,
        "binarization": binarization,
        "params": json.dumps(params),
        "features": int(problem.n_features),
        "rows": int(problem.n_samples),
        "binarize_seconds": binarize_seconds,
        "time_limit": time_limit,
        "status": result.status,
        "wall_seconds": wall,
        "overshoot": wall - time_limit,
        "solve_seconds": result.stats["solve_seconds"],
        "setup_seconds": setup.seconds,
        "after_seconds": wall - setup.seconds - result.stats["solve_seconds"],
        "lower_bound": result.lower_bound,
        "objective": result.objective,
    }
    flag = threading.Event()
    timer = threading.Timer(cancel_after, flag.set)
    t0 = time.perf_counter()
    timer.start()
    cancelled = solve(problem, algorithm, params, on_progress=lambda point: not flag.is_set())
    end = time.perf_counter()
    timer.cancel()
    row["cancel_status"] = cancelled.status
    row["cancel_latency"] = end - t0 - cancel_after if cancelled.status == "cancelled" else None
    row["cancel_wall"] = end - t0
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--cancel-after", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", help="case names (prefixes) to run")
    args = parser.parse_args(argv)
    rows = []
    for case in CASES:
        if args.only and not any(case[0].startswith(p) for p in args.only):
            continue
        try:
            row = measure(case, args.time_limit, args.cancel_after)
        except Exception as e:  # one failing case must not end the benchmark
            row = {"case": case[0], "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(row), flush=True)
        rows.append(row)
    rows[0]["load_average"] = os.getloadavg()
    write_results("anytime", rows)
    print(markdown_table(rows, COLUMNS))


COLUMNS = [
    ("case", "case", "{}"),
    ("file", "file", "{}"),
    ("binarization", "binarization", "{}"),
    ("features", "features", "{}"),
    ("params", "params", "{}"),
    ("binarize_seconds", "binarize s", "{:.2f}"),
    ("status", "status", "{}"),
    ("wall_seconds", "wall s (T=2)", "{:.2f}"),
    ("overshoot", "overshoot s", "{:.2f}"),
    ("setup_seconds", "set-up s", "{:.2f}"),
    ("after_seconds", "after loop s", "{:.2f}"),
    ("cancel_latency", "cancel latency s", "{:.2f}"),
]


if __name__ == "__main__":
    main()
