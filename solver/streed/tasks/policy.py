"""Prescriptive policy trees (spec §2.3, App. D, Eqs. 50–53).

Every row gets a score ``q_i(t)`` for each treatment ``t`` from a teacher:
direct method ``v̂_t(x)`` (Eq. 50), inverse propensity weighting
``y·1(t = k)/μ̂(x, k)`` (Eq. 51, with the ``y`` the print omits: erratum 10) or
doubly robust (Eq. 52). Leaves sum scores (plain sums, erratum 11) and the
tree maximises them; as in the ref-impl we minimise the shifted cost
``c_i(t) = −q_i(t) − min(−q) ≥ 0`` so that the subtraction bounds hold.
Propensities at most 1e-6 give a row IPW/DR correction 0 (the ref-impl's guard).
"""

import numpy as np

from solver.streed.tasks import Task

PROPENSITY_FLOOR = 1e-6


def fit_outcomes(problem, ridge=1e-3):
    """Return the direct-method teacher ``v̂[i, t]``: a ridge regression of the outcome per treatment."""
    X = np.hstack([np.ones((problem.n_samples, 1)), problem.X.astype(np.float64)])
    out = np.zeros((problem.n_samples, len(problem.treatments)))
    for t in range(len(problem.treatments)):
        rows = problem.treatment == t
        if not rows.any():
            continue
        Xt = X[rows]
        beta = np.linalg.solve(Xt.T @ Xt + ridge * np.eye(X.shape[1]), Xt.T @ problem.outcome[rows])
        out[:, t] = X @ beta
    return out


def marginal_propensity(problem):
    """Return ``μ̂(x_i, k_i)`` as the share of rows with treatment ``k_i`` (a randomised-trial teacher)."""
    share = np.bincount(problem.treatment, minlength=len(problem.treatments)) / problem.n_samples
    return share[problem.treatment]


def scores(problem, teacher, outcomes=None, propensity=None):
    """Return ``q[i, t]`` for ``teacher`` in {"direct", "ipw", "doubly_robust"}."""
    n, K = problem.n_samples, len(problem.treatments)
    k, y = problem.treatment, problem.outcome
    if teacher in ("direct", "doubly_robust"):
        v = fit_outcomes(problem) if outcomes is None else np.asarray(outcomes, dtype=np.float64)
    if teacher in ("ipw", "doubly_robust"):
        mu = marginal_propensity(problem) if propensity is None else np.asarray(propensity, dtype=np.float64)
        inverse = np.where(np.abs(mu) > PROPENSITY_FLOOR, 1.0 / np.where(mu == 0, 1.0, mu), 0.0)
    rows = np.arange(n)
    if teacher == "direct":
        return v.copy()
    q = np.zeros((n, K))
    if teacher == "ipw":
        q[rows, k] = y * inverse
        return q
    q[:] = v
    q[rows, k] += (y - v[rows, k]) * inverse
    return q


def make(problem, config, outcomes=None, propensity=None):
    if problem.treatment is None or problem.outcome is None:
        raise ValueError("policy trees need a treatment and an outcome column")
    q = scores(problem, config["teacher"], outcomes, propensity)
    shift = float((-q).min())
    A = np.maximum(-q - shift, 0.0)
    K = q.shape[1]
    L = np.eye(K)[:, None, :]
    n = float(problem.n_samples)
    capacity = config.get("capacity")
    if capacity is None:
        return Task(
            name="policy",
            A=A,
            L=L,
            caps=np.array([np.inf]),
            labels=list(problem.treatments),
            kind="policy",
            objective=lambda v: (float(v[0]) + n * shift) / n,  # − mean policy value (lower is better)
            describe=lambda v: {"policy_value": -(float(v[0]) + n * shift)},
        )
    return _with_capacity(problem, A, L, shift, float(capacity), config.get("reference_treatment"))


def _with_capacity(problem, A, L, shift, capacity, reference=None):
    """Return the policy task with a capacity constraint (spec §2.3, App. A.4).

    A second component counts the rows the policy sends to any treatment but the reference
    (``reference``, a treatment's name; None: the first in sorted order); feasible iff at most ``capacity`` · n of them
    (anti-monotonic: the count only grows as leaves are added, Prop. A.3). The reported
    tree is the feasible one with the best value, so the root prunes on the value alone
    (root relaxation); the constraint rules out the similarity bound (App. B).
    """
    n, K = problem.n_samples, L.shape[0]
    names = [str(t) for t in problem.treatments]
    if reference is None or reference == "":
        ref = 0
    elif reference in names:
        ref = names.index(reference)
    else:
        shown = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
        raise ValueError(
            f"the reference treatment {reference!r} is not a value of the treatment column (its values: {shown})"
        )
    A2 = np.hstack([A, np.ones((n, 1))])
    L2 = np.zeros((K, 2, A2.shape[1]))
    L2[:, 0, :K] = L[:, 0, :]
    L2[:, 1, K] = 1.0  # every row of a leaf that treats (any label but the reference) uses capacity
    L2[ref, 1, K] = 0.0
    cap = float(np.floor(capacity * n + 1e-9))

    def describe(v):
        return {"policy_value": -(float(v[0]) + n * shift), "treated_share": float(v[1]) / n}

    return Task(
        name="policy",
        A=A2,
        L=L2,
        caps=np.array([np.inf, cap]),
        labels=list(problem.treatments),
        kind="policy",
        similarity=False,
        root_scalar=True,
        objective=lambda v: (float(v[0]) + n * shift) / n,
        describe=describe,
    )
