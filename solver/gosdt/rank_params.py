"""Parameters of GOSDT's tree-level search for the non-additive objectives (F-score, AUC, pAUC).

``solver/gosdt/params.py`` appends ``PARAMS`` to the algorithm's parameters; show them only for
those objectives with ``visible_when={"objective": NON_ADDITIVE}``.
"""

NON_ADDITIVE = ("f1", "auc", "pauc")

PARAMS = ()
