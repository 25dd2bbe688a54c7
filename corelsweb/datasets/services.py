"""Creating datasets from uploads and turning them into solver problems."""

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Sum
from django.http import Http404
from django.shortcuts import get_object_or_404

from corelsweb.datasets.models import Dataset
from corelsweb.datasets.samples import SAMPLES
from corelsweb.security import hit
from solver.data import DataError, ReadLimits, Roles, make_problem, profile, read_table
from solver.predicates import as_text

PREVIEW_ROWS = 20


def read_limits():
    return ReadLimits(max_rows=settings.CORELSWEB_MAX_ROWS, max_columns=settings.CORELSWEB_MAX_COLUMNS)


def get_dataset_for_user(request, pk):
    """Return the dataset ``pk`` if the signed-in user owns it, else 404."""
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(Dataset, pk=pk, owner=request.user)


def read_upload(uploaded):
    """Return the bytes of an uploaded file, refusing files over the size limit."""
    limit = settings.CORELSWEB_MAX_UPLOAD_BYTES
    if uploaded.size is not None and uploaded.size > limit:
        raise DataError(f"The file is {uploaded.size / 2**20:.1f} MB; the limit is {limit / 2**20:.0f} MB.")
    data = b"".join(uploaded.chunks())
    if len(data) > limit:
        raise DataError(f"The file is larger than the {limit / 2**20:.0f} MB limit.")
    return data


def default_roles(table, columns):
    """Guess roles: survival files end with ``time,event``; otherwise the label is the last column.

    A last column with a single value cannot be a label; then no label is set
    and the dataset page asks the user to choose one.
    """
    names = table.names
    if len(names) >= 3 and names[-2:] == ["time", "event"]:
        return {"time": "time", "event": "event"}
    if columns[-1]["distinct"] < 2 or columns[-1]["distinct"] > 50 or columns[-1]["missing"]:
        return {}
    return {"label": names[-1]}


def preview_rows(table, n=PREVIEW_ROWS):
    rows = min(n, table.n_rows)
    return [[as_text(table[name][i]) for name in table.names] for i in range(rows)]


def create_dataset(owner, name, data, original_filename="", roles=None, source=""):
    """Parse ``data`` and store it as a dataset of ``owner``; raise ``DataError`` if unusable.

    Nothing is stored unless the file parses: the file and the row are saved
    together, and the file is removed again if the row cannot be written.
    """
    table = read_table(data, read_limits())
    columns = profile(table)
    dataset = Dataset(
        owner=owner,
        name=(name or original_filename or "dataset")[:200],
        original_filename=original_filename[:255],
        size_bytes=len(data),
        n_rows=table.n_rows,
        n_columns=len(table.names),
        delimiter=table.delimiter,
        encoding=table.encoding,
        columns=columns,
        preview=preview_rows(table),
        roles=roles or default_roles(table, columns),
        source=source,
    )
    dataset.file.save("upload.csv", ContentFile(data), save=False)
    try:
        with transaction.atomic():
            dataset.save()
    except Exception:
        dataset.file.delete(save=False)
        raise
    return dataset


def add_sample(owner, key):
    """Copy the shipped sample ``key`` into ``owner``'s datasets."""
    sample = SAMPLES[key]
    return create_dataset(
        owner, sample.name, sample.read_bytes(), sample.filename or f"{key}.csv", dict(sample.roles), sample.source
    )


def load_table(dataset):
    with dataset.file.open("rb") as f:
        return read_table(f.read(), read_limits())


def load_problem(dataset, roles=None, binarization=None):
    """Read the stored file and binarize it under the dataset's (or the given) roles."""
    roles = Roles.from_dict(roles if roles is not None else dataset.roles)
    return make_problem(load_table(dataset), roles, binarization or dataset.binarization)


def update_roles(dataset, roles, binarization):
    """Store new column roles after checking that they make a usable problem."""
    check_roles(dataset, roles)
    dataset.roles = roles
    dataset.binarization = binarization
    dataset.save(update_fields=["roles", "binarization"])


def check_roles(dataset, roles):
    """Raise ``DataError`` when the roles cannot work, judged from the stored profile."""
    label = roles.get("label")
    if label:
        column = dataset.column(label)
        if column is None:
            raise DataError(f"The data has no column named {label!r}.")
        if column["missing"]:
            raise DataError(f"The label {label!r} has {column['missing']} missing values.")
        if column["distinct"] < 2:
            raise DataError(f"The label {label!r} has only one class, so there is nothing to learn.")
        if column["distinct"] > 50:
            raise DataError(f"The label {label!r} has {column['distinct']} distinct values; it looks numeric, not a class.")
    used = [v for k, v in roles.items() if k not in ("features", "ignore", "positive_class") and v]
    if len(used) != len(set(used)):
        raise DataError("One column cannot play two roles.")
    features = [c for c in dataset.column_names if c not in used and c not in roles.get("ignore", [])]
    if not features:
        raise DataError("No feature columns are left once the roles are taken.")


def delete_dataset(dataset):
    """Delete the dataset and its runs; remove the file only once the rows are gone."""
    storage, path = dataset.file.storage, dataset.file.name
    with transaction.atomic():
        dataset.delete()
        transaction.on_commit(lambda: storage.delete(path))


def check_upload_allowed(user, size):
    """Raise ``DataError`` when the user uploads too often or would pass their storage quota."""
    if hit(f"upload:{user.pk}", settings.CORELSWEB_UPLOADS_PER_HOUR, 3600):
        raise DataError(f"You have uploaded {settings.CORELSWEB_UPLOADS_PER_HOUR} files in the last hour; "
                        "wait a while before uploading more.")
    used = user.datasets.aggregate(total=Sum("size_bytes"))["total"] or 0
    quota = settings.CORELSWEB_MAX_STORAGE_BYTES
    if used + (size or 0) > quota:
        raise DataError(f"Your datasets use {used / 2**20:.1f} MB of your {quota / 2**20:.0f} MB; delete some "
                        "before uploading more.")
