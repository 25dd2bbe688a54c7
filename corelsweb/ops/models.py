from django.db import models


class WorkerBeat(models.Model):
    """The latest heartbeat of one Celery pool process: what it runs and how loaded its machine is."""

    name = models.CharField(max_length=200, unique=True)  # host:pid, as recorded on the runs it claims
    queues = models.CharField(max_length=200, blank=True)
    started = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    current_run = models.ForeignKey("runs.Run", models.SET_NULL, null=True, blank=True, related_name="+")
    load = models.FloatField(default=0.0)
    rss_bytes = models.BigIntegerField(default=0)
    ready = models.JSONField(default=list, blank=True)  # algorithms whose kernels this process has loaded
    warming = models.CharField(max_length=40, blank=True)  # the algorithm it is compiling now

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Lease(models.Model):
    """A named leadership lease: ``holder`` leads until ``expires`` (the database's clock), renewing it as it goes."""

    name = models.CharField(max_length=40, unique=True)
    holder = models.CharField(max_length=200, blank=True)
    expires = models.DateTimeField()
    session = models.IntegerField(default=0)  # the holder's database backend (pg_backend_pid) that renews it

    def __str__(self):
        return f"{self.name}: {self.holder}"
