"""Plain factory functions for web tests."""

from corelsweb.datasets.services import create_dataset
from corelsweb.runs.models import Run

SMALL_CSV = b"a,b,c,label\n0,1,2.5,yes\n1,0,3.5,no\n1,1,1.0,yes\n0,0,4.0,no\n1,0,2.0,yes\n0,1,3.0,no\n"


def make_dataset(owner, data=SMALL_CSV, name="small", roles=None):
    return create_dataset(owner, name, data, f"{name}.csv", roles)


def make_run(owner, dataset=None, status=Run.Status.QUEUED, algorithm="cart", params=None, **fields):
    from solver import registry

    dataset = dataset or make_dataset(owner)
    params = registry.get(algorithm).clean(params or {})
    return Run.objects.create(
        owner=owner,
        dataset=dataset,
        algorithm=algorithm,
        params=params,
        limits={"time_limit": 30},
        roles=dict(dataset.roles),
        status=status,
        **fields,
    )


def make_finished_run(owner, dataset=None, algorithm="cart", params=None):
    """Return a run with a real result (CART unless told), solved in this process."""
    from corelsweb.datasets.services import load_problem
    from corelsweb.runs.lifecycle import finish_with_result
    from solver import solve

    run = make_run(owner, dataset, status=Run.Status.RUNNING, algorithm=algorithm, params=params)
    result = solve(load_problem(run.dataset), algorithm, run.params)
    finish_with_result(run.pk, result)
    run.refresh_from_db()
    return run


def run_form_data(algorithm, time_limit=30, memory_limit_mb=1024, **params):
    """Return POST data of the run form with the registry's defaults, overridden by ``params``."""
    from solver import registry

    data = {"time_limit": time_limit, "memory_limit_mb": memory_limit_mb}
    for p in registry.get(algorithm).params:
        value = params.get(p.name, p.default)
        if p.kind == "bool":
            if value:
                data[f"p_{p.name}"] = "on"
        elif value is not None:
            data[f"p_{p.name}"] = value
    return data
