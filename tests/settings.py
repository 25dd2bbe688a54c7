"""Settings of the test suite, so that plain ``python -m pytest`` from the root needs no wrapper.

pytest reads ``DJANGO_SETTINGS_MODULE = "tests.settings"`` from pyproject.toml. The
defaults below are the local services and folders the suite uses (the same that
``scripts/test`` used to export); each can still be overridden from the environment.
Worker processes that tests start inherit them.
"""

import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/corelsweb")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("CELERY_BROKER_URL", os.environ["REDIS_URL"])
os.environ.setdefault("CORELSWEB_VAR_DIR", str(_ROOT / "var" / "test"))
# Pages render {% static %} without a collectstatic manifest.
os.environ.setdefault("STATICFILES_BACKEND", "django.contrib.staticfiles.storage.StaticFilesStorage")

from corelsweb.settings import *  # noqa: E402,F403
