# Check that plain `python -m pytest` from the repository root works without scripts/test's environment.
import os
import subprocess
import sys

from tests.conftest import ROOT

# What scripts/test used to export; a developer typing `python -m pytest` has none of it.
SCRIPT_ONLY = ("STATICFILES_BACKEND", "CORELSWEB_VAR_DIR", "DJANGO_SETTINGS_MODULE")


def test_plain_pytest_from_the_root_renders_pages(settings):
    env = {k: v for k, v in os.environ.items() if k not in SCRIPT_ONLY and not k.startswith("PYTEST_")}
    # Its own test database beside ours (the name pytest-django derives would be the one this run uses).
    db = settings.DATABASES["default"]
    if "postgresql" in db["ENGINE"]:
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME'].removeprefix('test_')}_plain"
        )
    # One security test that renders a page (base.html links the favicon through {% static %}).
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            "security",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/web/test_limits.py::test_the_storage_quota_holds",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout
