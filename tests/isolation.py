"""Run a reference package's fit in a forked child, so that a crash inside it cannot take the test run down.

pystreed 1.4.0 segfaults on some tiny inputs (seen: about 1.5 % of random 6–18-row problems at depth 3, e.g.
``tests.solver.gosdt_rank.test_pystreed.random_data(481061, 11, 3)`` with ``max_depth=3``); the whole pytest
process died with it. ``in_child`` returns the function's value, or ``CRASHED`` when the child died by a signal.
"""

import multiprocessing as mp
import os
import signal

CRASHED = object()


def _target(conn, fn, args):
    conn.send(fn(*args))
    conn.close()


def in_child(fn, *args, timeout=300):
    """Return ``fn(*args)`` computed in a forked child; ``CRASHED`` if the child was killed by a signal."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_target, args=(child, fn, args))
    proc.start()
    child.close()
    if not parent.poll(timeout):  # neither a result nor the end of the pipe in time
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        raise TimeoutError(f"{getattr(fn, '__name__', fn)} did not finish in {timeout} s")
    try:
        value = parent.recv()
    except EOFError:  # the child closed the pipe by dying
        proc.join()
        if proc.exitcode is not None and proc.exitcode < 0:
            return CRASHED
        raise RuntimeError(f"{getattr(fn, '__name__', fn)} exited with code {proc.exitcode} and no result") from None
    proc.join()
    return value
