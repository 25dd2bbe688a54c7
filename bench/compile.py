"""Where the first start's compile time goes: per kernel and per algorithm, from an empty numba cache.

```
python -m bench.compile                  # one process warms every algorithm (as `manage.py warm` does)
python -m bench.compile --processes 2    # N processes warm at once, like the worker processes of scripts/run
python -m bench.compile --docs           # also rewrite the per-kernel table in docs/developing.md
```

Every measurement starts from a fresh, empty ``NUMBA_CACHE_DIR`` (a temporary folder shared by the
processes, as the workers of one host share theirs). Each process warms as a worker pool process does
(``corelsweb.ops.warming.warm_all``) and records numba's ``numba:compile`` events: a kernel's own time
is its compilation minus that of the kernels it compiled inside it (callees compile inside their
caller's type inference). An algorithm is ready on the host when the first process has all its kernels.
Results go to ``bench/results/compile.json``; say the load average beside every number you quote.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCS = ROOT / "docs" / "developing.md"
BEGIN = "<!-- compile table: begin (python -m bench.compile --docs) -->"
END = "<!-- compile table: end -->"


def _kernel_name(dispatcher):
    fn = dispatcher.py_func
    return f"{fn.__module__.removeprefix('solver.')}.{fn.__qualname__}"


def _own_times(buffer):
    """Return ``{kernel: [own seconds, signatures]}`` from a ``numba:compile`` recording (one thread)."""
    from numba.core.event import EventStatus

    own = defaultdict(lambda: [0.0, 0])
    stack = []  # [start time, seconds spent in nested compilations]
    for stamp, event in buffer:
        if event.status == EventStatus.START:
            stack.append([stamp, 0.0])
            continue
        start, nested = stack.pop()
        spent = stamp - start
        row = own[_kernel_name(event.data["dispatcher"])]
        row[0] += spent - nested
        row[1] += 1
        if stack:
            stack[-1][1] += spent
    return dict(own)


def child(index, processes, t0, out):
    """Warm as one worker pool process of ``processes`` does; write what it compiled and when to ``out``."""
    import django

    django.setup()
    from numba.core.event import install_recorder

    from corelsweb.ops import warming

    ready_at, marks = {}, []  # marks: (events recorded so far, algorithm being warmed from then on)

    with install_recorder("numba:compile") as recorder:

        def report(state):
            for name in state["ready"]:
                ready_at.setdefault(name, time.time() - t0)
            marks.append((len(recorder.buffer), state["warming"][-1] if state["warming"] else None))

        seconds = warming.warm_all(report=report)
    own = {}
    for (start, name), (stop, _) in zip(marks, marks[1:] + [(len(recorder.buffer), None)]):
        for kernel, (sec, sigs) in _own_times(recorder.buffer[start:stop]).items():
            row = own.setdefault(kernel, {"seconds": 0.0, "signatures": 0, "algorithm": name})
            row["seconds"] += sec
            row["signatures"] += sigs
    Path(out).write_text(
        json.dumps(
            {"index": index, "seconds": seconds, "ready_at": ready_at, "kernels": own, "done_at": time.time() - t0}
        )
    )


def measure(processes):
    """Warm every algorithm in ``processes`` fresh processes sharing one empty cache; return the merged record."""
    with tempfile.TemporaryDirectory(prefix="compile-bench-") as tmp:
        env = dict(os.environ)
        env.update(
            NUMBA_CACHE_DIR=f"{tmp}/numba",
            CORELSWEB_VAR_DIR=f"{tmp}/var",
            DJANGO_SETTINGS_MODULE=env.get("DJANGO_SETTINGS_MODULE", "corelsweb.settings"),
        )
        env.pop("DATABASE_URL", None)  # warming touches no database; the default SQLite file is in the temp folder
        t0 = time.time()
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "bench.compile", "--child", str(i), str(processes), str(t0), f"{tmp}/{i}.json"],
                cwd=ROOT,
                env=env,
            )
            for i in range(processes)
        ]
        for p in procs:
            if p.wait() != 0:
                raise SystemExit(f"a warming process failed (exit {p.returncode})")
        wall = time.time() - t0
        parts = [json.loads(Path(f"{tmp}/{i}.json").read_text()) for i in range(processes)]
    ready = defaultdict(list)
    for part in parts:
        for name, at in part["ready_at"].items():
            ready[name].append(at)
    return {
        "processes": processes,
        "wall_seconds": wall,
        "load_average": os.getloadavg(),
        "ready_first": {name: min(v) for name, v in ready.items()},
        "ready_all": {name: max(v) for name, v in ready.items()},
        "per_process": parts,
    }


def kernel_table(record):
    """Return markdown rows of the kernels' own compile seconds (one process), slowest first."""
    (part,) = record["per_process"]
    rows = sorted(part["kernels"].items(), key=lambda kv: -kv[1]["seconds"])
    total = sum(v["seconds"] for _, v in rows)
    lines = [
        f"Measured with `python -m bench.compile --docs` on {time.strftime('%Y-%m-%d')}, one process, empty cache, "
        f"load average {record['load_average'][0]:.1f} (2 cores): {len(rows)} kernels, {total:.1f} s of compilation "
        f"in {record['wall_seconds']:.1f} s. Per warming step (in warming order; a kernel shared by several "
        "counts for the first): " + ", ".join(f"{k} {v:.1f} s" for k, v in part["seconds"].items()) + ".",
        "",
        "| kernel | compiled while warming | signatures | own seconds |",
        "|---|---|---|---|",
    ]
    shown = [(k, v) for k, v in rows if v["seconds"] >= 1.0]
    for name, v in shown:
        lines.append(f"| `{name}` | {v['algorithm']} | {v['signatures']} | {v['seconds']:.2f} |")
    rest = rows[len(shown) :]
    if rest:
        lines.append(
            f"| {len(rest)} more kernels under 1 s each | | {sum(v['signatures'] for _, v in rest)} | "
            f"{sum(v['seconds'] for _, v in rest):.2f} |"
        )
    return "\n".join(lines)


def write_docs(table):
    text = DOCS.read_text()
    block = f"{BEGIN}\n{table}\n{END}"
    if BEGIN in text:
        head, _, tail = text.partition(BEGIN)
        text = head + block + tail.partition(END)[2]
    else:
        text = text.rstrip("\n") + "\n\n### Compile time per kernel\n\n" + block + "\n"
    DOCS.write_text(text)


def summary(record):
    ready = record["ready_first"]
    words = ", ".join(f"{k} {v:.1f}" for k, v in sorted(ready.items(), key=lambda kv: kv[1]))
    return (
        f"{record['processes']} process(es): every algorithm ready on the host after {max(ready.values()):.1f} s "
        f"(wall {record['wall_seconds']:.1f} s, load {record['load_average'][0]:.1f}); ready at: {words}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--docs", action="store_true", help="rewrite the per-kernel table in docs/developing.md")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        index, processes, t0, out = args.child
        return child(int(index), int(processes), float(t0), out)
    record = measure(args.processes)
    print(summary(record))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "compile.json"
    history = json.loads(path.read_text()) if path.exists() else []
    history.append({"when": time.strftime("%Y-%m-%d %H:%M"), **record})
    path.write_text(json.dumps(history, indent=1))
    if args.processes == 1:
        table = kernel_table(record)
        print(table)
        if args.docs:
            write_docs(table)


if __name__ == "__main__":
    main()
