"""The search state between steps: scalar layouts, the expansion scratch arrays, and the initial state.

Scalars live in three small arrays so that kernels stay pure: ``cfg`` (int64
settings), ``ints`` (int64 counters and positions) and ``reals`` (float64).
The named indices below are compile-time constants in the kernels.
"""

from __future__ import annotations

import hashlib
import math
from typing import NamedTuple

import numpy as np

from solver import bitset
from solver.osdt import leaves as leafcache
from solver.osdt import pyorder
from solver.osdt import queue as heap
from solver.osdt import trees as treecache

# cfg: settings
(
    C_FEATURES,
    C_MAX_DEPTH,
    C_POLICY,
    C_HIERARCHICAL,
    C_LOOKAHEAD,
    C_EQUIVALENT,
    C_SUPPORT,
    C_INCREMENTAL,
    C_LEAF_ACCURACY,
    C_LEAF_COUNT,
    C_PREFIX_LEAF_COUNT,
    C_PERMUTATION,
    C_SIMILAR,
    C_EAGER,
    C_POINTS,
    C_SPLIT_CAP,
) = range(16)
N_CFG = 16

# ints: counters and the position of the expansion in progress
(
    I_BUDGET,
    I_PHASE,
    I_LEAVES,
    I_TREES,
    I_POOL,
    I_HEAP,
    I_CUR_TREE,
    I_SPLITS,
    I_FIXED,
    I_CHILD,
    I_SPLITTABLE,
    I_SUBSET,
    I_REQUIRED,
    I_NODES,
    I_POPS,
    I_BUILT,
    I_TREE_HITS,
    I_LEAF_HITS,
    I_BEST,
    I_NODES_AT_BEST,
    I_SEQUENCE,
    I_QUEUED,
    I_NEED,
    I_IMPROVED,
    I_CHILD_QUEUED,
    I_SEEK,
    I_PASS,
) = range(27)
# prune counters, one per rule, after the scalars above
PRUNES = (
    "hierarchical",
    "lookahead",
    "equivalent_points",
    "leaf_count",
    "prefix_leaf_count",
    "leaf_accuracy",
    "incremental_accuracy",
    "family",
    "similar_support",
)
(
    P_HIERARCHICAL,
    P_LOOKAHEAD,
    P_EQUIVALENT,
    P_LEAF_COUNT,
    P_PREFIX_LEAF_COUNT,
    P_LEAF_ACCURACY,
    P_INCREMENTAL,
    P_FAMILY,
    P_SIMILAR,
) = range(27, 27 + len(PRUNES))
N_INTS = 27 + len(PRUNES)

# reals
R_LAMBDA, R_TOTAL, R_INCUMBENT, R_CUR_BOUND, R_CHILD_FIXED, R_CHILD_OBJECTIVE = range(6)
N_REALS = 6

# phases of the step machine and what a step returns
IDLE, TUPLES, SUBSETS = 0, 1, 2
MORE, DONE, GROW_LEAVES, GROW_TREES, GROW_QUEUE, GROW_EXPANSION, TOO_WIDE = range(7)

# An entry's split set is a bitmask over its tree's new leaves, and the
# subsets of a child's splittable leaves are counted in one word.
MAX_SPLITS = 31

# numba compiles these constants into the kernels of bounds.py, expand.py and
# product.py but caches a kernel by its own file's timestamp only. Each of those
# modules therefore carries LAYOUT_STAMP, which a test compares with this
# digest: changing a constant here forces an edit there, and so a recompile.
LAYOUT = hashlib.sha1(
    repr(sorted((k, v) for k, v in dict(globals()).items() if k.isupper() and isinstance(v, int))).encode()
).hexdigest()[:12]


class Expansion(NamedTuple):
    """Scratch of the expansion in progress (capacity ``S`` split leaves, ``H`` fixed leaves).

    Attributes
    ----------
    fixed : array of int64, shape (H,)
        Unchanged leaves of the popped tree, in its order.
    split : array of int64, shape (S,)
        Leaves being split, in the tree's order.
    cand : array of int64, shape (S, m)
        Features each split leaf may take, ascending.
    n_cand, digit : array of int64, shape (S,)
        Number of candidates, and the current choice of each leaf (the
        Cartesian product runs with the last leaf fastest).
    child0, child1 : array of int64, shape (S, m)
        Memo of the children ``leaf ∧ x_f = 0/1`` by candidate index (-1 unknown).
    new : array of int64, shape (2S,)
        New leaves of the current child tree.
    splittable : array of int64, shape (2S,)
        Positions in ``new`` of the leaves that may be split, ascending.
    required : array of uint64, shape (S,)
        Subsets (over splittable positions) each of which a split set must meet (Thm 3.4).
    ruled, ruled_bound : arrays, shape (m,)
        Features of one leaf ruled out by their family bound, and the bound (Thm F.1).
    key : array of uint64, shape (2k,)
        Scratch literal key (``Leaves.keys``).
    used_list, dead_list : array of int64, shape (m,)
        Scratch feature lists of one leaf.
    set_tables, set_metas : arrays
        Scratch of ``pyorder.candidate_order``.
    caps : array of uint64, shape (S, w)
        Points each split leaf captures; ``scratch`` (w,) a child's.
    masses : array of float64, shape (S, 3)
        Positive, negative and minority mass of each split leaf.
    kept, bound : array of float64, shape (S, m)
        When trees are pruned as they are made: per split leaf and candidate,
        the two children's loss (what R of the child gains), and the least
        their split sets can add to an entry's bound (``product``).
    prefix, suffix : array of float64, shape (2, S + 1)
        Sums of kept and bound over the leaves before the current one (chosen
        candidates) and from it on (each leaf's least).
    """

    fixed: np.ndarray
    split: np.ndarray
    cand: np.ndarray
    n_cand: np.ndarray
    digit: np.ndarray
    child0: np.ndarray
    child1: np.ndarray
    new: np.ndarray
    splittable: np.ndarray
    required: np.ndarray
    ruled: np.ndarray
    ruled_bound: np.ndarray
    key: np.ndarray
    used_list: np.ndarray
    dead_list: np.ndarray
    set_tables: np.ndarray
    set_metas: np.ndarray
    caps: np.ndarray
    scratch: np.ndarray
    masses: np.ndarray
    kept: np.ndarray
    bound: np.ndarray
    prefix: np.ndarray
    suffix: np.ndarray


def make_expansion(splits, fixed, n_features, n_words):
    """Return ``Expansion`` scratch for ``splits`` split leaves and ``fixed`` unchanged ones."""
    k = max(1, bitset.n_words(n_features))
    m = max(1, n_features)
    tables, metas = pyorder.scratch(m)
    return Expansion(
        np.zeros(fixed, np.int64),
        np.zeros(splits, np.int64),
        np.zeros((splits, m), np.int64),
        np.zeros(splits, np.int64),
        np.zeros(splits, np.int64),
        np.full((splits, m), -1, np.int64),
        np.full((splits, m), -1, np.int64),
        np.zeros(2 * splits, np.int64),
        np.zeros(2 * splits, np.int64),
        np.zeros(splits, np.uint64),
        np.zeros(m, np.int64),
        np.zeros(m),
        np.zeros(2 * k, np.uint64),
        np.zeros(m, np.int64),
        np.zeros(m, np.int64),
        tables,
        metas,
        np.zeros((splits, n_words), np.uint64),
        np.zeros(n_words, np.uint64),
        np.zeros((splits, 3)),
        np.zeros((splits, m)),
        np.zeros((splits, m)),
        np.zeros((2, splits + 1)),
        np.zeros((2, splits + 1)),
    )


class State(NamedTuple):
    """Everything one search carries between steps."""

    leaves: leafcache.Leaves
    trees: treecache.Trees
    queue: heap.Queue
    expansion: Expansion
    cfg: np.ndarray
    ints: np.ndarray
    reals: np.ndarray


def make_cfg(config, n_features, n_points):
    """Return the int64 settings array of a cleaned config."""
    cfg = np.zeros(N_CFG, np.int64)
    cfg[C_FEATURES] = n_features
    max_depth = config.get("max_depth")
    cfg[C_MAX_DEPTH] = n_features + 1 if max_depth is None else max_depth
    cfg[C_POLICY] = heap.POLICY_CODES[config["policy"]]
    for index, name in (
        (C_HIERARCHICAL, "use_hierarchical_bound"),
        (C_LOOKAHEAD, "use_lookahead_bound"),
        (C_EQUIVALENT, "use_equivalent_points_bound"),
        (C_SUPPORT, "use_support_bound"),
        (C_INCREMENTAL, "use_incremental_accuracy_bound"),
        (C_LEAF_ACCURACY, "use_leaf_accuracy_bound"),
        (C_LEAF_COUNT, "use_leaf_count_bound"),
        (C_PREFIX_LEAF_COUNT, "use_prefix_leaf_count_bound"),
        (C_PERMUTATION, "use_permutation_map"),
        (C_SIMILAR, "use_similar_support"),
    ):
        cfg[index] = int(bool(config[name]))
    cfg[C_EAGER] = int(bool(config["prune_when_queued"]))
    cfg[C_POINTS] = n_points
    cfg[C_SPLIT_CAP] = 2**n_features if n_features < 62 else 2**62  # Thm C.3: a tree has at most 2^M leaves
    return cfg


def initial_state(prepared, config, incumbent):
    """Return the state holding the root leaf, the root tree and the root entry.

    ``incumbent`` is the objective to beat at the start (the root's or a warm start's, if lower).
    """
    data, total = prepared.data, prepared.total
    m, w = data.ones.shape[0], data.ones.shape[1]
    k = max(1, bitset.n_words(m))
    lam = config["regularization"]
    cfg = make_cfg(config, m, prepared.n_points)
    leaves = leafcache.make_leaves(1024, k, 2048)
    leafcache.add_root(leaves, data, bitset.full(prepared.n_points), total, lam, bool(config["use_support_bound"]))
    root_objective = leaves.loss[0] + lam
    trees = treecache.make_trees(1024, 8192, 2048)
    key = leaves.zob[0]
    treecache.add_tree(trees, 0, 0, np.zeros(0, np.int64), 0, np.zeros(1, np.int64), 1, key, root_objective)
    trees.table[treecache.find_slot(trees, key, np.zeros(0, np.int64), 0, np.zeros(1, np.int64), 1)] = 0
    queue = heap.make_queue(1024)
    ints = np.zeros(N_INTS, np.int64)
    reals = np.zeros(N_REALS)
    reals[R_LAMBDA], reals[R_TOTAL] = lam, total
    reals[R_INCUMBENT] = min(root_objective, incumbent)
    ints[I_LEAVES], ints[I_TREES], ints[I_POOL] = 1, 1, 1
    ints[I_BEST] = 0 if root_objective <= incumbent else -1
    root_lower = 0.0 + lam * 1
    root_bound = root_lower + (leaves.b0[0] if cfg[C_EQUIVALENT] else 0.0) + 1 * (lam if cfg[C_LOOKAHEAD] else 0.0)
    if leafcache.can_split(leaves, 0, m, cfg[C_MAX_DEPTH]):
        ints[I_HEAP] = heap.push(queue, 0, 0.0, 0, np.uint64(1), root_lower, root_bound)
        ints[I_NODES] = 0
    ints[I_PHASE] = IDLE
    return State(leaves, trees, queue, make_expansion(4, 16, m, w), cfg, ints, reals)


def state_bytes(state):
    """Return the bytes the state's arrays hold in use (rows beyond the counts are never touched,
    so the operating system has not given them memory yet)."""
    ints = state.ints

    def used(arrays, rows, skip=("table",)):
        return sum(a[:rows].nbytes for name, a in zip(arrays._fields, arrays) if name not in skip)

    total = used(state.leaves, ints[I_LEAVES], skip=("slots",)) + state.leaves.slots.nbytes
    total += used(state.trees, ints[I_TREES], skip=("table", "pool")) + state.trees.table.nbytes
    total += state.trees.pool[: ints[I_POOL]].nbytes + used(state.queue, ints[I_HEAP])
    return total + sum(a.nbytes for a in state.expansion) + state.cfg.nbytes + ints.nbytes + state.reals.nbytes


def grow(state, status):
    """Return ``state`` with room for what the step that returned ``status`` needs."""
    ints = state.ints
    if status == GROW_LEAVES:
        n = ints[I_LEAVES]
        capacity = max(2 * state.leaves.keys.shape[0], n + ints[I_NEED])
        table = state.leaves.slots.shape[0]
        while table < 2 * capacity:
            table *= 2
        return state._replace(leaves=leafcache.grow_leaves(state.leaves, n, capacity, table))
    if status == GROW_TREES:
        t, pool = ints[I_TREES], ints[I_POOL]
        capacity = 2 * state.trees.start.shape[0]
        pool_capacity = max(2 * state.trees.pool.shape[0], pool + ints[I_NEED])
        table = state.trees.table.shape[0]
        while table < 2 * capacity:
            table *= 2
        return state._replace(trees=treecache.grow_trees(state.trees, t, pool, capacity, pool_capacity, table))
    if status == GROW_QUEUE:
        return state._replace(queue=heap.grow_queue(state.queue, 2 * state.queue.tree.shape[0]))
    if status == GROW_EXPANSION:
        need = ints[I_NEED]
        e = state.expansion
        splits = max(e.split.shape[0], min(MAX_SPLITS, 1 << math.ceil(math.log2(max(need, 1)))))
        fixed = max(e.fixed.shape[0], 1 << math.ceil(math.log2(max(need, 1))))
        return state._replace(expansion=make_expansion(splits, fixed, state.cfg[C_FEATURES], e.caps.shape[1]))
    raise ValueError(f"no growth for status {status}")
