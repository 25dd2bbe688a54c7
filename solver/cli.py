"""The command line over ``solver.solve``: ``python -m solver fit|predict|algorithms``.

Every error reaches the user as one plain sentence on stderr with a
non-zero exit code, never a traceback (``--debug`` shows it).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import sys
import tempfile
from dataclasses import replace

from solver import export, pipeline, registry, timing
from solver.api import Limits, ProblemError, Result
from solver.data import DataError, Roles, read_file
from solver.data.profile import identifier_columns
from solver.data.roles import event_values
from solver.predict import neutralize, write_predictions  # noqa: F401 (neutralize: re-exported)
from solver.registry import ParameterError
from solver.roles import ROLES

EXIT_USAGE = 2
EXIT_INTERNAL = 1
ROLE_OPTIONS = tuple(r.name for r in ROLES if r.name != "label")  # label has its own option


class CliError(Exception):
    """A user error reported as one sentence."""


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m solver", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", required=True)

    fit = sub.add_parser("fit", help="fit a model and write its result JSON")
    fit.add_argument("data", help="CSV, TSV or Parquet file with a header row")
    fit.add_argument("--algorithm", required=True, help="one of: python -m solver algorithms")
    fit.add_argument("--label", help="label column (default: the last column)")
    for role in ROLE_OPTIONS:
        fit.add_argument(f"--{role}", help=f"{role} column")
    fit.add_argument("--positive-class", help="label value that counts as positive")
    fit.add_argument(
        "--event-value",
        help="value(s) of the event column that mean an event, comma-separated; the others are censored "
        "(default: the column is 0/1; R's survival package codes 1 = censored, 2 = event: --event-value 2)",
    )
    fit.add_argument("--features", help="comma-separated feature columns (default: all others)")
    fit.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="algorithm parameter")
    fit.add_argument(
        "--binarize",
        help="exact | quantile:K | gbdt[:N[:D]] | none (default: the algorithm's, "
        "as on the web form: exact; corels quantile:8)",
    )
    fit.add_argument(
        "--missing",
        action="append",
        default=[],
        metavar="[COL=]feature|drop",
        help="missing-value policy of every feature column, or of one (default: feature)",
    )
    fit.add_argument(
        "--feature-cost",
        action="append",
        default=[],
        metavar="COL=COST",
        help="cost of testing a raw column (others cost 1 once one is given)",
    )
    fit.add_argument(
        "--ordered",
        action="append",
        default=[],
        metavar="COL=LOW<...<HIGH",
        help="declared order of a categorical column (binarized as COL ≤ v)",
    )
    fit.add_argument("--max-categories", type=int, default=50, help="values of a text column with a feature each")
    fit.add_argument(
        "--levels",
        action="append",
        default=[],
        metavar="COL=frequent|top",
        help="values kept of a text column with more than --max-categories of them: those on at least 1%% of "
        "the rows (frequent, the default) or the most frequent (top); the rest are grouped as 'other'",
    )
    fit.add_argument("--holdout", type=float, help="fraction of rows held out for testing (stratified)")
    fit.add_argument("--test", help="CSV of test rows with the same columns")
    fit.add_argument("--seed", type=int, default=0, help="seed of the holdout split (default 0)")
    fit.add_argument("--time-limit", type=float, help="seconds")
    fit.add_argument("--node-limit", type=int)
    fit.add_argument("--memory-limit", type=float, help="megabytes")
    fit.add_argument("--out", required=True, help="where to write the result JSON ('-' for stdout)")
    fit.add_argument("--quiet", action="store_true", help="no progress on stderr")

    predict = sub.add_parser("predict", help="apply a fitted model to a raw CSV")
    predict.add_argument("result", help="result JSON written by fit")
    predict.add_argument("data", help="CSV, TSV or Parquet file with the columns the model uses")
    predict.add_argument("--out", required=True, help="where to write predictions CSV ('-' for stdout)")
    predict.add_argument("--id", help="column of DATA to copy into every prediction row")

    exp = sub.add_parser("export", help="write a fitted model as JSON, a Python function or a SQL CASE expression")
    exp.add_argument("result", help="result JSON written by fit")
    exp.add_argument("--format", required=True, choices=export.EXPORT_FORMATS)
    exp.add_argument("--out", default="-", help="where to write it (default stdout)")

    sub.add_parser("algorithms", help="list algorithms and their parameters")
    return parser


def parse_params(pairs):
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise CliError(f"--param needs NAME=VALUE, got {pair!r}.")
        name, value = pair.split("=", 1)
        params[name.strip()] = value.strip()
    return params


def roles_from_args(args, table, algorithm, config):
    needs = algorithm.required_roles(config)
    chosen = {role: getattr(args, role) for role in ROLE_OPTIONS}
    names = table.names
    if "time" in needs and not chosen["time"] and not chosen["event"]:
        chosen["time"], chosen["event"] = names[-2], names[-1]
    label = args.label
    if label is None and "label" in needs:
        label = names[-1]
    features = tuple(f.strip() for f in args.features.split(",")) if args.features else None
    roles = Roles(
        label=label,
        features=features,
        positive_class=args.positive_class,
        event_value=event_values(args.event_value),
        missing=missing_policies(args.missing, names),
        feature_cost=costs(args.feature_cost),
        ordered={c: [v.strip() for v in o.split("<")] for c, o in pairs(args.ordered, "--ordered").items()},
        max_categories=args.max_categories,
        levels=pairs(args.levels, "--levels"),
        **chosen,
    )
    if features is None:
        # Row counters and free-text identifiers are noise to a tree; leave them out unless named.
        ids = [c for c in identifier_columns(table) if c in roles.feature_columns(names)]
        for c in ids:
            note(args, f"column {c!r} looks like a row identifier and is left out (name it in --features to keep it).")
        roles = replace(roles, ignore=tuple(ids))
    return roles


def pairs(items, option):
    out = {}
    for item in items:
        if "=" not in item:
            raise CliError(f"{option} needs COLUMN=VALUE, got {item!r}.")
        column, value = item.split("=", 1)
        out[column.strip()] = value.strip()
    return out


def costs(items):
    out = {}
    for column, value in pairs(items, "--feature-cost").items():
        try:
            out[column] = float(value)
        except ValueError:
            raise CliError(f"--feature-cost needs a number for {column!r}, got {value!r}.") from None
    return out


def missing_policies(items, names):
    policies = {}
    for item in items:
        if "=" in item:
            policies.update(pairs([item], "--missing"))
        else:
            policies.update({name: item.strip() for name in names})
    return policies


def note(args, text):
    if not args.quiet:
        print(f"note: {text}", file=sys.stderr)


def fit(args):
    watch = timing.Stopwatch()
    algorithm = registry.get(args.algorithm)
    params = parse_params(args.param)
    config = algorithm.clean(params)
    table = read_file(args.data)
    roles = roles_from_args(args, table, algorithm, config)
    evaluation = None
    if args.test:
        evaluation = pipeline.TestTable(read_file(args.test), args.test)
    elif args.holdout:
        evaluation = pipeline.Holdout(args.holdout, args.seed)
    watch.lap("reading")
    prepared = pipeline.prepare(table, roles, args.algorithm, args.binarize, evaluation, stopwatch=watch, params=params)
    for text in table.notes + prepared.problem.notes:
        note(args, text)
    limits = Limits(
        time_limit=args.time_limit,
        node_limit=args.node_limit,
        memory_limit=None if args.memory_limit is None else int(args.memory_limit * 2**20),
    )
    on_progress = None if args.quiet else _print_progress
    result = pipeline.run(prepared, config, limits, on_progress)
    if not args.quiet:
        sys.stderr.write("\n")
    write_text(args.out, result_text(result, watch))
    if not args.quiet:
        print(summary_line(result), file=sys.stderr)
        print(f"time: {timing.summary_line(result.timing)}", file=sys.stderr)
    for text in result_notes(result):
        note(args, text)
    return 0


def result_text(result, watch):
    """Return the result file's text; its ``timing`` counts making that text as ``storing`` (not the write)."""
    d = result.to_dict()
    del d["timing"]
    body = json.dumps(d, indent=1)
    watch.lap("storing")
    result.timing = watch.split()
    # The split goes last, spliced in, so that the text it times is made once.
    split = json.dumps(result.timing, indent=1).replace("\n", "\n ")
    return f'{body[:-2]},\n "timing": {split}\n}}\n'


def result_notes(result):
    """Return the sentences a result owes its reader: data-chosen defaults, reduced thresholds."""
    extras = result.extras or {}
    notes = list((extras.get("from_data") or {}).values())
    for name in ("threshold_budget", "set_aside"):
        if extras.get(name):
            notes.append(extras[name]["note"])
    binarization = (result.problem or {}).get("binarization") or {}
    if binarization.get("thinned"):  # a 0/1 matrix within the memory budget (solver.data.budget)
        notes.append(binarization["note"])
    return notes


def _print_progress(p):
    lb = "-" if p.get("lower_bound") is None else f"{p['lower_bound']:.6f}"
    ub = "-" if p.get("upper_bound") is None else f"{p['upper_bound']:.6f}"
    sys.stderr.write(f"\r{p['elapsed']:8.2f}s  lower {lb}  upper {ub}  nodes {p['nodes']:,}   ")
    sys.stderr.flush()


def summary_line(result):
    bound = "" if result.lower_bound is None else f", lower bound {result.lower_bound:.6f}"
    size = (
        f"{result.model.n_leaves} leaves"
        if result.model.to_dict()["type"] == "tree"
        else f"{result.model.length} rules"
    )
    return f"{result.status}: objective {result.objective:.6f}{bound}, {size}"


def load_result(path):
    try:
        with open(path, encoding="utf-8") as f:
            return Result.from_dict(json.load(f))
    except OSError as e:
        raise CliError(f"Cannot read {path}: {e.strerror}.") from None
    except (ValueError, KeyError, TypeError) as e:
        raise CliError(f"{path} is not a result file written by 'python -m solver fit' ({e}).") from None


def predict(args):
    result = load_result(args.result)
    try:
        data = open(args.data, "rb")
    except OSError as e:
        raise CliError(f"Cannot read {args.data}: {e.strerror}.") from None
    with data, output_text(args.out) as out:
        warnings = write_predictions(result.model, data, out, id_column=args.id)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def output_text(path):
    """Yield a text stream to ``path`` ('-' = stdout); a file appears only once it is complete."""
    if path == "-":
        yield sys.stdout
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, tmp = tempfile.mkstemp(dir=folder, prefix=".partial-", suffix=".csv")
    except OSError as e:
        raise CliError(f"Cannot write {path}: {e.strerror}.") from None
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as out:
            yield out
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def export_model(args):
    result = load_result(args.result)
    text, _, _ = export.render(result.model, args.format, result.test_vectors)
    write_text(args.out, text)
    return 0


def algorithms(args):
    for algo in registry.algorithms().values():
        print(f"{algo.name}: {algo.title}")
        for p in algo.params:
            extra = f" choices={','.join(p.choices)}" if p.choices else ""
            print(f"    {p.name} ({p.kind}, default {p.default}){extra}: {p.help}")
    return 0


def write_text(path, text):
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise CliError(f"Cannot write {path}: {e.strerror}.") from None


def write_csv(path, rows):
    if path == "-":
        csv.writer(sys.stdout).writerows(rows)
        return
    try:
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
    except OSError as e:
        raise CliError(f"Cannot write {path}: {e.strerror}.") from None


COMMANDS = {"fit": fit, "predict": predict, "export": export_model, "algorithms": algorithms}


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (CliError, DataError, ParameterError, ProblemError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted.", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly.
        sys.stdout = open(os.devnull, "w")
        return EXIT_INTERNAL
    except MemoryError:
        print("error: out of memory; try a smaller file or the quantile binarization.", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as e:  # the promise is one sentence, never a traceback
        if args.debug:
            raise
        print(f"error: internal error ({type(e).__name__}: {e}); rerun with --debug and report it.", file=sys.stderr)
        return EXIT_INTERNAL
