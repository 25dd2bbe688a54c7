"""Runs as the web side sees them: create, cancel, retry, queue choice, estimates and quotas.

What happens to a run once it is stored (sending, claiming, execution,
finishing) is ``corelsweb.runs.lifecycle``.
"""

import logging

from django.conf import settings
from django.db.models import F
from django.http import Http404
from django.shortcuts import get_object_or_404

from corelsweb.datasets.services import features_preview
from corelsweb.runs import lifecycle
from corelsweb.runs.models import Run
from solver import registry
from solver.data import DataError, Roles
from solver import roles as solver_roles
from solver.registry import ParameterError

log = logging.getLogger(__name__)


def get_run_for_user(request, pk):
    """Return run ``pk`` if the signed-in user owns it, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(Run.objects.select_related("dataset"), pk=pk, owner=request.user)


def new_run(owner, dataset, algorithm, params, limits, evaluation=None, note="", path=None):
    """Return an unsaved queued run with a snapshot of the dataset's roles and binarization, routed to a queue."""
    run = Run(
        owner=owner,
        dataset=dataset,
        algorithm=algorithm,
        params=params,
        limits=limits,
        roles=dict(dataset.roles),
        binarization=registry.get(algorithm).binarization_for(dataset.binarization),
        evaluation=evaluation or {},
        note=note,
        path=path,
    )
    run.queue = queue_for(run)
    return run


def queue_for(run):
    """Return the queue of a run: ``long`` for hard searches or long time limits, else ``short``."""
    if (run.limits or {}).get("time_limit", 0) > settings.CORELSWEB_LONG_RUN_SECONDS:
        return "long"
    try:
        guess = estimate_for(run.dataset, run.algorithm, run.params)
    except (KeyError, TypeError, ValueError, ParameterError):
        return "short"
    hard = guess is not None and guess["level"] in ("hard", "very hard")
    return "long" if registry.get(run.algorithm).proves_optimality and hard else "short"


def create_run(owner, dataset, algorithm, params, limits, evaluation=None, note=""):
    """Store a queued run and enqueue it once the transaction commits."""
    run = new_run(owner, dataset, algorithm, params, limits, evaluation, note)
    run.save()
    lifecycle.send([run])
    return run


def retry_run(run):
    """Queue a fresh run with the same settings and evaluation (and path cell), under the dataset's current roles."""
    copy = new_run(run.owner, run.dataset, run.algorithm, run.params, run.limits, run.evaluation, run.note, run.path)
    copy.save()
    lifecycle.send([copy])
    return copy


def cancel_run(run):
    """Cancel a queued (or still compiling) run at once; ask a running one to stop (it keeps its best model)."""
    before_search = (Run.Status.QUEUED, Run.Status.COMPILING)
    if lifecycle.finish(run.pk, Run.Status.CANCELLED, error="Cancelled before it started.", expected=before_search):
        return
    Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(cancel_requested=True, version=F("version") + 1)


def algorithm_for(name):
    """Return the registry entry of ``name`` or 404 (a URL named an unknown algorithm)."""
    try:
        return registry.get(name)
    except ParameterError:
        raise Http404 from None


def missing_roles(dataset, algorithm, config):
    """Return the plain-words roles ``algorithm`` needs that ``dataset`` has not been given."""
    have = {k for k, v in dataset.roles.items() if v}
    return [solver_roles.words(r) for r in solver_roles.missing(algorithm, config, have)]


def estimate_for(dataset, algorithm, params):
    """Return the rough pre-run estimate of ``algorithm`` with ``params`` on ``dataset``, or None.

    The binary features come from the dataset page's (cached) preview; the
    algorithm says how many candidates the search makes of them (mined rules).
    None when the roles do not make a problem yet.
    """
    from corelsweb.runs.objectives import dataset_loss0
    from solver.estimate import estimate_for as algorithm_estimate

    preview = features_preview(dataset)
    if "n_features" not in preview:
        return None
    spec = registry.get(algorithm)
    binarization = spec.binarization_for(dataset.binarization)
    if binarization != dataset.preview_binarization:
        # The algorithm binarizes its own way (CORELS: quantile:8): count its features, not the page's (loans:
        # 35,160 exact thresholds; CORELS mines 528 antecedents from its quantile:8 features). From the stored
        # column profiles, without the file.
        from solver.data.features import preview_from_profile

        try:
            preview = preview_from_profile(
                dataset.profile_columns(), Roles.from_dict(dataset.roles), binarization, dataset.n_rows
            )
        except DataError:
            return None
    n_features = spec.searched_features(preview["n_features"], params)
    column_cuts = [count for _, count in preview.get("by_column", [])]
    out = algorithm_estimate(
        spec,
        n_features,
        dataset.n_rows,
        dataset_loss0(dataset, algorithm, params, preview),
        params,
        binarization=binarization,
        column_cuts=column_cuts,
    )
    out["binarization"] = binarization
    return out


def quota_problem(owner, new_runs=1):
    """Return a plain sentence when ``owner`` would pass the limit on queued and running runs, else None."""
    active = Run.objects.filter(owner=owner, status__in=Run.ACTIVE).count()
    limit = settings.CORELSWEB_MAX_ACTIVE_RUNS
    if active + new_runs > limit:
        return (
            f"You have {active} runs queued or running and may have at most {limit}; wait for some to finish "
            "or cancel them."
        )
    return None


# The run settings that make two runs see the same training rows and the same binary features.
SAME_DATA = ("roles", "binarization", "evaluation")


def optimal_run_for(run):
    """Return the newest GOSDT run of ``run``'s owner on the same data with the settings of a Rashomon run, or None.

    Same dataset, roles, binarization and evaluation, and GOSDT's objective, λ, depth and ω equal to
    the Rashomon run's (``solver.rashomon.search.gosdt_config``): its optimum is the set's centre.
    """
    from solver.rashomon.search import gosdt_config

    wanted = gosdt_config(run.params)
    keys = ("objective", "regularization", "max_depth", "cost_weight")
    candidates = (
        Run.objects.filter(owner=run.owner, dataset=run.dataset, algorithm="gosdt")
        .exclude(status__in=(Run.Status.FAILED, Run.Status.CANCELLED))
        .order_by("-created")
    )
    for other in candidates:
        if all(getattr(other, k) == getattr(run, k) for k in SAME_DATA) and all(
            other.params.get(k) == wanted[k] for k in keys
        ):
            return other
    return None


def optimal_run_settings(run):
    """Return (params, limits, evaluation) of the GOSDT run that proves the centre of a Rashomon run's set."""
    from solver.rashomon.search import gosdt_config

    return gosdt_config(run.params), dict(run.limits), dict(run.evaluation or {})


def rashomon_favourites(run):
    """Return the texts of the trees of a Rashomon run its owner keeps as favourites."""
    return set(run.rashomon_favourites.values_list("tree", flat=True))


def toggle_rashomon_favourite(run, tree):
    """Keep ``tree`` (its ``xj?(A|B)`` text) as a favourite of ``run``, or drop it if kept; return whether kept now."""
    from corelsweb.runs.models import RashomonFavourite

    deleted, _ = RashomonFavourite.objects.filter(run=run, tree=tree).delete()
    if deleted:
        return False
    RashomonFavourite.objects.get_or_create(run=run, tree=tree)
    return True
