"""Test-only: each warm unit's first compile in a process takes ``CORELSWEB_TEST_SLOW_COMPILE_SECONDS`` longer.

Python imports this module at start-up when ``tests/hooks/slow_compile`` is on
``PYTHONPATH``, which only the worker processes that a test starts have. It
wraps ``solver.compiling.warm_unit`` from outside: no production module knows of it.
With the variable unset or 0 it does nothing.
"""

import os
import time

SECONDS = float(os.environ.get("CORELSWEB_TEST_SLOW_COMPILE_SECONDS") or 0)

if SECONDS > 0:
    from solver import compiling

    _warm_unit = compiling.warm_unit

    def warm_unit(unit):
        if not compiling.is_warm(unit):
            time.sleep(SECONDS)  # a compile as slow as a fresh numba cache on a busy machine
        return _warm_unit(unit)

    compiling.warm_unit = warm_unit
