"""Anytime quality on the shared numeric files: the best tree and the lower bound at 1, 10 and 60 s.

Training misclassifications (fewer is better) of the best depth-D tree each tool holds after 1, 10 and 60
seconds, on ``../shared/datasets`` at depths 4 and 5, for

* ours: STreeD accuracy over every threshold (the ordered search with its helper searches,
  ``solver/ordered/anytime.py``), one run of the longest limit read from its trace (upper and lower bound
  at each moment), and its proved lower bound;
* ``pytrees-rs`` 2.0.0 (``pytrees.ConTreeClassifier``), in its anytime mode (``fit_anytime``: limited-discrepancy
  passes, every improvement reported with its time: one run) and its default mode (one run per limit);
* ConTree (``pycontree`` 1.0.8), one run per limit.

The other tools report no lower bound. Each run is a fresh process (``bench/harness.py``); the machine is shared,
so the load average is recorded beside the table.

    PYTHONPATH=$PWD .venv/bin/python -m bench.anytime_quality [--case eeg:4 ...] [--limits 1 10 60]

``pytrees-rs`` is a dev dependency; where it is not importable its columns say so.
"""

from __future__ import annotations

import argparse
import os

from bench.harness import markdown_table, run_isolated, write_results
from conftest import shared_dataset

FILES = ("bank", "raisin", "rice", "wilt", "occupancy", "segment", "page", "eeg")
CASES = [(f, d) for d in (4, 5) for f in FILES]
LIMITS = (1.0, 10.0, 60.0)


def _frame(name):
    import pandas as pd

    frame = pd.read_csv(shared_dataset(f"{name}.csv"))
    X = frame.drop(columns=["label"]).to_numpy(dtype=float)
    _, y = __import__("numpy").unique(frame["label"].to_numpy(), return_inverse=True)
    return X, y


def _at(points, limit):
    """Return the least value among ``(seconds, value)`` points reached by ``limit`` seconds, else None."""
    seen = [v for t, v in points if t <= limit and v is not None]
    return min(seen) if seen else None


def ours(name, depth, limits):
    """Our STreeD run of the longest limit: (errors, lower bound) at each limit, from its trace."""
    from solver.api import Limits, solve, warm
    from solver.data import Roles, make_problem, read_file

    warm("streed")
    problem = make_problem(read_file(shared_dataset(f"{name}.csv")), Roles(label="label"))
    n = problem.n_samples
    result = solve(problem, "streed", {"max_depth": depth}, Limits(time_limit=max(limits)))
    trace = result.trace
    ub = [(t, None if v is None else round(v * n)) for t, v in zip(trace["elapsed"], trace["upper_bound"])]
    lb = [(t, None if v is None else v * n) for t, v in zip(trace["elapsed"], trace["lower_bound"])]
    out = {"status": result.status, "from": result.stats.get("best_tree_from")}
    for limit in limits:
        out[f"errors_{limit:g}"] = _at(ub, limit)
        reached = [v for t, v in lb if t <= limit and v is not None]
        lower = max(reached) if reached else None
        out[f"lower_{limit:g}"] = None if lower is None else int(-(-lower // 1) if lower % 1 else lower)
    return out


def pytrees_anytime(name, depth, limits):
    """``pytrees-rs`` anytime mode, one run: the best errors reported by each limit."""
    from pytrees import ConTreeClassifier

    X, y = _frame(name)
    points = []
    clf = ConTreeClassifier(max_depth=depth, max_time=max(limits))
    clf.fit_anytime(X, y, callback=lambda error, seconds, status: points.append((float(seconds), int(error))))
    points.append((max(limits), int(clf.train_error_)))  # the tree it returned at the end
    return {f"errors_{limit:g}": _at(points, limit) for limit in limits} | {"status": clf.status_}


def pytrees_default(name, depth, limit):
    from pytrees import ConTreeClassifier

    X, y = _frame(name)
    clf = ConTreeClassifier(max_depth=depth, max_time=limit).fit(X, y)
    return {"errors": int(clf.train_error_), "status": clf.status_}


def contree(name, depth, limit):
    import warnings

    from pycontree import ConTree

    X, y = _frame(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ConTree(max_depth=depth, time_limit=limit).fit(X, y)
    return {"errors": int((model.predict(X) != y).sum())}


def _value(out, key):
    """Return ``out[key]``, else the start of its error message, else None."""
    if out.get(key) is not None:
        return out[key]
    return (out.get("error") or "")[:40] or None


def run_case(name, depth, limits):
    row = {"dataset": name, "max_depth": depth}
    slack = 120
    mine = run_isolated("bench.anytime_quality:ours", timeout=max(limits) + 300, name=name, depth=depth, limits=limits)
    lds = run_isolated(
        "bench.anytime_quality:pytrees_anytime", timeout=max(limits) + slack, name=name, depth=depth, limits=limits
    )
    for limit in limits:
        row[f"ours_{limit:g}s"] = mine.get(f"errors_{limit:g}")
        row[f"ours_lb_{limit:g}s"] = mine.get(f"lower_{limit:g}")
        row[f"lds_{limit:g}s"] = _value(lds, f"errors_{limit:g}")
        default = run_isolated(
            "bench.anytime_quality:pytrees_default", timeout=limit + slack, name=name, depth=depth, limit=limit
        )
        row[f"pytrees_{limit:g}s"] = _value(default, "errors")
        ref = run_isolated("bench.anytime_quality:contree", timeout=limit + slack, name=name, depth=depth, limit=limit)
        row[f"contree_{limit:g}s"] = _value(ref, "errors")
    row["ours_status"] = _value(mine, "status")
    row["ours_from"] = mine.get("from")
    row["load_average"] = os.getloadavg()[0]
    print(row, flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", action="append", help="DATA:DEPTH, e.g. eeg:4 (default: every file at 4 and 5)")
    parser.add_argument("--limits", nargs="+", type=float, default=list(LIMITS))
    args = parser.parse_args()
    cases = [(c.split(":")[0], int(c.split(":")[1])) for c in args.case] if args.case else CASES
    rows = [run_case(name, depth, tuple(args.limits)) for name, depth in cases]
    write_results("anytime_quality", rows)
    columns = [("dataset", "file", None), ("max_depth", "depth", None)]
    for limit in args.limits:
        t = f"{limit:g}"
        columns += [
            (f"ours_{t}s", f"ours {t} s", None),
            (f"ours_lb_{t}s", f"our bound {t} s", None),
            (f"lds_{t}s", f"pytrees-rs LDS {t} s", None),
            (f"pytrees_{t}s", f"pytrees-rs {t} s", None),
            (f"contree_{t}s", f"ConTree {t} s", None),
        ]
    columns += [("ours_status", "our status", None), ("ours_from", "our tree from", None)]
    columns += [("load_average", "load", "{:.1f}")]
    print(markdown_table(rows, columns))


if __name__ == "__main__":
    main()
