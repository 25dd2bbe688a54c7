"""Test-only fault injection: a solve that stops returning to Python.

The fault tests need a search that really holds the GIL for good, as a numba
kernel that never returns would, to prove that liveness, cancellation and the
hard time limit do not depend on the solving thread. ``CORELSWEB_TEST_FAULT``
turns it on; it is read from the worker's environment by the settings and
nothing else: no request, form, parameter or stored run can reach it. The web
never calls this module; only the solving child process does.

``hold-gil``: after the search's first progress report (so that a best model
exists), the solving process spins in a compiled loop that never releases the
GIL and never returns.
"""

import numba
import numpy as np
from django.conf import settings

FAULTS = ("hold-gil",)
# Iterations of the spinning loop: centuries at any speed.
FOREVER = 2**62


def active():
    """Return the fault this process was started with (``""`` for none)."""
    fault = getattr(settings, "CORELSWEB_TEST_FAULT", "")
    if fault and fault not in FAULTS:
        raise ValueError(f"unknown CORELSWEB_TEST_FAULT {fault!r}; known: {', '.join(FAULTS)}")
    return fault


# No nogil=True: the calling thread keeps the GIL for the whole call, as a stuck solver kernel would.
@numba.njit(cache=True)
def spin(iterations, scratch):
    """Busy-loop ``iterations`` times in one compiled call that holds the GIL throughout."""
    i = 0
    while i < iterations:
        scratch[i & 7] += i
        i += 1
    return scratch[0]


def after_progress():
    """Called by the solving process after each progress report: hang there if the fault is on."""
    if active() == "hold-gil":
        spin(FOREVER, np.zeros(8, dtype=np.int64))
