"""Tables at analyst scale: every stage of a fit, its peak memory, beside scikit-learn's CART and ConTree.

For each table and algorithm (depth 3, a 60 s and a 4,096 MB limit, the algorithm's defaults otherwise), in a fresh
process:
``read`` (the whole typed table, as a worker reads it), ``profile`` (the web's pass at upload), ``prepare``
(binarize), ``compile`` (load or compile the kernels), ``setup`` (the search's set-up), ``search``, ``report``
(the model and its training metrics), ``evaluate`` (export test vectors; a 20 % holdout scored), ``store`` (the
result as JSON on disk), and the process's peak resident memory. Beside them, in fresh processes on the same
table: scikit-learn's ``DecisionTreeClassifier(max_depth=3)`` on the numeric columns with the text ones
one-hot encoded (what a user would run), and ConTree (pycontree) at depth 3 on the numeric columns.

    .venv/bin/python -m bench.scale [--tables flights,diamonds,...] [--algorithms cart,gosdt,...] [--limit 60]

Tables: ``flights`` (337k rows), ``diamonds`` (54k), ``loans`` (10k × 55: the label is grade A or B, with the
interest rate, grades and payments left out), and generated numeric tables ``num-R-C`` (R rows × C columns of
four-decimal numbers, a label from a depth-3 rule on three of them with 10 % noise).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.harness import markdown_table, run_isolated, write_results

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "datasets"
ALGORITHMS = ("cart", "gosdt", "streed", "osdt", "corels", "rashomon")
GENERATED = ("num-10000-10", "num-10000-20", "num-100000-10", "num-100000-20", "num-1000000-10", "num-1000000-20")
TABLES = ("flights", "diamonds", "loans") + GENERATED
LOANS_LEFT_OUT = ("grade", "sub_grade", "interest_rate", "installment", "paid_interest", "paid_total", "balance")
DEPTH_PARAMS = {
    "cart": "max_depth",
    "gosdt": "max_depth",
    "streed": "max_depth",
    "osdt": "max_depth",
    "rashomon": "max_depth",
}


def table_file(name, folder):
    """Return ``(path, label, left_out)`` of a benchmark table, writing a generated or derived one to ``folder``."""
    if name == "flights":
        return SHARED / "flights.csv", "late", ()
    if name == "diamonds":
        return SHARED / "diamonds.csv", "expensive", ()
    if name == "loans":
        path = Path(folder) / "loans-prime.csv"
        if not path.exists():
            import pyarrow as pa
            import pyarrow.compute as pc
            import pyarrow.csv as pacsv

            table = pacsv.read_csv(SHARED / "loans.csv")
            prime = pc.is_in(table["grade"], value_set=pa.array(["A", "B"]))
            table = table.drop_columns(list(LOANS_LEFT_OUT)).append_column("prime", pc.if_else(prime, "yes", "no"))
            pacsv.write_csv(table, path)
        return path, "prime", ()
    _, rows, cols = name.split("-")
    path = Path(folder) / f"{name}.csv"
    if not path.exists():
        write_numeric(path, int(rows), int(cols))
    return path, "y", ()


def write_numeric(path, rows, cols, seed=0, block=200_000):
    """Write ``rows`` × ``cols`` normal numbers (four decimals) and a label ``y`` (a depth-3 rule + 10 % noise)."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        f.write(",".join([f"x{j}" for j in range(cols)] + ["y"]) + "\n")
        for start in range(0, rows, block):
            n = min(block, rows - start)
            x = rng.normal(size=(n, cols)).round(4)
            rule = np.where(x[:, 0] > 0.2, x[:, 1] > -0.5, x[:, 2] > 0.8)
            y = np.where(rule ^ (rng.random(n) < 0.1), "yes", "no")
            body = np.column_stack([x.astype(str), y])
            f.write("\n".join(",".join(r) for r in body) + "\n")


def ours_job(path, label, algorithm, limit, out, memory_mb=4096):
    """Fit ``algorithm`` to the table with our pipeline; return the time of each stage."""
    from solver import api, pipeline
    from solver.data import Roles, profile_file, read_file

    from solver import memory

    stages = {}
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        profile = profile_file(f)
    stages["profile"] = time.perf_counter() - t0
    # The web process profiles an upload; a worker reads, prepares and solves: their peaks are apart.
    profile_peak = memory.peak_since_reset()
    memory.reset_peak()
    t0 = time.perf_counter()
    table = read_file(path, numeric=profile.numeric_columns())
    stages["read"] = time.perf_counter() - t0
    ids = [c["name"] for c in profile.columns if c["type"] == "identifier"]
    roles = Roles(label=label, ignore=tuple(ids))
    prepared = pipeline.prepare(table, roles, algorithm, None, pipeline.Holdout(0.2))
    stages["prepare"], stages["compile"] = prepared.prepare_seconds, prepared.warm_seconds
    params = {DEPTH_PARAMS[algorithm]: 3} if algorithm in DEPTH_PARAMS else {}
    before_solve = memory.peak_since_reset()  # the solve starts its own count
    # The web form's defaults: the time limit given and a 4,096 MB memory limit.
    result = pipeline.run(prepared, params, api.Limits(time_limit=limit, memory_limit=int(memory_mb * 2**20)))
    s = result.stats
    stages.update(setup=s["setup_seconds"], search=s["solve_seconds"], report=s["report_seconds"])
    stages["evaluate"] = s["evaluate_seconds"]
    stages["compile"] += s["compile_seconds"] - prepared.warm_seconds
    t0 = time.perf_counter()
    Path(out).write_text(json.dumps(result.to_dict()))
    stages["store"] = time.perf_counter() - t0
    return {
        "status": result.status,
        "train_accuracy": result.metrics.get("accuracy"),
        "test_accuracy": result.holdout.get("metrics", {}).get("accuracy"),
        "lower_bound": result.lower_bound,
        "objective": result.objective,
        "leaves": result.model.n_leaves,
        "features": prepared.problem.n_features,
        "search_peak_bytes": s["peak_memory_bytes"],
        "profile_peak_bytes": profile_peak,
        "worker_peak_bytes": max(before_solve, memory.peak_since_reset()),
        **{f"{k}_seconds": v for k, v in stages.items()},
    }


def sklearn_job(path, label):
    """Fit scikit-learn's depth-3 tree as a user would: numbers as they are, text one-hot encoded."""
    import pyarrow.csv as pacsv
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    t0 = time.perf_counter()
    table = pacsv.read_csv(path)
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    keep = [i for i, v in enumerate(table[label].to_pylist()) if v is not None]
    y = np.array(table[label].to_pylist(), dtype=object)[keep]
    numeric, text = [], []
    for name in table.column_names:
        if name == label:
            continue
        column = table[name]
        if column.type.id in (5, 6, 7, 8, 9, 10, 11, 12):  # integers and floats
            numeric.append(np.nan_to_num(column.to_numpy(zero_copy_only=False).astype(np.float64)[keep], nan=-1e30))
        else:
            text.append(np.array([v or "" for v in column.to_pylist()], dtype=object)[keep])
    from scipy import sparse

    parts = [sparse.csr_matrix(np.column_stack(numeric))] if numeric else []
    if text:
        parts.append(OneHotEncoder(max_categories=50, handle_unknown="ignore").fit_transform(np.column_stack(text)))
    X = sparse.hstack(parts).tocsc()
    encode = time.perf_counter() - t0
    t0 = time.perf_counter()
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    fit = time.perf_counter() - t0
    return {"read_seconds": read, "encode_seconds": encode, "fit_seconds": fit, "train_accuracy": clf.score(X, y)}


def contree_job(path, label, limit):
    """Fit ConTree at depth 3 on the table's numeric columns (it takes no text)."""
    import pyarrow.csv as pacsv
    from pycontree import ConTree

    table = pacsv.read_csv(path)
    keep = np.array([v is not None for v in table[label].to_pylist()])
    labels = np.array(table[label].to_pylist(), dtype=object)[keep]
    y = np.unique(labels.astype(str), return_inverse=True)[1]
    numeric = [
        table[n].to_numpy(zero_copy_only=False).astype(np.float64)[keep]
        for n in table.column_names
        if n != label and table[n].type.id in (5, 6, 7, 8, 9, 10, 11, 12)
    ]
    X = np.column_stack(numeric)
    X = X[:, ~np.isnan(X).any(axis=0)]  # ConTree takes no missing values
    t0 = time.perf_counter()
    model = ConTree(max_depth=3, time_limit=limit).fit(X, y)
    seconds = time.perf_counter() - t0
    return {"fit_seconds": seconds, "train_accuracy": float((model.predict(X) == y).mean()), "columns": X.shape[1]}


STAGES = ("profile", "read", "prepare", "compile", "setup", "search", "report", "evaluate", "store")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--memory-limit", type=float, default=4096.0, help="MB, the web form's default")
    parser.add_argument("--no-references", action="store_true")
    args = parser.parse_args(argv)
    folder = Path(tempfile.gettempdir()) / "corelsweb-bench-scale"
    folder.mkdir(exist_ok=True)
    rows = []
    for name in args.tables.split(","):
        path, label, _ = table_file(name, folder)
        if not args.no_references:
            for tool, job, extra in (
                ("scikit-learn", "bench.scale:sklearn_job", {}),
                ("ConTree", "bench.scale:contree_job", {"limit": args.limit}),
            ):
                out = run_isolated(job, timeout=args.limit * 4 + 120, path=str(path), label=label, **extra)
                rows.append({"table": name, "tool": tool, "load": os.getloadavg()[0], **out})
                print(json.dumps(rows[-1]), flush=True)
        for algorithm in args.algorithms.split(","):
            out = run_isolated(
                "bench.scale:ours_job",
                timeout=args.limit * 4 + 300,
                path=str(path),
                label=label,
                algorithm=algorithm,
                limit=args.limit,
                out=str(folder / f"{name}-{algorithm}.json"),
                memory_mb=args.memory_limit,
            )
            rows.append({"table": name, "tool": algorithm, "load": os.getloadavg()[0], **out})
            print(json.dumps(rows[-1]), flush=True)
    write_results("scale", rows)
    print(report(rows))


def report(rows):
    """Return the markdown table of ``bench/README.md`` for the rows of one run."""

    def around(r):
        keys = [k for k in STAGES if k != "search" and f"{k}_seconds" in r]
        return sum(r[f"{k}_seconds"] for k in keys) if keys else None

    for r in rows:
        r["outside_seconds"] = around(r)
        r["peak_mb"] = r.get("peak_rss_bytes", 0) / 2**20
        r["worker_peak_mb"] = r.get("worker_peak_bytes", r.get("peak_rss_bytes", 0)) / 2**20
    columns = [("table", "table", "{}"), ("tool", "tool", "{}"), ("status", "status", "{}")]
    columns += [(f"{k}_seconds", k, "{:.2f}") for k in STAGES]
    columns += [
        ("outside_seconds", "outside the search", "{:.2f}"),
        ("fit_seconds", "fit (references)", "{:.2f}"),
        ("wall_seconds", "wall", "{:.1f}"),
        ("peak_mb", "peak MB", "{:,.0f}"),
        ("worker_peak_mb", "worker's peak MB", "{:,.0f}"),
        ("train_accuracy", "train acc.", "{:.4f}"),
        ("lower_bound", "lower bound", "{:.4f}"),
        ("load", "load", "{:.1f}"),
        ("error", "error", "{}"),
    ]
    return markdown_table(rows, columns)


if __name__ == "__main__":
    main()
