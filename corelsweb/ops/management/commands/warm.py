"""Compile every solver's numba kernels once, filling numba's on-disk cache."""

import time

from django.core.management.base import BaseCommand

from solver import api, registry


class Command(BaseCommand):
    help = "Compile (or load from numba's cache) every solver's kernels, so that no run waits for compilation."

    def handle(self, *args, **options):
        total = time.perf_counter()
        for name in registry.algorithms():
            seconds = api.warm(name)
            self.stdout.write(f"{name}: {seconds:.1f} s")
        self.stdout.write(f"solvers ready in {time.perf_counter() - total:.1f} s")
