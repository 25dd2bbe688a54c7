"""The one contract the web side, the CLI and the estimators call: ``solve``.

``solve(problem, algorithm, params, limits, on_progress) -> Result``

``Result`` round-trips through JSON (``to_dict`` / ``from_dict``); its schema
is versioned by ``RESULT_SCHEMA_VERSION`` and documented in
``docs/result-schema.md``.
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass, field

from solver import driver, feature_summary, memory, metrics, registry, regularization, roles, timing
from solver.data import budget
from solver.driver import Limits
from solver.models import Tree, model_from_dict
from solver.problem import Problem, ProblemError
from solver.registry import ParameterError

__all__ = ["Limits", "ParameterError", "Problem", "ProblemError", "Result", "solve", "STATUSES"]

RESULT_SCHEMA = "corelsweb.result"
RESULT_SCHEMA_VERSION = 1
STATUSES = driver.FINAL_STATUSES


@dataclass(eq=False)
class Result:
    """What a solve returns.

    Attributes
    ----------
    algorithm : str
    params : dict
        The complete, cleaned parameters (defaults filled in).
    limits : Limits
    status : str
        One of ``STATUSES``. ``optimal`` is a certificate: no model has a
        smaller objective. ``heuristic`` means finished without any claim.
    objective : float
        Objective of ``model`` (lower is better).
    lower_bound : float or None
        Proved lower bound on the optimal objective (None when the algorithm
        proves nothing).
    model : Tree or RuleList
    metrics : dict
        Training metrics of ``model`` for its task.
    trace : dict of str to list
        Columns ``elapsed``, ``lower_bound``, ``upper_bound``, ``nodes``,
        ``memory`` and solver-specific extras, all of one length.
    stats : dict
        ``solve_seconds`` (the search, without compilation and I/O), ``compile_seconds``, ``setup_seconds``
        (the search's set-up), ``report_seconds`` (the model, its training metrics and the problem's summary
        after the search), ``peak_memory_bytes``, ``nodes`` and solver-specific counters; ``solver.pipeline``
        adds ``prepare_seconds`` (split and binarize) and ``evaluate_seconds`` (test vectors, test rows).
    problem : dict
        ``Problem.summary()`` of the training data, and ``searched``: the
        binary features the search picked from, per raw column
        (``solver.feature_summary.summarize``).
    extras : dict
        Algorithm-specific JSON-able output beyond the one model, e.g. a
        Pareto front of trees (from the search's optional ``extras()``).
    holdout : dict
        ``{"description": str, "metrics": dict}`` of the model on rows it was
        not fitted on, when the caller evaluated it (empty otherwise).
    test_vectors : list of dict
        Raw rows ``{"row": {column: value}, "expected": label}`` that exports
        of the model are checked against (filled by callers that hold the
        raw table; see ``solver.export.test_vectors``).
    timing : dict
        Where the fit's time went: ``{"stages": {stage: seconds}, "total_seconds": float}``, the stages of
        ``solver.timing.STAGES``, which sum to the total (``solver.timing``). A run on the web carries its
        whole life there, from the moment it was sent.
    """

    algorithm: str
    params: dict
    limits: Limits
    status: str
    objective: float
    lower_bound: float | None
    model: object
    metrics: dict = field(default_factory=dict)
    trace: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    problem: dict = field(default_factory=dict)
    extras: dict = field(default_factory=dict)
    test_vectors: list = field(default_factory=list)
    holdout: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)
    # In-process objects of the search that are not saved with the result (the Rashomon set's graph, for
    # ``RashomonSet``); empty for a result read from a file.
    live: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def optimal(self):
        return self.status == "optimal"

    @property
    def gap(self):
        """Relative optimality gap ``(objective - lower_bound) / objective``, or None."""
        if self.lower_bound is None or not math.isfinite(self.objective):
            return None
        if self.objective <= 0:
            return 0.0
        return max(0.0, (self.objective - self.lower_bound) / self.objective)

    def to_dict(self):
        return {
            "schema": RESULT_SCHEMA,
            "version": RESULT_SCHEMA_VERSION,
            "algorithm": self.algorithm,
            "params": dict(self.params),
            "limits": self.limits.to_dict(),
            "status": self.status,
            "objective": self.objective,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
            "model": self.model.to_dict(),
            "metrics": self.metrics,
            "trace": self.trace,
            "stats": self.stats,
            "problem": self.problem,
            "extras": self.extras,
            "test_vectors": self.test_vectors,
            "holdout": self.holdout,
            "timing": self.timing,
        }

    @classmethod
    def from_dict(cls, d):
        if d.get("schema") != RESULT_SCHEMA:
            raise ValueError("this is not a corelsweb result file")
        if int(d.get("version", 0)) > RESULT_SCHEMA_VERSION:
            raise ValueError(f"result schema version {d['version']} is newer than this program understands")
        return cls(
            algorithm=d["algorithm"],
            params=d["params"],
            limits=Limits.from_dict(d.get("limits")),
            status=d["status"],
            objective=d["objective"],
            lower_bound=d.get("lower_bound"),
            model=model_from_dict(d["model"]),
            metrics=d.get("metrics", {}),
            trace=d.get("trace", {}),
            stats=d.get("stats", {}),
            problem=d.get("problem", {}),
            extras=d.get("extras", {}),
            test_vectors=d.get("test_vectors", []),
            holdout=d.get("holdout", {}),
            timing=d.get("timing", {}),
        )


def warm(algorithm, config=None):
    """Compile (or load from cache) the kernels of ``algorithm`` (those a run with cleaned ``config`` uses); return the seconds."""
    from solver import compiling

    t0 = time.perf_counter()
    for unit in compiling.units_for(algorithm, config):
        compiling.warm_unit(unit)
    return time.perf_counter() - t0


def check_problem(problem, algorithm, config):
    """Raise ``ProblemError`` when ``problem`` lacks what ``algorithm`` needs."""
    lacking = roles.missing_sentence(algorithm, config, problem.roles())
    if lacking:
        raise ProblemError(lacking)
    if problem.n_samples == 0:
        raise ProblemError("There are no rows left to learn from.")
    if problem.y is not None and "label" in algorithm.required_roles(config):
        present = len(set(problem.y.tolist()))
        if present < 2:
            raise ProblemError(
                "The label has only one class, so there is nothing to learn; choose another label column."
            )
        if problem.n_classes > 2 and not algorithm.allows_multiclass(config):
            raise ProblemError(
                f"{algorithm.title} with these settings handles two classes; the label has {problem.n_classes}."
            )


def solve(problem, algorithm, params=None, limits=None, on_progress=None, on_incumbent=None, stopwatch=None):
    """Fit ``algorithm`` to ``problem`` and return a ``Result``.

    Parameters
    ----------
    problem : Problem
    algorithm : str
        A name from ``solver.registry``.
    params : dict, optional
        Parameter values by name; missing ones take their defaults.
    limits : Limits, optional
    on_progress : callable, optional
        Called with a progress dict between search steps; return ``False``
        to cancel (the result then has status ``cancelled``).
    on_incumbent : callable, optional
        Called between search steps, at most every ``INCUMBENT_INTERVAL_SECONDS``
        and only when the best model improved, with a provisional ``Result``
        (status ``running``, no trace) of the best model so far, so that a
        caller can keep it should the search never return (a supervisor
        that has to end a stuck search keeps its best model).
    stopwatch : solver.timing.Stopwatch, optional
        The caller's clock, lapped here as ``preparing`` (checks and the search's set-up), ``compiling``,
        ``searching`` and ``evaluating`` (the model, its training metrics and the problem's summary); without
        one, a stopwatch started at this call. ``Result.timing`` is its split.

    Raises
    ------
    ParameterError, ProblemError
        With one plain sentence, before any search starts.
    """
    watch = stopwatch or timing.Stopwatch()
    spec = registry.get(algorithm)
    config = spec.clean(params)
    check_problem(problem, spec, config)
    config, from_data = spec.resolve(config, problem)
    limits = limits or Limits()
    watch.lap("preparing")
    compile_seconds = warm(algorithm, config)
    watch.lap("compiling")
    module = importlib.import_module(spec.search_module)
    problem = _within_budget(problem, module, config, limits)
    memory.reset_peak()
    baseline = memory.current_rss()
    with memory.hard_limit(limits.memory_limit):
        set_up = time.perf_counter()
        search = _set_up(module, problem, config, limits)
        set_up = time.perf_counter() - set_up
        report = on_progress
        if on_incumbent is not None:
            report = _IncumbentReporter(
                on_progress, on_incumbent, lambda: _result(spec, config, problem, limits, search, "running", {}, {})
            )
        watch.lap("preparing")
        started = time.perf_counter()
        outcome = driver.run(search, limits, report, baseline=baseline)
        watch.lap("searching")
        reported = time.perf_counter()
        if hasattr(search, "stop"):
            search.stop(_post_deadline(limits, outcome.status, started))
        stats = dict(
            solve_seconds=outcome.solve_seconds,
            compile_seconds=compile_seconds,
            setup_seconds=set_up,
            peak_memory_bytes=outcome.peak_memory_bytes,
            steps=outcome.steps,
        )
        result = _result(spec, config, problem, limits, search, outcome.status, outcome.trace.columns, stats)
        result.stats["report_seconds"] = time.perf_counter() - reported
        if from_data:
            result.extras = {**result.extras, "from_data": from_data}
    if hasattr(search, "live"):
        result.live = search.live()
    watch.lap("evaluating")
    result.timing = watch.split()
    return result


def within_budget(problem, algorithm, params=None, limits=None):
    """Return ``problem`` as ``solve`` searches it: a 0/1 search's exact thresholds thinned to fit its budget.

    (``solver.data.budget``.) A caller that reads the search's features after the solve (the Rashomon set's
    votes on test rows) calls this first and solves what it returns; ``solve`` then changes nothing.
    """
    spec = registry.get(algorithm)
    return _within_budget(problem, importlib.import_module(spec.search_module), spec.clean(params), limits or Limits())


def _within_budget(problem, module, config, limits):
    reads_binary = getattr(module, "reads_binary", None)
    if reads_binary is not None and not reads_binary(problem, config):
        return problem
    return budget.thinned(problem, budget.budget_cells(limits.memory_limit))


def _set_up(module, problem, config, limits):
    """Return the search of ``module`` for ``problem``; a set-up past the memory limit is the data's fault."""
    try:
        return module.make_search(problem, config)
    except MemoryError:
        mb = f"{limits.memory_limit / 2**20:,.0f} MB" if limits.memory_limit else "the memory this machine has free"
        raise ProblemError(
            f"Setting up this search needs more memory than {mb}: raise the memory limit, or make the problem "
            "smaller (fewer thresholds with the quantile binarization, a smaller depth or a larger λ)."
        ) from None


POST_SEARCH_SECONDS = 0.5  # what a stopped search may spend on its model and report past its time limit


def _post_deadline(limits, status, started):
    """Return the ``time.perf_counter()`` by which a search's post-search work must end (None: no limit).

    Under a time limit that is the limit plus ``POST_SEARCH_SECONDS``; a cancelled run gets
    ``POST_SEARCH_SECONDS`` from now, so both stay within the anytime contract (limit + ~1 s).
    """
    now = time.perf_counter()
    if status == "cancelled":
        return now + POST_SEARCH_SECONDS
    if limits.time_limit is None:
        return None
    return max(started + limits.time_limit, now) + POST_SEARCH_SECONDS


def _result(spec, config, problem, limits, search, status, trace, run_stats):
    """Return the ``Result`` of ``search`` as it stands (its best model, bounds and statistics)."""
    model = search.best_model()
    stats = dict(search.stats())
    stats.update(run_stats, nodes=int(search.nodes))
    lower_bound = search.lower_bound if spec.proves_optimality else None
    if (
        status == "optimal"
        and spec.proves_optimality
        and config.get("regularization")
        and isinstance(model, Tree)
        and model.n_leaves == 1
    ):
        # A single-leaf optimum: say how small λ must be for a split to pay (the page suggests it). Only for a
        # proved optimum: a stopped run's leaf is no reason to lower λ, and the pass over every feature would
        # delay the run's return past its time limit (seconds on thousands of thresholds).
        objective = "ibs" if model.kind == "survival" else config.get("objective", "accuracy")
        stats["best_split_gain"] = regularization.best_split_gain(problem, objective, config)
    return Result(
        algorithm=spec.name,
        params=config,
        limits=limits,
        status=status,
        objective=float(search.upper_bound),
        lower_bound=None if lower_bound is None else float(lower_bound),
        model=model,
        # The model indexes the search's own columns (CORELS mines antecedents from the features).
        metrics=metrics.evaluate(model, getattr(search, "problem", problem)),
        trace=trace,
        stats=stats,
        problem=_problem_summary(problem, search),
        extras=search.extras() if hasattr(search, "extras") else {},
    )


def _problem_summary(problem, search):
    """Return ``Problem.summary()`` with what the search picked its splits from (and which columns in order)."""
    summary = {**problem.summary(), "searched": feature_summary.summarize(problem.features, problem.ordered)}
    direct = getattr(search, "searched_directly", None)
    if direct is not None:
        summary["binarization"] = {**summary.get("binarization", {}), "searched_directly": direct()}
    return summary


INCUMBENT_INTERVAL_SECONDS = 1.0


class _IncumbentReporter:
    """``on_progress`` for the driver that also hands out the best model whenever it improved (throttled)."""

    def __init__(self, on_progress, on_incumbent, snapshot, clock=time.monotonic):
        self.on_progress, self.on_incumbent, self.snapshot, self.clock = on_progress, on_incumbent, snapshot, clock
        self.best = math.inf
        self.last = -math.inf

    def __call__(self, point):
        upper = point.get("upper_bound")
        now = self.clock()
        if (
            upper is not None
            and upper < self.best
            and (now - self.last >= INCUMBENT_INTERVAL_SECONDS or point.get("status") != "running")
        ):
            self.best, self.last = upper, now
            self.on_incumbent(self.snapshot())
        return None if self.on_progress is None else self.on_progress(point)
