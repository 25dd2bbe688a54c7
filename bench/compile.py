"""Where the first start's compile time goes: per kernel and per algorithm, from an empty numba cache.

```
python -m bench.compile                  # one process warms every algorithm (as `manage.py warm` does)
python -m bench.compile --processes 2    # N processes warm at once, like the worker processes of scripts/run
python -m bench.compile --docs           # also rewrite the per-kernel table in docs/developing.md
python -m bench.compile --first-result   # the run command (manage.py serve), one run per algorithm sent at once
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
import resource
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


def child(index, processes, t0, out, names=None):
    """Warm as one worker pool process of ``processes`` does; write what it compiled and when to ``out``."""
    import django

    django.setup()
    from numba.core.event import install_recorder

    from corelsweb.ops import warming

    from solver import compiling

    ready_at, marks = {}, []  # marks: (events recorded so far, unit being warmed from then on)
    cpu = {}  # unit -> this process's CPU seconds (user + system) while it warmed the unit
    warm_unit = compiling.warm_unit

    with install_recorder("numba:compile") as recorder:

        def report(state):
            for name in state["ready"]:
                ready_at.setdefault(name, time.time() - t0)

        def marked(unit):
            marks.append((len(recorder.buffer), unit))
            c0 = time.process_time()
            try:
                return warm_unit(unit)
            finally:
                cpu[unit] = time.process_time() - c0
                marks.append((len(recorder.buffer), None))

        compiling.warm_unit = marked
        seconds = warming.warm_all(report=report, names=names)
    own = {}
    for (start, name), (stop, _) in zip(marks, marks[1:] + [(len(recorder.buffer), None)]):
        for kernel, (sec, sigs) in _own_times(recorder.buffer[start:stop]).items():
            row = own.setdefault(kernel, {"seconds": 0.0, "signatures": 0, "unit": name})
            row["seconds"] += sec
            row["signatures"] += sigs
    Path(out).write_text(
        json.dumps(
            {
                "index": index,
                "seconds": seconds,
                "cpu_by_unit": cpu,
                "ready_at": ready_at,
                "kernels": own,
                "done_at": time.time() - t0,
                # CPU time varies less with the machine's load than wall time does.
                "cpu_seconds": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
            }
        )
    )


def measure(processes, keep=None, algorithms=None):
    """Warm every algorithm in ``processes`` fresh processes sharing one empty cache; return the merged record.

    ``keep``: an empty folder to hold the cache (kept afterwards) instead of a temporary one.
    """
    if keep and any(Path(keep).glob("*")):
        raise SystemExit(f"{keep} is not empty: the measurement starts from an empty cache")
    with tempfile.TemporaryDirectory(prefix="compile-bench-") as tmp:
        env = dict(os.environ)
        env.update(
            NUMBA_CACHE_DIR=keep or f"{tmp}/numba",
            CORELSWEB_VAR_DIR=f"{tmp}/var",
            DJANGO_SETTINGS_MODULE=env.get("DJANGO_SETTINGS_MODULE", "corelsweb.settings"),
        )
        env.pop("DATABASE_URL", None)  # warming touches no database; the default SQLite file is in the temp folder
        t0 = time.time()
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "bench.compile", "--child", str(i), str(processes), str(t0), f"{tmp}/{i}.json"]
                + (["--algorithms", *algorithms] if algorithms else []),
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


# (algorithm, sample dataset key): one run each, default parameters, sent as soon as the demo account exists.
FIRST_RUNS = (
    ("cart", "monk1"),
    ("osst", "veterans"),
    ("corels", "monk1"),
    ("gosdt", "monk1"),
    ("osdt", "monk1"),
    ("streed", "monk1"),
)


def first_result(timeout=1800):
    """Start the run command on an empty cache and database; return when each algorithm's first run finished.

    ``manage.py serve`` is what ``scripts/run`` starts once its virtualenv is installed (SQLite and the
    server-less broker in a temporary ``CORELSWEB_VAR_DIR``). One run per algorithm is sent as soon as the
    demo account has its samples; times are seconds from the start of the command.
    """
    import signal
    import socket

    with tempfile.TemporaryDirectory(prefix="first-result-") as tmp:
        env = dict(os.environ)
        for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
            env.pop(name, None)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        env.update(
            NUMBA_CACHE_DIR=f"{tmp}/numba",
            CORELSWEB_VAR_DIR=f"{tmp}/var",
            DJANGO_SETTINGS_MODULE="corelsweb.settings",
            SECURE_COOKIES="0",
        )
        t0 = time.time()
        serve = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return _send_and_wait(env, t0, timeout)
        finally:
            os.killpg(serve.pid, signal.SIGTERM)
            try:
                serve.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)


def _send_and_wait(env, t0, timeout):
    # In a child with the server's settings (this process may have Django set up otherwise).
    code = f"""
import json, time, django
django.setup()
from django.contrib.auth.models import User
from corelsweb.datasets.models import Dataset
from corelsweb.datasets.samples import SAMPLES
from corelsweb.runs.models import Run
from corelsweb.runs.services import create_run
t0, runs, out = {t0!r}, {{}}, {{}}
from django.db import OperationalError
def ready():
    try:  # the server may not have made its tables yet
        return User.objects.filter(username="demo").exists() and Dataset.objects.filter(name=SAMPLES["veterans"].name).exists()
    except OperationalError:
        return False
while not ready():
    time.sleep(0.5)
out["bootstrapped"] = time.time() - t0
user = User.objects.get(username="demo")
for algorithm, key in {list(FIRST_RUNS)!r}:
    dataset = Dataset.objects.filter(owner=user, name=SAMPLES[key].name).first()
    runs[algorithm] = create_run(user, dataset, algorithm, {{}}, {{"time_limit": 60}}).pk
out["sent"] = time.time() - t0
while len(out) < len(runs) + 2 and time.time() - t0 < {timeout}:
    for algorithm, pk in runs.items():
        run = Run.objects.get(pk=pk)
        if algorithm not in out and not run.is_active:
            out[algorithm] = {{"status": run.status, "at": time.time() - t0}}
    time.sleep(0.5)
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return {"first_result": out, "load_average": os.getloadavg()}


def kernel_table(record):
    """Return markdown rows of the kernels' own compile seconds (one process), slowest first."""
    (part,) = record["per_process"]
    rows = sorted(part["kernels"].items(), key=lambda kv: -kv[1]["seconds"])
    total = sum(v["seconds"] for _, v in rows)
    lines = [
        f"Measured with `python -m bench.compile --docs` on {time.strftime('%Y-%m-%d')}, one process, empty cache, "
        f"load average {record['load_average'][0]:.1f} (2 cores): {len(rows)} kernels, {total:.1f} s of compilation "
        f"in {record['wall_seconds']:.1f} s. Per warming step (in warming order; a kernel shared by several "
        "counts for the first): "
        + ", ".join(f"{k} {v:.1f} s" for k, v in part["seconds"].items())
        + "."
        + (
            " CPU seconds per step (user + system, steadier than wall time under load): "
            + ", ".join(f"{k} {v:.1f}" for k, v in part["cpu_by_unit"].items())
            + f"; {sum(part['cpu_by_unit'].values()):.1f} in all."
            if part.get("cpu_by_unit")
            else ""
        ),
        "",
        "| kernel | warm unit | signatures | own seconds |",
        "|---|---|---|---|",
    ]
    shown = [(k, v) for k, v in rows if v["seconds"] >= 1.0]
    for name, v in shown:
        lines.append(f"| `{name}` | {v.get('unit') or ''} | {v['signatures']} | {v['seconds']:.2f} |")
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
    cpu = ", ".join(f"{p.get('cpu_seconds', 0):.0f} s" for p in record["per_process"])
    return (
        f"{record['processes']} process(es): every algorithm ready on the host after {max(ready.values()):.1f} s "
        f"(wall {record['wall_seconds']:.1f} s, load {record['load_average'][0]:.1f}; CPU per process: {cpu}); "
        f"ready at: {words}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--docs", action="store_true", help="rewrite the per-kernel table in docs/developing.md")
    parser.add_argument("--first-result", action="store_true", help="time the run command to each first result")
    parser.add_argument("--keep", help="an empty folder for the cache, kept afterwards (e.g. for the tests)")
    parser.add_argument("--algorithms", nargs="+", help="only these algorithms (default: all)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        index, processes, t0, out = args.child
        return child(int(index), int(processes), float(t0), out, args.algorithms)
    if args.first_result:
        record = first_result()
        print(json.dumps(record))
    else:
        record = measure(args.processes, args.keep, args.algorithms)
        print(summary(record))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "compile.json"
    history = json.loads(path.read_text()) if path.exists() else []
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "solver", "corelsweb"], cwd=ROOT, capture_output=True
    ).stdout
    code = head.strip() + ("+changes" if dirty else "")
    history.append({"when": time.strftime("%Y-%m-%d %H:%M"), "code": code, **record})
    path.write_text(json.dumps(history, indent=1))
    if args.processes == 1 and not args.first_result and not args.algorithms:
        table = kernel_table(record)
        print(table)
        if args.docs:
            write_docs(table)


if __name__ == "__main__":
    main()
