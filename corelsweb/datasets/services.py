"""Creating datasets from uploads, checking their roles, previewing and binarizing them."""

import dataclasses
import hashlib
import io
from datetime import timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Sum
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from corelsweb.datasets.models import STATS_KEYS, Dataset
from corelsweb.datasets.samples import SAMPLES
from corelsweb.datasets.uploads import size_words
from corelsweb.security import hit
from solver import predict, registry
from solver.data import DataError, ReadLimits, Roles, make_problem, profile_file, read_table
from solver.data.binarize import event_coding_error, parse_method
from solver.data.features import preview_from_problem, preview_from_profile
from solver.models import model_from_dict
from solver.roles import missing_sentence

MAX_LABEL_CLASSES = 50


def read_limits():
    return ReadLimits(
        max_rows=settings.CORELSWEB_MAX_ROWS,
        max_columns=settings.CORELSWEB_MAX_COLUMNS,
        max_cell_chars=settings.CORELSWEB_MAX_CELL_CHARS,
    )


def get_dataset_for_user(request, pk):
    """Return the dataset ``pk`` if the signed-in user owns it, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(Dataset, pk=pk, owner=request.user)


def check_upload_size(uploaded):
    """Refuse an uploaded file over the size limit (the upload handler stops most of them earlier)."""
    limit = settings.CORELSWEB_MAX_UPLOAD_BYTES
    if uploaded.size is not None and uploaded.size > limit:
        raise DataError(f"The file is {size_words(uploaded.size)}; the limit is {size_words(limit)}.")


def default_roles(columns):
    """Guess roles from a profile: survival files end with ``time,event``; else the last column is the label.

    A last column that cannot be a label (one value, too many values, or
    empty) gets no role, and the dataset page asks the user to choose.
    Identifier-like columns are left out of the features.
    """
    names = [c["name"] for c in columns]
    roles = {}
    identifiers = [c["name"] for c in columns if c["type"] == "identifier"]
    if len(names) >= 3 and names[-2:] == ["time", "event"]:
        roles = {"time": "time", "event": "event"}
    elif label_problem(columns[-1]) is None:
        roles = {"label": names[-1]}
    identifiers = [c for c in identifiers if c not in roles.values()]
    if identifiers:
        roles["ignore"] = identifiers
    return roles


def label_problem(column):
    """Return why a profiled column cannot be a class label, or None if it can."""
    name = column["name"]
    present = column["distinct"]
    if column["type"] == "empty":
        return f"The column {name!r} has no values, so it cannot be the label."
    if present < 2:
        return f"The label {name!r} has only one class, so there is nothing to learn."
    if present > MAX_LABEL_CLASSES or column.get("distinct_more"):
        return f"The label {name!r} has {present:,} distinct values; a label needs at most {MAX_LABEL_CLASSES} classes."
    return None


def create_dataset(owner, name, uploaded, original_filename="", roles=None, source=""):
    """Store the uploaded file, profile it in one streaming pass, and save the dataset.

    Nothing is kept unless the file parses: the stored file is removed again
    if profiling fails or the row cannot be written.

    Parameters
    ----------
    uploaded : django.core.files.File or bytes
        Read chunk by chunk; a large upload is never held in memory.
    """
    uploaded = ContentFile(uploaded) if isinstance(uploaded, (bytes, bytearray)) else uploaded
    dataset = Dataset(
        owner=owner,
        name=(name or original_filename or "dataset")[:200],
        original_filename=original_filename[:255],
        source=source,
    )
    dataset.file_format = "parquet" if _starts_with(uploaded, b"PAR1") else "csv"
    dataset.file.save("upload", uploaded, save=False)
    try:
        with dataset.file.storage.open(dataset.file.name, "rb") as f:
            profile = profile_file(f, read_limits())
        dataset.size_bytes = dataset.file.size
        fill_from_profile(dataset, profile)
        dataset.roles = roles if roles is not None else default_roles(profile.columns)
        with transaction.atomic():
            dataset.save()
    except BaseException:
        dataset.file.delete(save=False)
        raise
    return dataset


def _digest(f):
    """Return the SHA-256 of an open file (or uploaded file), read in chunks."""
    h = hashlib.sha256()
    f.seek(0)
    for chunk in iter(lambda: f.read(2**20), b""):
        h.update(chunk)
    f.seek(0)
    return h.hexdigest()


def find_same_file(owner, uploaded):
    """Return the owner's dataset whose stored file has exactly the bytes of ``uploaded``, or None.

    Only files of the same size are read (and hashed), so an upload costs one extra pass at most.
    """
    candidates = list(owner.datasets.filter(size_bytes=uploaded.size).order_by("created"))
    if not candidates:
        return None
    digest = _digest(uploaded)
    for dataset in candidates:
        try:
            with dataset.file.storage.open(dataset.file.name, "rb") as f:
                if _digest(f) == digest:
                    return dataset
        except OSError:  # a stored file gone missing is no duplicate
            continue
    return None


def _starts_with(uploaded, magic):
    uploaded.seek(0)
    head = uploaded.read(len(magic))
    uploaded.seek(0)
    return head == magic


def fill_from_profile(dataset, profile):
    dataset.n_rows = profile.n_rows
    dataset.n_columns = len(profile.columns)
    dataset.file_format = profile.format
    dataset.delimiter = profile.delimiter
    dataset.encoding = profile.encoding
    dataset.columns = [{k: v for k, v in c.items() if k not in STATS_KEYS} for c in profile.columns]
    dataset.column_stats = {
        c["name"]: {k: c[k] for k in STATS_KEYS if k in c} for c in profile.columns if any(k in c for k in STATS_KEYS)
    }
    dataset.preview = profile.preview
    dataset.notes = profile.notes


def add_sample(owner, key):
    """Copy the shipped sample ``key`` into ``owner``'s datasets."""
    sample = SAMPLES[key]
    return create_dataset(
        owner,
        sample.name,
        ContentFile(sample.read_bytes()),
        sample.filename or f"{key}.csv",
        dict(sample.roles),
        sample.source,
    )


def load_table(dataset):
    """Read the stored file whole (worker side), with the column types of its profile."""
    with dataset.file.storage.open(dataset.file.name, "rb") as f:
        return read_table(f, read_limits(), numeric=dataset.numeric_columns)


def load_problem(dataset, roles=None, binarization=None):
    """Read the stored file and binarize it under the dataset's (or the given) roles."""
    roles = Roles.from_dict(roles if roles is not None else dataset.roles)
    return make_problem(load_table(dataset), roles, binarization or dataset.preview_binarization)


def update_roles(dataset, roles, binarization):
    """Store new column roles after checking that they make a usable problem."""
    check_roles(dataset, roles)
    if binarization:
        parse_method(binarization)
    dataset.roles = roles
    dataset.binarization = binarization
    dataset.features_preview = {}
    dataset.save(update_fields=["roles", "binarization", "features_preview"])


def check_roles(dataset, roles):
    """Raise ``DataError`` when the roles cannot work, judged from the stored profile."""
    parsed = Roles.from_dict(roles)
    parsed.check(dataset.column_names)
    if parsed.label:
        problem = label_problem(dataset.column(parsed.label))
        if problem:
            raise DataError(problem)
    for role in ("weight", "time", "outcome", "event"):
        name = getattr(parsed, role)
        if name and not dataset.column(name).get("numeric"):
            raise DataError(f"The {role} column {name!r} must hold numbers.")
    problem = event_problem(dataset, parsed)
    if problem:
        raise DataError(problem)
    if parsed.group and dataset.column(parsed.group)["distinct"] != 2:
        raise DataError(f"The protected group column {parsed.group!r} must have exactly two values.")
    for name, order in parsed.ordered.items():
        column = dataset.column(name)
        undeclared = sorted(set(column.get("counts", {})) - set(order))
        if column.get("numeric") or column.get("distinct_more"):
            raise DataError(f"Only text columns with few values can have a declared order; {name!r} cannot.")
        if undeclared:
            raise DataError(f"Column {name!r} has the value {undeclared[0]!r}, which is not in its declared order.")
    if not parsed.feature_columns(dataset.column_names):
        raise DataError("No feature columns are left once the roles are taken.")


def event_problem(dataset, roles):
    """Return why the event column of ``roles`` cannot be read as events (with the remedy), or None."""
    if not roles.event or not dataset.column(roles.event):
        return None
    present = sorted(dataset.column(roles.event).get("counts", {}), key=_number_key)
    unknown = [v for v in roles.event_value or () if v not in present]
    if unknown:
        return f"The event value {unknown[0]} is not a value of the event column {roles.event!r}."
    if not roles.event_value and not set(present) <= {"0", "1"}:
        return event_coding_error(roles.event, present)
    return None


def algorithm_problems(dataset, algorithm, config):
    """Return plain sentences on what stops ``algorithm`` from running on ``dataset`` (empty if nothing)."""
    lacking = missing_sentence(
        algorithm, config, {k for k, v in dataset.roles.items() if v}, "set it on the dataset page first"
    )
    if lacking:
        return [lacking]
    label = dataset.column(dataset.label_column)
    needs_label = "label" in algorithm.required_roles(config)
    if needs_label and label and label["distinct"] > 2 and not algorithm.allows_multiclass(config):
        return [
            f"{algorithm.title} with these settings handles two classes; the label "
            f"{dataset.label_column!r} has {label['distinct']}. Choose another label or algorithm."
        ]
    if "event" in algorithm.required_roles(config):
        problem = event_problem(dataset, Roles.from_dict(dataset.roles))
        if problem:
            return [problem]
    if parse_method(algorithm.binarization_for(dataset.binarization)).name == "gbdt" and not dataset.label_column:
        return ["The boosted binarization needs a class label; choose exact or quantile thresholds."]
    return []


def features_preview(dataset):
    """Return (and cache) the binary features that the dataset's roles and binarization yield.

    Small datasets are binarized in full (boosted cuts and the measured loss
    included); large ones are previewed from the stored column histograms,
    so that the web process never reads a large file whole.
    """
    key = {"roles": dataset.roles, "binarization": dataset.binarization, "version": 3}  # 3: many-valued text
    if dataset.features_preview.get("key") == key:
        return dataset.features_preview
    roles = Roles.from_dict(dataset.roles)
    try:
        if dataset.n_rows * dataset.n_columns <= settings.CORELSWEB_PREVIEW_MAX_CELLS:
            from corelsweb.runs.objectives import single_leaf_data

            problem = load_problem(dataset)
            preview = preview_from_problem(problem)
            preview["single_leaf"] = single_leaf_data(problem)
        else:
            preview = preview_from_profile(
                dataset.profile_columns(), roles, dataset.preview_binarization, dataset.n_rows
            )
    except DataError as e:
        preview = {"error": str(e)}
    preview["key"] = key
    Dataset.objects.filter(pk=dataset.pk).update(features_preview=preview)
    return preview


def delete_dataset(dataset):
    """Delete the dataset and its runs; remove the file only once the rows are gone."""
    storage, path = dataset.file.storage, dataset.file.name
    with transaction.atomic():
        dataset.delete()
        transaction.on_commit(lambda: storage.delete(path))


def write_predictions(model, uploaded, out, id_column=None):
    """Apply ``model`` to an uploaded file chunk by chunk, writing predictions CSV (UTF-8) to the binary ``out``.

    Returns the warnings (plain sentences); raises ``DataError`` if the file is unusable.
    """
    check_upload_size(uploaded)
    uploaded.seek(0)
    text = io.TextIOWrapper(out, encoding="utf-8", newline="")
    try:
        limits = dataclasses.replace(read_limits(), min_columns=1)
        return predict.write_predictions(model, uploaded, text, limits, id_column)
    finally:
        text.flush()
        text.detach()


def model_columns(run):
    """Return the raw columns the model of ``run`` reads."""
    return predict.needed_columns(model_from_dict(run.result["model"]))


def uploads_over_limit(user):
    """Count this upload; return True when the user has uploaded more than the hourly limit.

    The count lives in the cache; with the cache down, the user's datasets created within the hour stand in.
    """
    limit = settings.CORELSWEB_UPLOADS_PER_HOUR
    over = hit(f"upload:{user.pk}", limit, 3600)
    if over is None:
        since = timezone.now() - timedelta(hours=1)
        over = user.datasets.filter(created__gte=since).count() >= limit
    return over


def check_upload_allowed(user, size):
    """Raise ``DataError`` when the user uploads too often or would pass their storage quota."""
    if uploads_over_limit(user):
        raise DataError(
            f"You have uploaded {settings.CORELSWEB_UPLOADS_PER_HOUR} files in the last hour; "
            "wait a while before uploading more."
        )
    used = user.datasets.aggregate(total=Sum("size_bytes"))["total"] or 0
    quota = settings.CORELSWEB_MAX_STORAGE_BYTES
    if used + (size or 0) > quota:
        raise DataError(
            f"Your datasets use {used / 2**20:.1f} MB of your {quota / 2**20:.0f} MB; delete some "
            "before uploading more."
        )


def roles_allow(dataset, algorithm):
    """Return True when ``dataset``'s roles let ``algorithm`` run with one of its tasks (defaults otherwise)."""
    have = {k for k, v in dataset.roles.items() if v}
    configs = [{}]
    if callable(algorithm.requires) and any(p.name == "objective" for p in algorithm.params):
        configs = [{"objective": choice} for choice in algorithm.param("objective").choices]
    for raw in configs:
        try:
            config = algorithm.clean(raw)
        except registry.ParameterError:
            continue
        if set(algorithm.required_roles(config)) <= have:
            return True
    return False


def offered_algorithms(dataset):
    """Return ``[(name, algorithm)]`` of the algorithms the dataset's roles allow, in registry order."""
    return [(name, a) for name, a in registry.algorithms().items() if roles_allow(dataset, a)]


def _number_key(text):
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)


def survival_summary(dataset):
    """Return ``{"events", "event_rate", "time_min", "time_max"}`` from the profile of a survival table, or None."""
    time_column, event_column = dataset.roles.get("time"), dataset.roles.get("event")
    if not time_column or not event_column:
        return None
    time, event = dataset.column(time_column), dataset.column(event_column)
    if time is None or event is None:
        return None
    problem = event_problem(dataset, Roles.from_dict(dataset.roles))
    if problem:
        return {"error": problem}
    counts = event.get("counts") or {}
    total = sum(counts.values())
    events = sum(counts.get(v, 0) for v in dataset.roles.get("event_value") or ["1"])
    return {
        "events": events,
        "event_rate": events / total if total else None,
        "time_min": time.get("minimum"),
        "time_max": time.get("maximum"),
    }
