"""Resident memory of one fit, stage by stage and sampled through its search (where a fit's memory goes).

    .venv/bin/python -m bench.memory_timeline PATH LABEL ALGORITHM [--depth 3] [--limit 20]

Prints the resident size after profiling (the web's pass), reading, preparing (a 20 % holdout), and every half
second through the solve under a 4,096 MB limit, with the search's own peak.
"""

from __future__ import annotations

import argparse
import threading
import time

from solver import api, memory, pipeline
from solver.data import Roles, profile_file, read_file


def mb(value):
    return round(value / 2**20)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("label")
    parser.add_argument("algorithm")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--limit", type=float, default=20.0)
    args = parser.parse_args(argv)
    print("start", mb(memory.current_rss()))
    with open(args.path, "rb") as f:
        profile = profile_file(f)
    print("profiled", mb(memory.current_rss()), "peak", mb(memory.peak_since_reset()))
    memory.reset_peak()
    table = read_file(args.path, numeric=profile.numeric_columns())
    print("read", mb(memory.current_rss()), "peak", mb(memory.peak_since_reset()))
    ids = [c["name"] for c in profile.columns if c["type"] == "identifier"]
    roles = Roles(label=args.label, ignore=tuple(ids))
    prepared = pipeline.prepare(table, roles, args.algorithm, None, pipeline.Holdout(0.2))
    print("prepared", mb(memory.current_rss()), "peak", mb(memory.peak_since_reset()), prepared.problem.n_features)
    samples, done = [], threading.Event()

    def watch():
        while not done.is_set():
            samples.append((time.perf_counter(), memory.current_rss()))
            done.wait(0.5)

    threading.Thread(target=watch, daemon=True).start()
    t0 = time.perf_counter()
    params = {"max_depth": args.depth} if args.algorithm != "corels" else {}
    result = pipeline.run(prepared, params, api.Limits(time_limit=args.limit, memory_limit=4 << 30))
    done.set()
    print("solved", result.status, mb(memory.current_rss()), "search peak", mb(result.stats["peak_memory_bytes"]))
    for t, rss in samples[:: max(1, len(samples) // 15)]:
        print(f"  t={t - t0:.1f} s  rss={mb(rss)} MB")


if __name__ == "__main__":
    main()
