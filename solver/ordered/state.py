"""The arrays of one ordered search: inputs, switches and the resumable state (NamedTuples of arrays).

The search is a depth-first recursion written as an explicit stack (``solver.ordered.kernel``): one
*frame* per level of the recursion holds the node's rows (sorted by every feature), its bound, its
incumbent and where its threshold search stands. Everything lives here, so a kernel call can stop
after a bounded amount of work and the next call resumes exactly where it stopped.

Trees are ids: ``t >= 0`` is node ``t`` of the pool (``pf``, ``pu``, ``pl``, ``pr``: feature, split rank,
children), ``t < 0`` is a leaf predicting label ``-t - 1``. A split ``(f, u)`` sends a row left iff
``rank[f, row] < u``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Frame phases (HIST: a depth-two frame solved one root feature at a time from histograms).
START, FEATURE, POP, ALLOC, WAIT_BIG, WAIT_SMALL, FINISH, HIST = range(8)

# Kernel outcomes.
DONE, OUT_OF_BUDGET, NEEDS_POOL, NEEDS_CACHE, NEEDS_LEVELS = range(5)

# Counter slots (``State.cnt``).
(
    C_WORK,
    C_NODES,
    C_D2,
    C_HITS,
    C_ENTRIES,
    C_POOL,
    C_SUBINTERVAL,
    C_NEIGHBOUR,
    C_ZERO,
    C_SKIPPED,
    C_SPLITS,
    C_TOP,
    C_RET_OK,
    C_RET_TREE,
    C_ROOT_DONE,
    C_EVALS,
) = range(16)
N_COUNTERS = 16


class Inputs(NamedTuple):
    """The data a search reads and never writes.

    rank : array of int32, shape (F, N)
        Rank of each row's value in each ordered feature (equal values, equal ranks).
    order : array of int32, shape (F, N)
        Rows sorted by each feature (ties by row id).
    cost : array of float64, shape (N, L)
        What each row costs a leaf predicting each label (non-negative).
    w : array of float64, shape (N,)
        The most a row can add to any tree's cost: ``cost.max(axis=1)`` (spec §8.1).
    key1, key2 : array of uint64, shape (N,)
        Random keys; a row set is identified by the wrapping sums of its rows' keys.
    ty : array of int32, shape (N,)
        Class rows (``Params.diag``): the one label under which each row costs nothing.
    cw : array of float64, shape (L,) or (0,)
        Class rows whose weight depends on their class alone: ``w[r] == cw[ty[r]]`` (else empty).
    root : array of int32, shape (F, 2)
        The root may split feature ``f`` at ``rank < u`` only for ``root[f, 0] ≤ u < root[f, 1]`` (every
        threshold, but for one piece of a split search: ``solver.ordered.split``; ``lo ≥ hi``: never);
        deeper nodes split on every feature at every threshold.
    """

    rank: np.ndarray
    order: np.ndarray
    cost: np.ndarray
    w: np.ndarray
    key1: np.ndarray
    key2: np.ndarray
    ty: np.ndarray
    cw: np.ndarray
    root: np.ndarray


class Params(NamedTuple):
    """Scalars and switches of a search (every switch leaves the optimum unchanged).

    cc : float
        Cost of one branching node, in cost units (0 for STreeD; λ for GOSDT).
    unit : float
        1.0 when every tree's cost is an integer (then a child searched "below UB + 1" solves ties
        exactly and a failure proves one more: ConTree's ``+1``), else 0.0.
    eps : float
        A tree must beat a bound by more than this to count as better.
    binary : bool
        Class rows of two classes and unit weight: the depth-two routine counts in integers.
    counts : bool
        Class rows of unit weight (any number of classes): integer class counts.
    diag : bool
        Class rows: row ``r`` costs ``w[r]`` under every label but ``ty[r]`` and nothing under it (accuracy
        and its weighted forms); sums are then kept per class (``solver.ordered.sweep``).
    min_leaf : int
        Fewest rows a leaf may hold. Above 1 the interval rules are off: they need ``T(A) ≤ T(B)``
        for ``A ⊆ B``, which a minimum leaf size breaks.
    order_features : bool
        Search a node's features in the order of their best stump's cost (else in column order).
    round_robin : bool
        The root searches its features in turns (one interval each), so that its proved lower bound rises
        from the start (spec §7.2); deeper frames search their features one by one.
    hist_ratio : float
        A node of depth two is solved over every root threshold at once from per-value histograms
        (``solver.ordered.histogram``) when that costs at most this many depth-two walks (and at most
        ``HIST_MAX_WORK``): a node of many rows and few distinct values. 0 never; inf whenever it fits.
    """

    cc: float
    unit: float
    eps: float
    diag: bool
    binary: bool
    counts: bool
    min_leaf: int
    use_upper_bound: bool
    use_interval: bool
    use_cache: bool
    use_depth_two: bool
    order_features: bool
    round_robin: bool
    hist_ratio: float


class State(NamedTuple):
    """Frames (one per level), the tree pool, the cache and the counters. See the module docstring."""

    # Node rows, sorted by each feature: ord[level, f, :n].
    ord: np.ndarray  # int32 (V, F, N)
    srk: np.ndarray  # int32 (V, F, N): rank of each of those rows in that feature
    scl: np.ndarray  # int16 (V, F, N): class of each of those rows (class rows only; labels < 2**15)
    side: np.ndarray  # uint8 (N,): scratch, 1 for the rows of a split's right child
    ford: np.ndarray  # int32 (V, F): the order in which each frame searches the features
    tot: np.ndarray  # float64 (V, L): cost sums of the node's rows
    # Frame scalars, int64 (V, 24) and float64 (V, 16) and uint64 (V, 2); see the I_* and F_* slots.
    fi: np.ndarray
    ff: np.ndarray
    fh: np.ndarray
    # Per *slot*: a feature's split positions, prefix weights, records and interval queue. A frame searching its
    # features one by one has one slot (``kernel._slot``); the root searching them in turns has one per feature.
    S: np.ndarray  # int32 (slots, N)
    P: np.ndarray  # float64 (slots, N + 1)
    recL: np.ndarray  # float64 (slots, N)
    recR: np.ndarray
    recS: np.ndarray
    q: np.ndarray  # int32 (slots, N + 1, 4): (lo, hi, a, b) ring
    si: np.ndarray  # int64 (slots, 5): queue head, queue tail, zero indices zL and zR, number of split indices
    # Tree pool.
    pf: np.ndarray  # int32 (P,)
    pu: np.ndarray
    pl: np.ndarray
    pr: np.ndarray
    # Cache (open addressing).
    ck1: np.ndarray  # uint64 (C,)
    ck2: np.ndarray
    ci: np.ndarray  # int32 (C, 4): n, depth, budget, tree (-2**31: empty slot)
    cv: np.ndarray  # float64 (C,): value (exact) or lower bound
    cx: np.ndarray  # uint8 (C,): 1 exact, 0 lower bound
    # Scratch of the depth-two routine.
    sw: np.ndarray  # float64 (4, L): scratch of ``sweep.children``
    counts: np.ndarray  # int64 (4, L): scratch of ``sweep.children_counts``
    fsc: np.ndarray  # float64 (F,): scratch of ``sweep.feature_scores``
    dv: np.ndarray  # float64 (2, 4): per child best value, leaf value, size, weight
    di: np.ndarray  # int64 (2, 5): per child feature (-1: leaf), split rank, left label, right label, leaf label
    cnt: np.ndarray  # int64 (N_COUNTERS,)
    reg: np.ndarray  # float64 (4,): child return value
    # Scratch of ``solver.ordered.histogram`` (empty without ``Params.use_histograms``).
    hbins: np.ndarray  # int32 (F, N): each row's value index per feature
    hvals: np.ndarray  # int32 (H,): the node's distinct ranks, feature after feature
    hoff: np.ndarray  # int64 (F,)
    hm: np.ndarray  # int64 (F,)
    hh: np.ndarray  # float64 (H, L): cost sums per value
    hc: np.ndarray  # int64 (H,): rows per value
    hlh: np.ndarray  # float64 (H, L): the same, left of the root threshold
    hlc: np.ndarray  # int64 (H,)
    hsw: np.ndarray  # float64 (4, L)
    htree: np.ndarray  # int64 (12,)


# Slot scalars (State.si[slot, ...]).
SI_QH, SI_QT, SI_ZL, SI_ZR, SI_M = range(5)

# Integer frame slots (State.fi[level, slot]).
(
    I_N,
    I_D,
    I_NB,
    I_KD,
    I_KB,
    I_PHASE,
    I_FPOS,
    I_FEAT,
    I_K,
    I_LO,
    I_HI,
    I_A,
    I_B,
    I_AL,
    I_ALH,
    I_BIGLEFT,
    I_OKB,
    I_TB,
    I_INCT,
    I_LEAFLAB,
    I_OKS,
    I_TS,
    I_NSEARCH,
    I_DSEARCH,
) = range(24)
N_I = 24
# Float frame slots (State.ff[level, slot]).
(F_U, F_LEAF, F_INC, F_LBN, F_VB, F_TS, F_TL, F_TR, F_ML, F_MR, F_VS, F_UBS, F_W) = range(13)
N_F = 13

EMPTY = -(2**31)


HIST_VALUES = 1 << 16  # the most distinct values (over all features) a node's histograms hold
HIST_MAX_WORK = 300_000_000  # the most work (row-feature visits and value scans) of one root feature's histograms


def make_state(F, N, L, levels, pool=1024, cache=1 << 12, root_slots=0, histograms=False):
    """Return an empty ``State`` for ``levels`` frames over ``N`` rows, ``F`` features and ``L`` labels.

    ``root_slots``: ``F`` when the root searches its features in turns (one slot each), else 0.
    ``histograms``: room for ``solver.ordered.histogram``.
    """
    H = min(HIST_VALUES, F * N) if histograms else 0
    slots = root_slots + levels
    ci = np.zeros((cache, 4), dtype=np.int32)
    ci[:, 0] = EMPTY
    return State(
        ord=np.zeros((levels, F, N), dtype=np.int32),
        srk=np.zeros((levels, F, N), dtype=np.int32),
        scl=np.zeros((levels, F, N), dtype=np.int16),
        side=np.zeros(N, dtype=np.uint8),
        ford=np.zeros((levels, F), dtype=np.int32),
        tot=np.zeros((levels, L)),
        fi=np.zeros((levels, N_I), dtype=np.int64),
        ff=np.zeros((levels, N_F)),
        fh=np.zeros((levels, 2), dtype=np.uint64),
        S=np.zeros((slots, N), dtype=np.int32),
        P=np.zeros((slots, N + 1)),
        recL=np.zeros((slots, N)),
        recR=np.zeros((slots, N)),
        recS=np.zeros((slots, N)),
        q=np.zeros((slots, N + 1, 4), dtype=np.int32),
        si=np.zeros((slots, 5), dtype=np.int64),
        pf=np.zeros(pool, dtype=np.int32),
        pu=np.zeros(pool, dtype=np.int32),
        pl=np.zeros(pool, dtype=np.int32),
        pr=np.zeros(pool, dtype=np.int32),
        ck1=np.zeros(cache, dtype=np.uint64),
        ck2=np.zeros(cache, dtype=np.uint64),
        ci=ci,
        cv=np.zeros(cache),
        cx=np.zeros(cache, dtype=np.uint8),
        sw=np.zeros((4, max(L, 1))),
        counts=np.zeros((4, max(L, 1)), dtype=np.int64),
        fsc=np.zeros(F),
        dv=np.zeros((2, 4)),
        di=np.zeros((2, 5), dtype=np.int64),
        cnt=np.zeros(N_COUNTERS, dtype=np.int64),
        reg=np.zeros(4),
        hbins=np.zeros((F, N) if histograms else (0, 0), dtype=np.int32),
        hvals=np.zeros(H, dtype=np.int32),
        hoff=np.zeros(F, dtype=np.int64),
        hm=np.zeros(F, dtype=np.int64),
        hh=np.zeros((H, max(L, 1))),
        hc=np.zeros(H, dtype=np.int64),
        hlh=np.zeros((H, max(L, 1))),
        hlc=np.zeros(H, dtype=np.int64),
        hsw=np.zeros((4, max(L, 1))),
        htree=np.zeros(12, dtype=np.int64),
    )


def grow_levels(state, levels):
    """Return ``state`` with room for ``levels`` frames (the frames and slots in use are kept)."""
    old = state.fi.shape[0]
    changes = {}
    for name in ("ord", "srk", "scl", "ford", "tot", "fi", "ff", "fh", "S", "P", "recL", "recR", "recS", "q", "si"):
        a = getattr(state, name)
        extra = a.shape[0] - old  # the root's slots come before the levels' ones
        b = np.zeros((extra + levels,) + a.shape[1:], dtype=a.dtype)
        b[: a.shape[0]] = a
        changes[name] = b
    return state._replace(**changes)


def grow_pool(state):
    """Return ``state`` with twice the tree pool."""
    changes = {}
    for name in ("pf", "pu", "pl", "pr"):
        a = getattr(state, name)
        b = np.zeros(2 * len(a), dtype=a.dtype)
        b[: len(a)] = a
        changes[name] = b
    return state._replace(**changes)


def state_bytes(state):
    return int(sum(a.nbytes for a in state))
