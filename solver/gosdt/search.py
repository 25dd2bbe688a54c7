"""GOSDT's entry for ``solver/driver.py``: dispatch on the objective.

Additive objectives go to the dynamic programming with bounds (``solver.gosdt.dpb``), the
non-additive ones to the tree-level branch-and-bound (``solver.gosdt.rank``).
"""

from solver.gosdt.rank.params import NON_ADDITIVE


def _module(objective):
    if objective in NON_ADDITIVE:
        from solver.gosdt.rank import search as rank

        return rank
    from solver.gosdt.dpb import search as dpb

    return dpb


def make_search(problem, config):
    if config["objective"] not in NON_ADDITIVE:
        from solver.gosdt.dpb.ordered import OrderedGOSDTSearch, runs_ordered

        if runs_ordered(problem, config):
            return OrderedGOSDTSearch(problem, config)
    return _module(config["objective"]).make_search(problem, config)


def reads_binary(problem, config):
    """Whether this solve reads the 0/1 matrix: the rule of ``make_search`` (``solver.api.within_budget``)."""
    if config["objective"] in NON_ADDITIVE:
        return True
    from solver.gosdt.dpb.ordered import runs_ordered

    return not runs_ordered(problem, config)


def warmup():
    """Compile (or load from numba's cache) the kernels of both searches."""
    from solver.gosdt.dpb import search as dpb
    from solver.gosdt.rank import search as rank
    from solver.ordered.search import warmup as warm_ordered

    dpb.warmup()
    rank.warmup()
    warm_ordered()
