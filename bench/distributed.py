"""One ordered search split by root feature: one process against two (``solver.ordered.split``).

``python -m bench.distributed [--cases raisin:3 segment:3 ...] [--processes 1 2] [--parts 2] [--out name.json]``
→ ``bench/results/distributed.json``.

For each case (a shared numeric file and a depth, STreeD accuracy on the raw columns) it times

* the one-process search (``driver.run`` of the algorithm's own ``OrderedSearch``), and
* the split search with ``k`` processes: forked workers (they inherit the compiled kernels and the data) take
  pieces in plan order from a shared counter and share the incumbent through a ``multiprocessing`` value
  (an atomic minimum under its lock), as Celery workers do through Redis; the parent combines the pieces'
  results (``split.combine`` and the canonical re-solve of ``split.SplitSearch``).

It checks that every run reaches the same optimum. This is the solver's scaling, without the broker's and the
database's few milliseconds per piece (``tests/integration/test_split.py`` runs real Celery workers). Wall
times on this shared 2-core machine depend on its load: the JSON keeps ``os.getloadavg()`` of every row.
"""

import argparse
import json
import math
import multiprocessing as mp
import os
import resource
import time

from bench.harness import RESULTS, shared_dataset

DEFAULT_CASES = ["raisin:3", "segment:3", "bank:3", "wilt:3"]


def problem_of(name):
    import numpy as np
    import pandas as pd

    from solver.data.binarize import Roles, make_problem
    from solver.data.table import Table

    data = pd.read_csv(shared_dataset(f"{name}.csv"))
    columns = {c: data[c].to_numpy(dtype=float) for c in data.columns if c != "label"}
    columns["label"] = np.array([str(v) for v in data["label"]], dtype=object)
    return make_problem(Table(columns), Roles(label="label"))


class SharedIncumbent:
    """The least engine value, shared by forked processes (``get`` / ``offer``)."""

    def __init__(self):
        self.value = mp.get_context("fork").Value("d", math.inf)

    def get(self):
        return self.value.value

    def offer(self, value):
        with self.value.get_lock():
            self.value.value = min(self.value.value, float(value))
            return self.value.value


def _worker(base, groups, counter, incumbent, out):
    from solver.ordered import split

    while True:
        with counter.get_lock():
            i = counter.value
            counter.value += 1
        if i >= len(groups):
            return
        piece = split.PieceSearch(base, groups[i], incumbent, follow=i > 0)
        while not piece.step(64):
            pass
        out.put((i, piece.result()))


def makespan(work, k):
    """Return the finishing time of pieces of sizes ``work`` taken in order by the first free of ``k`` processes."""
    free = [0.0] * k
    for w in work:
        i = free.index(min(free))
        free[i] += w
    return max(free)


def split_run(base, groups, processes):
    """Return (seconds, CPU seconds of the workers, engine value, tree, work per piece) over ``processes`` workers."""
    from solver.ordered import split

    ctx = mp.get_context("fork")
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu.ru_utime + cpu.ru_stime
    counter, incumbent, out = ctx.Value("i", 0), SharedIncumbent(), ctx.Queue()
    start = time.perf_counter()
    workers = [ctx.Process(target=_worker, args=(base, groups, counter, incumbent, out)) for _ in range(processes)]
    for w in workers:
        w.start()
    results = [None] * len(groups)
    for _ in groups:
        i, r = out.get()
        results[i] = r
    for w in workers:
        w.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - cpu
    search = split.SplitSearch(base, groups=groups)
    search.results, search.done = results, True
    search._update()  # combine, and the canonical re-solve of a winner other than piece 0
    seconds = time.perf_counter() - start
    return seconds, cpu, base.best[0], base.best[1], [r["work"] for r in results]


def case(name, depth, processes, parts=1):
    from solver import driver
    from solver.ordered import split

    problem = problem_of(name)
    params = {"objective": "accuracy", "max_depth": depth, "threshold_search": "ordered"}
    _, _, whole = split.base_search(problem, "streed", params)
    start, cpu = time.perf_counter(), time.process_time()
    assert driver.run(whole).status == "optimal"
    row = {
        "case": f"{name} depth {depth}",
        "rows": problem.n_samples,
        "one_process_seconds": time.perf_counter() - start,
        "one_process_cpu_seconds": time.process_time() - cpu,
        "one_process_work": whole.engine.counters["work"],
        "optimum": whole.best[0],
        "load_before": os.getloadavg()[0],
    }
    _, _, base = split.base_search(problem, "streed", params)
    groups = split.plan(base, parts=parts)
    row["pieces"] = len(groups)
    row["ranges_per_feature"] = parts
    for k in processes:
        seconds, cpu, value, tree, work = split_run(base, groups, k)
        row[f"split_{k}_seconds"] = seconds
        row[f"split_{k}_cpu_seconds"] = cpu
        row[f"split_{k}_same_optimum"] = value == whole.best[0]
        row[f"split_{k}_same_tree"] = tree == whole.best[1]
        row[f"piece_work_{k}"] = work
        # The model: pieces of the sizes measured, taken in plan order by the first free process.
        row[f"model_{k}_speedup"] = sum(work) / makespan(work, k)
    row["load_after"] = os.getloadavg()[0]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="*", default=DEFAULT_CASES, help="file:depth")
    parser.add_argument("--processes", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--parts", type=int, default=1, help="ranges of root thresholds per feature (split.plan)")
    parser.add_argument("--out", default="distributed.json")
    args = parser.parse_args()
    from solver.ordered.search import warmup

    warmup()
    rows = []
    for spec in args.cases:
        name, depth = spec.split(":")
        row = case(name, int(depth), args.processes, args.parts)
        rows.append(row)
        print(json.dumps(row))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / args.out).write_text(json.dumps(rows, indent=1) + "\n")
    ks = args.processes
    header = "| case | rows | pieces | one process s (CPU s) | "
    header += " | ".join(f"split, {k} proc.: s (CPU s) | model speed-up ×{k}" for k in ks)
    print(header + " | same optimum | same tree | load |")
    for r in rows:
        times = " | ".join(
            f"{r[f'split_{k}_seconds']:.2f} ({r[f'split_{k}_cpu_seconds']:.2f}) | {r[f'model_{k}_speedup']:.2f}"
            for k in ks
        )
        same = all(r[f"split_{k}_same_optimum"] for k in ks)
        tree = all(r[f"split_{k}_same_tree"] for k in ks)
        print(
            f"| {r['case']} | {r['rows']} | {r['pieces']} | {r['one_process_seconds']:.2f} "
            f"({r['one_process_cpu_seconds']:.2f}) | {times} | {same} | {tree} | "
            f"{r['load_before']:.1f}–{r['load_after']:.1f} |"
        )


if __name__ == "__main__":
    main()
