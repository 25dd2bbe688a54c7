"""GOSDT's dynamic programming with bounds for the additive objectives (spec §3.2).

``search`` (the driver protocol), ``graph`` (the dependency graph and its queue, as arrays), ``kernels``
(the numba search over it), ``ordered`` (the same objectives searched over raw numeric columns in order).
"""
