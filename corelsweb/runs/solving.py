"""The solve of one run in a child process: prepared by the supervisor, computed apart from it.

The supervisor (``corelsweb.runs.lifecycle``) reads the run's data, then forks.
The child only computes: it solves, scores the model on the run's test rows and
reports through a pipe; it never touches the database or the broker. So a
search that stops returning to Python (a kernel holding the GIL) freezes only
the child, while the supervisor keeps the run's liveness, progress, cancel and
hard time limit. Fork (not a fresh interpreter) keeps the compiled kernels the
worker warmed: a child starts in milliseconds.

Messages from the child, each a tuple:
``("progress", point)`` a trace point from the driver;
``("incumbent", result)`` the best model so far (``Result.to_dict()`` without trace);
``("done", result, stopwatch)`` the final ``Result.to_dict()`` and the run's ``Stopwatch.state()``;
``("error", message, traceback)`` a failure in plain words.
The supervisor may send ``"cancel"``.
"""

import ctypes
import logging
import multiprocessing
import os
import signal
import traceback as tb
from dataclasses import dataclass

from numba.core.compiler_lock import global_compiler_lock

from corelsweb.datasets.models import Dataset
from corelsweb.datasets.services import load_table
from corelsweb.runs import faults
from solver import pipeline
from solver.api import Limits, ProblemError
from solver.data import DataError, Roles
from solver.registry import ParameterError
from solver.timing import Stopwatch

log = logging.getLogger(__name__)

# Errors that are the data's or the settings' fault: their message is for the user.
USER_ERRORS = (DataError, ParameterError, ProblemError)
PR_SET_PDEATHSIG = 1


@dataclass
class Job:
    """Everything the child needs, read by the supervisor before the fork: the prepared fit and its settings."""

    prepared: pipeline.Prepared
    params: dict
    limits: Limits

    @property
    def algorithm(self):
        return self.prepared.algorithm


def evaluation(run):
    """Return the run's typed evaluation (``solver.pipeline``); a test file is read here."""
    ev = run.evaluation or {}
    if ev.get("test_dataset"):
        other = Dataset.objects.filter(pk=ev["test_dataset"], owner=run.owner).first()
        if other is None:
            raise DataError("The test dataset chosen for this run no longer exists.")
        return pipeline.TestTable(load_table(other), other.name)
    return pipeline.evaluation_from_dict(ev)


def prepare(run, warm=True, stopwatch=None):
    """Read and binarize the run's training rows (and its test rows); raise ``USER_ERRORS`` in plain words.

    ``warm``: compile here, so that the child inherits the kernels instead of compiling them on every run.
    ``stopwatch``: the run's clock (``solver.timing``), lapped as ``reading`` and then by ``pipeline.prepare``.
    """
    watch = stopwatch or Stopwatch()
    table, ev = load_table(run.dataset), evaluation(run)
    watch.lap("reading")
    prepared = pipeline.prepare(
        table,
        Roles.from_dict(run.roles),
        run.algorithm,
        run.binarization,
        ev,
        warm=warm,
        stopwatch=watch,
        params=run.params,
    )
    return Job(prepared, run.params, Limits.from_dict(run.limits))


class Child:
    """A forked process solving one job; ``conn`` is this side of its pipe."""

    def __init__(self, pid, conn):
        self.pid, self.conn = pid, conn
        self.exit_status = None

    @classmethod
    def start(cls, job):
        ours, theirs = multiprocessing.Pipe(duplex=True)
        parent = os.getpid()
        # A thread compiling at the moment of the fork would leave numba's lock held in the child forever.
        with global_compiler_lock:
            if job.prepared.stopwatch is not None:
                job.prepared.stopwatch.lap("compile_wait")  # the warming thread may hold it for seconds
            pid = os.fork()
        if pid == 0:  # the child
            try:
                ours.close()
                _become_child(parent)
                child_main(theirs, job)
            finally:
                os._exit(0)
        theirs.close()
        return cls(pid, ours)

    def kill(self):
        """End the child at once (SIGKILL) and reap it."""
        if self.exit_status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.reap()

    def reap(self):
        """Wait for the child to be gone; return its wait status."""
        if self.exit_status is None:
            _, self.exit_status = os.waitpid(self.pid, 0)
            self.conn.close()
        return self.exit_status

    def death_words(self):
        """Return how the child ended, in words."""
        status = self.reap()
        if os.WIFSIGNALED(status):
            name = signal.Signals(os.WTERMSIG(status)).name
            return f"killed by {name}" + (" (often: the machine ran out of memory)" if name == "SIGKILL" else "")
        return f"exited with code {os.WEXITSTATUS(status)}"


def _become_child(parent):
    # Die with the supervisor, whatever kills it; take none of the worker's signal handlers.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


class ChildReporter:
    """``on_progress`` in the child: send each point, hang there if a test fault says so, read a cancel."""

    def __init__(self, conn):
        self.conn = conn
        self.cancelled = False

    def __call__(self, point):
        self.conn.send(("progress", point))
        faults.after_progress()
        while self.conn.poll():
            if self.conn.recv() == "cancel":
                self.cancelled = True
        return not self.cancelled

    def incumbent(self, result):
        self.conn.send(("incumbent", {**result.to_dict(), "trace": {}}))


def child_main(conn, job):
    """Solve ``job`` and send its result (or its failure in plain words)."""
    reporter = ChildReporter(conn)
    try:
        result = pipeline.run(job.prepared, job.params, job.limits, reporter, reporter.incumbent)
        # The stopwatch goes along, so that the supervisor times the rest (this message, storing) on it.
        message = ("done", result.to_dict(), (job.prepared.stopwatch or Stopwatch()).state())
    except USER_ERRORS as e:
        message = ("error", str(e), "")
    except MemoryError:
        message = (
            "error",
            "The solver ran out of memory; try a larger λ, a smaller depth or coarser thresholds.",
            tb.format_exc(),
        )
    except Exception as e:
        log.exception("the solve of a run failed")
        message = ("error", f"The solver stopped with an internal error ({type(e).__name__}).", tb.format_exc())
    conn.send(message)
    conn.close()
