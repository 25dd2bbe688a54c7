"""Compile every solver's numba kernels once, filling numba's on-disk cache."""

import os
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from corelsweb.ops import warming
from solver import compiling


class Command(BaseCommand):
    help = (
        "Compile (or load from numba's cache) every solver's kernels, so that no run waits for compilation; "
        "several processes share the warm units (as a host's workers do)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)

    def handle(self, *args, processes, **options):
        total = time.perf_counter()
        if processes > 1:
            # Each process warms every unit, skipping those another one is compiling (solver.compiling.warm).
            command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "warm", "--processes", "1"]
            children = [subprocess.Popen(command) for _ in range(processes)]
            if any(child.wait() for child in children):
                raise SystemExit("a warming process failed")
        else:
            for unit, seconds in warming.warm_all(report=None).items():
                self.stdout.write(f"{unit}: {seconds:.1f} s")
            failed = [unit for unit in compiling.UNITS if not compiling.is_warm(unit)]
            if failed:
                raise CommandError(f"could not compile: {', '.join(failed)} (the log says why)")
        self.stdout.write(f"solvers ready in {time.perf_counter() - total:.1f} s")
