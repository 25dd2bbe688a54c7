import secrets

from django.db import models
from django.urls import reverse
from django.utils import timezone


def new_token():
    # 32 random bytes: 256 bits, far beyond guessing.
    return secrets.token_urlsafe(32)


class ShareLink(models.Model):
    """A read-only, revocable link to a frozen snapshot of one run, for people without an account."""

    run = models.ForeignKey("runs.Run", models.CASCADE, related_name="share_links")
    token = models.CharField(max_length=64, unique=True, default=new_token)
    include_data = models.BooleanField(default=False)
    snapshot = models.JSONField(default=dict)
    created = models.DateTimeField(default=timezone.now)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"share of run {self.run_id}"

    def get_absolute_url(self):
        return reverse("share-view", args=[self.token])

    @property
    def is_active(self):
        return self.revoked is None
