from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone


class Run(models.Model):
    """One solve of one algorithm on one dataset, from queue to result."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        # Held by a worker that is compiling the solver's kernels: the search (and its time limit) has not started.
        COMPILING = "compiling", "Waiting for the solver to compile"
        RUNNING = "running", "Running"
        OPTIMAL = "optimal", "Optimal (proved)"
        HEURISTIC = "heuristic", "Finished (heuristic, not proved optimal)"
        TIME_LIMIT = "time_limit", "Stopped at the time limit"
        NODE_LIMIT = "node_limit", "Stopped at the node limit"
        MEMORY_LIMIT = "memory_limit", "Stopped at the memory limit"
        CANCELLED = "cancelled", "Cancelled"
        FAILED = "failed", "Failed"

    HELD = (Status.COMPILING, Status.RUNNING)  # a worker has claimed the run
    ACTIVE = (Status.QUEUED, *HELD)
    WITH_MODEL = (
        Status.OPTIMAL,
        Status.HEURISTIC,
        Status.TIME_LIMIT,
        Status.NODE_LIMIT,
        Status.MEMORY_LIMIT,
        Status.CANCELLED,
    )

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="runs")
    dataset = models.ForeignKey("datasets.Dataset", models.CASCADE, related_name="runs")
    algorithm = models.CharField(max_length=40)
    params = models.JSONField(default=dict)
    limits = models.JSONField(default=dict)
    roles = models.JSONField(default=dict)
    binarization = models.CharField(max_length=40, default="exact")
    evaluation = models.JSONField(default=dict, blank=True)
    path = models.ForeignKey("runs.RegularizationPath", models.CASCADE, null=True, blank=True, related_name="runs")
    name = models.CharField(max_length=120, blank=True)
    note = models.TextField(blank=True)
    queue = models.CharField(max_length=20, default="short")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    cancel_requested = models.BooleanField(default=False)
    progress = models.JSONField(default=dict, blank=True)
    trace = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    traceback = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)
    attempts = models.IntegerField(default=0)
    version = models.IntegerField(default=0)
    created = models.DateTimeField(default=timezone.now, db_index=True)
    claimed = models.DateTimeField(null=True, blank=True)  # a worker took it (database clock)
    started = models.DateTimeField(null=True, blank=True)  # its search started
    finished = models.DateTimeField(null=True, blank=True)
    # The id of the last message sent for this run, so that the reconciler tells a lost message from a waiting
    # one; blank with message_sent set: the last send found the broker unreachable.
    message_id = models.CharField(max_length=64, blank=True)
    message_sent = models.DateTimeField(null=True, blank=True)
    # Where the run's time went, from ``created`` to its stored final state: ``{"stages": {stage: seconds},
    # "total_seconds"}`` with the stages of ``solver.timing.STAGES`` (empty until the run is final).
    timing = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"{self.algorithm} on {self.dataset} ({self.status})"

    def get_absolute_url(self):
        return reverse("run-detail", args=[self.pk])

    @property
    def title(self):
        """Return how lists name the run: ``#12 corels`` and its name, if it has one."""
        return f"#{self.pk} {self.algorithm}" + (f" · {self.name}" if self.name else "")

    @property
    def is_active(self):
        return self.status in self.ACTIVE

    @property
    def has_model(self):
        return self.result is not None

    def compiling_seconds(self):
        """Return how long the run's worker has been compiling its kernels (None unless it is)."""
        if self.status != self.Status.COMPILING or self.claimed is None:
            return None
        return max(0.0, (timezone.now() - self.claimed).total_seconds())

    def elapsed_seconds(self):
        if self.started is None:
            return None
        end = self.finished or timezone.now()
        return max(0.0, (end - self.started).total_seconds())


class RegularizationPath(models.Model):
    """One algorithm over a grid of λ × k folds, then refit on all rows at the chosen λ."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running the folds"
        REFITTING = "refitting", "Refitting at the chosen λ"
        COMPLETE = "complete", "Complete"
        INCOMPLETE = "incomplete", "Finished with failed cells (retry them)"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="paths")
    dataset = models.ForeignKey("datasets.Dataset", models.CASCADE, related_name="paths")
    algorithm = models.CharField(max_length=40)
    params = models.JSONField(default=dict)
    limits = models.JSONField(default=dict)
    lambdas = models.JSONField(default=list)
    folds = models.IntegerField(default=5)
    seed = models.IntegerField(default=0)
    metric = models.CharField(max_length=40, default="accuracy")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.RUNNING)
    summary = models.JSONField(default=list, blank=True)
    chosen_lambda = models.FloatField(null=True, blank=True)
    refit_run = models.ForeignKey(Run, models.SET_NULL, null=True, blank=True, related_name="+")
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"{self.algorithm} path on {self.dataset}"

    def get_absolute_url(self):
        return reverse("path-detail", args=[self.pk])


class RashomonFavourite(models.Model):
    """A tree of a Rashomon run's list that its owner keeps (the tree's ``xj?(A|B)`` text names it within the set)."""

    run = models.ForeignKey(Run, models.CASCADE, related_name="rashomon_favourites")
    tree = models.TextField()
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created"]
        constraints = [models.UniqueConstraint(fields=["run", "tree"], name="one_favourite_per_tree")]

    def __str__(self):
        return f"{self.tree} in run {self.run_id}"


class Piece(models.Model):
    """One piece of a run split across workers (``corelsweb.runs.splitting``): the root features it searches."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Searched to its end"
        STOPPED = "stopped", "Stopped (time limit or cancel)"

    FINAL = (Status.DONE, Status.STOPPED)

    run = models.ForeignKey(Run, models.CASCADE, related_name="pieces")
    index = models.IntegerField()
    features = models.JSONField(default=list)  # the root's feature indices (ordered families)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    worker = models.CharField(max_length=200, blank=True)
    claimed = models.DateTimeField(null=True, blank=True)
    attempts = models.IntegerField(default=0)
    version = models.IntegerField(default=0)
    # ``solver.ordered.split.PieceSearch.result()``: best tree (engine value), lower bound, done, work.
    result = models.JSONField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="one_piece_per_index")]

    def __str__(self):
        return f"piece {self.index} of run {self.run_id} ({self.status})"
