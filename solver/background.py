"""One call that cannot be interrupted (scikit-learn's tree builder), run beside the driver's loop.

scikit-learn grows a tree in one call that checks no deadline. Run in a thread (its builder releases the
GIL), it lets a search's ``step`` wait for it a bounded time and return to the driver, which keeps its time
limit and honours a cancel; the search meanwhile reports the model it had before. A call the driver gives up
on runs to its end in the (daemon) thread and its result is dropped: Python cannot stop a thread.
"""

from __future__ import annotations

import threading

POLL_SECONDS = 0.1  # longest a step waits for the call before returning to the driver


class Background:
    """``fn(*args)`` running in a daemon thread; ``wait`` polls it, ``result`` returns (or raises) its outcome."""

    def __init__(self, fn, *args):
        self._outcome = None
        self._thread = threading.Thread(target=self._run, args=(fn, args), daemon=True, name="solver-background")
        self._thread.start()

    def _run(self, fn, args):
        try:
            self._outcome = (True, fn(*args))
        except BaseException as e:  # handed to the caller in ``result``
            self._outcome = (False, e)

    def wait(self, seconds=POLL_SECONDS):
        """Wait at most ``seconds`` for the call; return True once it has returned."""
        self._thread.join(seconds)
        return not self._thread.is_alive()

    def result(self):
        """Return the call's value, or raise its exception; only once ``wait`` returned True."""
        ok, value = self._outcome
        if not ok:
            raise value
        return value


class DeferredSearch:
    """A search (see ``solver/driver.py``) whose set-up runs in the background, then the search itself.

    ``begin()`` builds the real search object (binary matrices, equivalent points, a scikit-learn warm start:
    seconds on thousands of thresholds) in a ``Background`` thread, while the steps return to the driver
    every ``POLL_SECONDS``. Until it is ready the run reports ``model`` (a tree every search can return, e.g.
    the majority leaf) with its objective ``upper_bound`` and the floor ``lower_bound`` (a bound every
    model meets); afterwards everything is the real search's.
    """

    def __init__(
        self,
        begin,
        model,
        upper_bound,
        lower_bound=0.0,
        finished_status="optimal",
        initial_budget=256,
        progress_keys=(),
    ):
        self._model, self._upper, self._lower = model, float(upper_bound), float(lower_bound)
        self._progress = dict.fromkeys(progress_keys, 0)
        self._finished_status, self.initial_budget = finished_status, initial_budget
        self.search = None
        self._begin = Background(begin)

    def _ready(self):
        if self.search is None and self._begin.wait(POLL_SECONDS):
            self.search = self._begin.result()
        return self.search is not None

    def step(self, budget):
        return self._ready() and self.search.step(budget)

    @property
    def finished_status(self):
        """The real search's status when it finishes (it may depend on how it finished), else the given one."""
        return self._finished_status if self.search is None else self.search.finished_status

    @property
    def lower_bound(self):
        return self._lower if self.search is None else max(self._lower, self.search.lower_bound)

    @property
    def upper_bound(self):
        return self._upper if self.search is None else self.search.upper_bound

    @property
    def nodes(self):
        return 0 if self.search is None else self.search.nodes

    def progress(self):
        return dict(self._progress) if self.search is None else self.search.progress()

    def best_model(self):
        return self._model if self.search is None else self.search.best_model()

    def stats(self):
        return {"setup_finished": False} if self.search is None else self.search.stats()

    def __getattr__(self, name):
        # The real search's optional members (``problem``, ``extras``, ...), once it exists.
        search = self.__dict__.get("search")
        if search is None or name.startswith("_"):
            raise AttributeError(name)
        return getattr(search, name)

    def state_bytes(self):
        measure = getattr(self.search, "state_bytes", None)
        return 0 if measure is None else measure()
