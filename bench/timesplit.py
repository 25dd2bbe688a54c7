"""Where a fit's time goes, stage by stage, through the command line: ``python -m bench.timesplit``.

Each (dataset, algorithm) pair runs ``python -m solver fit`` in a fresh process with the algorithm's default
parameters and a time limit, and reads the ``timing`` split of the result file (``solver.timing``). The wall
column is the whole process, from the interpreter's start to its exit; ``start`` is what the split cannot see:
starting Python, importing the solver and writing the file. Results go to ``bench/results/timesplit.json``.

    python -m bench.timesplit [--time-limit 30] [--only loans,diamonds] [--algorithms corels,gosdt] [--out FILE]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import RESULTS
from solver.timing import STAGE_NAMES

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"
# The label of each file: flights and diamonds name theirs; loans names none (its README says to choose one).
DATASETS = {
    "loans": ("loans.csv", ["--label", "term"]),
    "diamonds": ("diamonds.csv", ["--label", "expensive"]),
    "flights": ("flights.csv", ["--label", "late"]),
    "gbsg2": ("gbsg2-surv.csv", []),  # survival (time, event last): OSST's file
}
ALGORITHMS = ("corels", "osdt", "gosdt", "streed", "rashomon", "cart", "osst")


def measure(name, algorithm, time_limit):
    filename, extra = DATASETS[name]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        command = [sys.executable, "-m", "solver", "fit", str(DATA / filename), "--algorithm", algorithm]
        command += [*extra, "--time-limit", str(time_limit), "--quiet", "--out", str(out)]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            return {"dataset": name, "algorithm": algorithm, "error": done.stderr.strip(), "wall": wall}
        result = json.loads(out.read_text())
    split = result["timing"]
    return {
        "dataset": name,
        "algorithm": algorithm,
        "status": result["status"],
        "wall": wall,
        "total": split["total_seconds"],
        "start": wall - split["total_seconds"],
        **split["stages"],
    }


def table(rows):
    shown = [s for s in STAGE_NAMES if s not in ("queued", "compile_wait")]
    lines = [
        "| data | algorithm | status | " + " | ".join(shown) + " | split total | start + write | wall |",
        "|---|---|---|" + "---:|" * (len(shown) + 3),
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['dataset']} | {r['algorithm']} | {r['error']} |")
            continue
        cells = " | ".join(f"{r[s]:.2f}" for s in shown)
        lines.append(
            f"| {r['dataset']} | {r['algorithm']} | {r['status']} | {cells} | {r['total']:.2f} | "
            f"{r['start']:.2f} | {r['wall']:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--only", default="loans,diamonds,flights,gbsg2")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--out", default=str(RESULTS / "timesplit.json"))
    args = parser.parse_args(argv)
    rows = []
    for name in args.only.split(","):
        for algorithm in args.algorithms.split(","):
            if (name == "gbsg2") != (algorithm == "osst"):
                continue  # OSST fits survival data only; the others a label
            rows.append(measure(name, algorithm, args.time_limit))
            print(json.dumps(rows[-1]), flush=True)
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows))


if __name__ == "__main__":
    main()
