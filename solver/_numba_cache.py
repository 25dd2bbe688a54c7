"""Where numba keeps the compiled kernels: one folder per version of the solver's sources.

numba checks a cached kernel against its own source file only. A kernel compiled with code it calls
from another file (every kernel here does) would be loaded unchanged after that other file changed:
stale machine code, silently. So the cache folder is named after a hash of every ``solver`` source
file that uses numba; an edit of one, an upgrade or a checkout of another commit compiles afresh. ``NUMBA_CACHE_DIR``, when
set, is the parent of these folders; otherwise they live in ``solver/__pycache__`` (or the user's cache
folder when the package cannot be written). The three most recent versions are kept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

KEEP = 3
PREFIX = "numba-"


def source_hash(root):
    """Return a short hash of the ``.py`` files under ``root`` that use numba (paths and contents)."""
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(text)
    return digest.hexdigest()[:12]


def _writable(folder):
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
        return True
    except OSError:
        return False


def configure():
    """Point numba's cache at this source version's folder (before any kernel is defined); return the folder."""
    import numba

    root = Path(__file__).resolve().parent
    given = os.environ.get("NUMBA_CACHE_DIR")
    parent = Path(given) if given else root / "__pycache__"
    if not _writable(parent):
        parent = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "corelsweb-numba"
    folder = parent / f"{PREFIX}{source_hash(root)}"
    folder.mkdir(parents=True, exist_ok=True)
    numba.config.CACHE_DIR = str(folder)
    _prune(parent, folder)
    return folder


def _prune(parent, current):
    # Older versions' kernels are never loaded again; keep a few (a rollback, a worker of the old version).
    versions = sorted(
        (p for p in parent.glob(f"{PREFIX}*") if p.is_dir() and p != current),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for old in versions[KEEP - 1 :]:
        shutil.rmtree(old, ignore_errors=True)
