"""Run one measured job in a fresh process: wall time, peak resident memory, its return value.

Each job runs in its own ``spawn``ed process so that peak memory (ru_maxrss)
belongs to that job alone, and so that reference packages that crash on a
second fit in one process (``osst``) are isolated. The job is a module-level
function named by ``"module:function"`` and returns a JSON-able dict; it may
put ``compile_seconds`` and ``solve_seconds`` in it when it can separate them.
"""

import importlib
import json
import multiprocessing as mp
import os
import resource
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def _find_shared():
    # ../shared beside the project; a clone elsewhere (CI in a temporary directory) finds the workspace copy,
    # or CORELSWEB_SHARED_DIR. The one place that knows where the shared folder is (tests use it too).
    project = Path(__file__).resolve().parent.parent
    for candidate in (os.environ.get("CORELSWEB_SHARED_DIR"), project.parent / "shared", "/work/shared"):
        if candidate and (Path(candidate) / "datasets").is_dir():
            return Path(candidate)
    return project.parent / "shared"


SHARED = _find_shared()
DATASETS = SHARED / "datasets"


def shared_dataset(name):
    """Return the path of a file in ../shared/datasets (tests and benchmarks only)."""
    path = DATASETS / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the tests need ../shared/datasets beside the project")
    return path


def _child(target, kwargs, queue):
    module, name = target.split(":")
    fn = getattr(importlib.import_module(module), name)
    t0 = time.perf_counter()
    try:
        out = fn(**kwargs)
        error = None
    except Exception as e:  # reported, not raised: one failing job must not end a benchmark
        out, error = {}, f"{type(e).__name__}: {e}"
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put({"wall_seconds": wall, "peak_rss_bytes": peak, "error": error, **out})


def run_isolated(target, timeout=None, **kwargs):
    """Run ``target(**kwargs)`` in a fresh process; return its dict plus wall time and peak memory."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(target, kwargs, queue))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return {"error": f"timed out after {timeout}s", "wall_seconds": timeout}
    if proc.exitcode != 0 and queue.empty():
        return {"error": f"process died with exit code {proc.exitcode}"}
    return queue.get()


def best_of(fit, repeats=20, budget=1.0):
    """Call ``fit()`` until ``repeats`` calls or ``budget`` seconds; return (last result, fastest seconds, first seconds).

    Fits of a few milliseconds vary by tens of percent from one call to the next
    (allocation, caches, the other core), and on this shared machine by up to 2× between
    runs of the same process: the fastest of many is the steadier figure (5 fits left
    ratios of millisecond cases swinging from 0.4 to 1.4 between runs). A fit longer than
    ``budget`` runs once.
    """
    times, spent = [], 0.0
    while len(times) < repeats and (not times or spent + times[-1] <= budget):
        t0 = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - t0)
        spent += times[-1]
    return out, min(times), times[0]


def write_results(name, rows):
    """Write ``rows`` (a list of dicts) to ``bench/results/<name>.json``."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(rows, indent=1) + "\n")
    return path


def markdown_table(rows, columns):
    """Return a markdown table of ``rows`` with ``columns`` as ``[(key, title, format), ...]``."""
    head = "| " + " | ".join(title for _, title, _ in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = []
    for row in rows:
        cells = []
        for key, _, fmt in columns:
            value = row.get(key)
            cells.append("—" if value is None else (fmt.format(value) if fmt else str(value)))
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join([head, rule, *body])
