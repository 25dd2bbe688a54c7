"""corelsweb's solver library: certifiably optimal rule lists and sparse trees.

Pure numpy + numba; knows nothing of Django, Celery or plotly. Use it from a
notebook (``from solver import solve``), from the command line
(``python -m solver fit ...``) or through scikit-learn style estimators.
"""

from solver import _numba_cache

# Before any kernel is defined: compiled kernels are cached per version of these sources.
_numba_cache.configure()

from solver.api import Limits, ParameterError, Problem, ProblemError, Result, solve  # noqa: E402

__all__ = ["Limits", "ParameterError", "Problem", "ProblemError", "Result", "solve"]
