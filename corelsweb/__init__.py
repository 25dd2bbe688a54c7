"""corelsweb: a web workbench for certifiably optimal interpretable models."""

from corelsweb.celery import app as celery_app

__all__ = ["celery_app"]
