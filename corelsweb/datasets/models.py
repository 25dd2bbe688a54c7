import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

FILE_EXTENSIONS = {"csv": "csv", "parquet": "parquet"}


def dataset_upload_path(instance, filename):
    # Stored names never contain anything from the user's file name.
    return f"datasets/{instance.owner_id}/{uuid.uuid4().hex}.{FILE_EXTENSIONS.get(instance.file_format, 'csv')}"


STATS_KEYS = ("hist", "quantile_cuts", "sampled")


class DatasetManager(models.Manager):
    def get_queryset(self):
        return super().get_queryset().defer("column_stats")


class Dataset(models.Model):
    """An uploaded table, its parsed column profile and its column roles."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="datasets")
    name = models.CharField(max_length=200)
    original_filename = models.CharField(max_length=255, blank=True)
    file = models.FileField(upload_to=dataset_upload_path, max_length=255)
    file_format = models.CharField(max_length=10, default="csv")
    size_bytes = models.BigIntegerField(default=0)
    n_rows = models.IntegerField(default=0)
    n_columns = models.IntegerField(default=0)
    delimiter = models.CharField(max_length=4, default=",")
    encoding = models.CharField(max_length=20, default="utf-8")
    columns = models.JSONField(default=list)
    # Each numeric column's histogram and quantile cuts (``STATS_KEYS`` of its profile entry), by name: megabytes
    # for a wide table, read only to preview features from the profile (``DatasetManager`` defers it).
    column_stats = models.JSONField(default=dict)
    preview = models.JSONField(default=list)
    notes = models.JSONField(default=list)
    roles = models.JSONField(default=dict)
    # Empty: each algorithm's default (``solver.registry.Algorithm.binarization``), as the CLI and estimators.
    binarization = models.CharField(max_length=40, default="", blank=True)
    features_preview = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    objects = DatasetManager()

    class Meta:
        ordering = ["-created"]
        base_manager_name = "objects"

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("dataset-detail", args=[self.pk])

    @property
    def preview_binarization(self):
        """Return the binarization the dataset page previews: the chosen one, else the exact thresholds."""
        return self.binarization or "exact"

    @property
    def column_names(self):
        return [c["name"] for c in self.columns]

    @property
    def label_column(self):
        return self.roles.get("label") or ""

    @property
    def numeric_columns(self):
        return {c["name"] for c in self.columns if c.get("numeric", c.get("minimum") is not None)}

    def profile_columns(self):
        """Return the profile entries with their histograms and quantile cuts (read from the deferred field)."""
        stats = self.column_stats
        return [{**c, **stats.get(c["name"], {})} for c in self.columns]

    def column(self, name):
        for c in self.columns:
            if c["name"] == name:
                return c
        return None

    def label_counts(self):
        """Return ``{value: rows}`` of the label column, or None when unknown."""
        column = self.column(self.label_column)
        return None if column is None else column.get("counts")
