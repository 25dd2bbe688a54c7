"""GOSDT's tree-level branch-and-bound for F-score, AUC and partial AUC of the ROC convex hull (spec §3.4).

``search`` (the driver protocol), ``kernels`` (losses and bounds), ``leaves`` (the leaf cache, leaf sets as
models), ``params`` (its bound switches in the registry).
"""
