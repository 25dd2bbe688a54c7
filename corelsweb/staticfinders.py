"""Serve plotly.js from the plotly package's own bundled file, never a CDN."""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PLOTLY_FILE = "plotly.min.js"
STATIC_PATH = f"vendor/{PLOTLY_FILE}"


class PlotlyFinder(BaseFinder):
    """Expose only ``plotly.min.js`` of the installed plotly package as ``vendor/plotly.min.js``."""

    storage = FileSystemStorage(location=str(PLOTLY_DIR), base_url="/static/vendor/")
    storage.prefix = "vendor"

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path == STATIC_PATH and (PLOTLY_DIR / PLOTLY_FILE).exists():
            match = str(PLOTLY_DIR / PLOTLY_FILE)
            return [match] if find_all else match
        return [] if find_all else None

    def list(self, ignore_patterns):
        yield PLOTLY_FILE, self.storage
