# Check the warm units (solver/compiling.py): every kernel belongs to one, and warming the units a run uses
# leaves nothing for the run to compile.
#
# Each check runs in a fresh interpreter (this one may have compiled anything already), which loads the
# kernels from the shared on-disk cache: run `manage.py warm` first, or the first check compiles them.
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

KERNELS = '''
import importlib, pkgutil
import numba
import solver


def kernels():
    """Return {name: dispatcher} for every kernel defined in the solver package."""
    out = {}
    for info in pkgutil.walk_packages(solver.__path__, "solver."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.py_func.__module__.startswith("solver"):
                out[f"{value.py_func.__module__}.{value.py_func.__qualname__}"] = value
    return out


def signatures(found):
    return {name: sorted(str(s) for s in d.signatures) for name, d in found.items()}
'''

COVERAGE = (
    KERNELS
    + '''
import json
from solver import compiling

found = kernels()
by_function = {d.py_func: name for name, d in found.items()}


def callees(d):
    """The kernels that kernel ``d``'s code names (``f(...)`` and ``module.f(...)``)."""
    fn, out = d.py_func, set()
    g = fn.__globals__
    for const in (fn.__code__,) + tuple(c for c in fn.__code__.co_consts if hasattr(c, "co_names")):
        for name in const.co_names:
            value = g.get(name)
            candidates = [value] + [getattr(value, n, None) for n in const.co_names] if value is not None else []
            for c in candidates:
                if isinstance(c, numba.core.registry.CPUDispatcher) and c.py_func in by_function:
                    out.add(by_function[c.py_func])
    return out


covered = {}
for unit in compiling.UNITS:
    compiling.warm_unit(unit)
    entry = [name for name, d in found.items() if d.signatures and name not in covered]
    stack = list(entry)
    while stack:
        name = stack.pop()
        if name in covered:
            continue
        covered[name] = unit
        stack.extend(callees(found[name]) - covered.keys())
print(json.dumps({"kernels": sorted(found), "covered": covered}))
'''
)

RUN = (
    KERNELS
    + """
import json, sys
from solver import api, compiling, registry
from solver.api import Limits
from solver.data import Roles, make_problem, read_file

algorithm, path, roles, binarization, params = json.loads(sys.argv[1])
config = registry.get(algorithm).clean(params)
units = compiling.units_for(algorithm, config)
for unit in units:
    compiling.warm_unit(unit)
found = kernels()
before = signatures(found)
problem = make_problem(read_file(path), Roles(**roles), binarization)
result = api.solve(problem, algorithm, params, Limits(time_limit=30, node_limit=20000))
after = signatures(found)
new = {name: sorted(set(after[name]) - set(before[name])) for name in found if set(after[name]) - set(before[name])}
print(json.dumps({"units": list(units), "status": result.status, "new": new}))
"""
)


def run_fresh(script, *args):
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_kernel_belongs_to_a_warm_unit():
    out = run_fresh(COVERAGE)
    from solver import compiling

    missing = sorted(set(out["kernels"]) - set(out["covered"]) - compiling.OUTSIDE_RUNS)
    assert not missing, f"kernels that no warm unit compiles (a run would compile them): {missing}"


SAMPLES = ROOT / "corelsweb" / "datasets" / "samples"


@pytest.fixture(scope="module")
def numeric_csv(tmp_path_factory):
    # Numeric columns, so that the searches over thresholds (solver/ordered) run too.
    rng = np.random.default_rng(3)
    x = rng.integers(0, 9, size=(60, 3))
    label = ((x[:, 0] > 4) ^ (x[:, 1] > 6)).astype(int)
    label[:5] = 1 - label[:5]
    path = tmp_path_factory.mktemp("compiling") / "numeric.csv"
    rows = ["x0,x1,x2,label"] + [f"{a},{b},{c},{y}" for (a, b, c), y in zip(x.tolist(), label.tolist())]
    path.write_text("\n".join(rows) + "\n")
    return path


# id: (algorithm, file, roles, binarization, params)
CASES = {
    "cart": ("cart", "monk1.csv", {"label": "class_1"}, "exact", {"max_depth": 2}),
    "corels": ("corels", "monk1.csv", {"label": "class_1"}, "exact", {"regularization": 0.01}),
    "osdt": ("osdt", "monk1.csv", {"label": "class_1"}, "exact", {"regularization": 0.02}),
    "osst": ("osst", "veterans-surv.csv", {"time": "time", "event": "event"}, "exact", {"max_depth": 2}),
    "gosdt": ("gosdt", "monk1.csv", {"label": "class_1"}, "exact", {"regularization": 0.01}),
    "gosdt-numeric": ("gosdt", "numeric", {"label": "label"}, "exact", {"regularization": 0.01, "max_depth": 3}),
    "gosdt-f1": ("gosdt", "monk1.csv", {"label": "class_1"}, "exact", {"objective": "f1", "regularization": 0.02}),
    "rashomon": ("rashomon", "monk1.csv", {"label": "class_1"}, "exact", {"regularization": 0.02}),
    "streed": ("streed", "monk1.csv", {"label": "class_1"}, "exact", {"max_depth": 3}),
    "streed-numeric": ("streed", "numeric", {"label": "label"}, "exact", {"max_depth": 3}),
    "streed-f1": ("streed", "monk1.csv", {"label": "class_1"}, "exact", {"objective": "f1", "max_depth": 3}),
    "streed-parity": (
        "streed",
        "monk1.csv",
        {"label": "class_1", "group": "a1_1"},
        "exact",
        {"objective": "demographic_parity", "max_depth": 3},
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_run_after_warming_its_units_compiles_nothing(case, numeric_csv):
    algorithm, file, roles, binarization, params = CASES[case]
    path = numeric_csv if file == "numeric" else SAMPLES / file
    out = run_fresh(RUN, json.dumps([algorithm, str(path), roles, binarization, params]))
    assert out["status"] in ("optimal", "heuristic", "time_limit", "node_limit")
    assert not out["new"], f"{case}: after warming {out['units']} the run compiled {out['new']}"


@pytest.fixture
def fresh_process(monkeypatch):
    """This process as one that has warmed no unit yet (the units load from the on-disk cache)."""
    from solver import compiling

    monkeypatch.setattr(compiling, "_done", set())
    return compiling


def test_a_unit_another_process_compiles_is_taken_last(fresh_process, tmp_path):
    import fcntl
    import threading

    compiling = fresh_process
    started = []
    # Another process holds "cart": this one takes "corels" first, then waits for "cart" and loads it.
    with open(tmp_path / "cart.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        release = threading.Timer(0.5, lambda: fcntl.flock(held, fcntl.LOCK_UN))
        release.start()
        seconds = compiling.warm(["cart", "corels"], tmp_path, on_start=started.append)
        release.join()
    assert started == ["corels", "cart"] and set(seconds) == {"cart", "corels"}
    assert compiling.is_warm("cart") and compiling.is_warm("corels")


def test_the_units_of_waiting_runs_are_warmed_first(fresh_process, tmp_path):
    compiling = fresh_process
    started = []
    compiling.warm(["cart", "osst", "corels"], tmp_path, first=lambda: ["corels"], on_start=started.append)
    assert started == ["corels", "cart", "osst"]


def test_a_run_waits_only_for_the_units_its_settings_use():
    from solver import compiling, registry

    def units(algorithm, **params):
        return compiling.units_for(algorithm, registry.get(algorithm).clean(params))

    assert units("gosdt") == ("ordered", "gosdt-dpb")
    assert units("gosdt", objective="auc") == ("gosdt-rank",)
    assert units("streed") == ("ordered", "streed")
    assert units("streed", objective="f1") == ("ordered", "streed", "streed-f1")
    every = {u for name in registry.algorithms() for u in compiling.units_for(name)}
    assert every == set(compiling.UNITS)


def _finish_times(order, processes):
    """Simulate ``processes`` each taking the next unit of ``order`` when free; return when each one ends."""
    from solver import compiling

    free = [0.0] * processes
    for unit in order:
        i = free.index(min(free))
        free[i] += compiling.UNIT_SECONDS[unit]
    return free


def test_the_long_units_go_longest_first_so_that_two_processes_end_together():
    from solver import compiling

    algorithms = ("cart", "osst", "corels", "gosdt", "osdt", "streed", "rashomon")  # cheapest first
    order = compiling.schedule(algorithms)
    assert sorted(order) == sorted(compiling.UNITS)
    # The quick algorithms first, cheapest first: they are ready within seconds.
    assert order[:3] == ["cart", "osst", "corels"]
    rest = [compiling.UNIT_SECONDS[u] for u in order[3:]]
    assert rest == sorted(rest, reverse=True)
    # Two processes taking the next free unit end within 5 % of an even split (by algorithm, cheapest first,
    # the second one would start STreeD's long unit last and end 10 s after the other).
    total = sum(compiling.UNIT_SECONDS.values())
    assert max(_finish_times(order, 2)) <= 1.05 * total / 2
    by_algorithm = list(dict.fromkeys(u for a in algorithms for u in compiling.ALGORITHM_UNITS[a]))
    assert max(_finish_times(order, 2)) < max(_finish_times(by_algorithm, 2))
