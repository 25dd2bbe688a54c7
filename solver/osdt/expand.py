"""The bounded search step: pop a partial tree, build its children, queue their split sets.

One call of ``step`` does at most ``ints[I_BUDGET]`` units of work (a pop, a
child tree, a candidate split set) and returns, so the driver keeps time and
cancellation. The expansion of one entry can be long (a Cartesian product of
features over the leaves it splits, then every subset of the children's new
leaves), so its position is kept in the state and resumed by the next call.
When an array is full the step returns a ``GROW_*`` status before touching
anything; the caller enlarges the array and calls again.

Order of work follows the authors' code (Algorithm 1 and its implementation):
feature tuples with the last leaf fastest, children ``x_f = 0`` then ``1``,
split sets in the order of ``itertools.product`` over the new leaves.
"""

from __future__ import annotations

import numba
import numpy as np

from solver import bitset
from solver.osdt import bounds
from solver.osdt import leaves as lc
from solver.osdt import product, pyorder
from solver.osdt import queue as heap
from solver.osdt import trees as tc
from solver.osdt.state import (
    C_EAGER,
    C_EQUIVALENT,
    C_FEATURES,
    C_HIERARCHICAL,
    C_INCREMENTAL,
    C_LEAF_ACCURACY,
    C_LOOKAHEAD,
    C_MAX_DEPTH,
    C_PERMUTATION,
    C_POLICY,
    C_SIMILAR,
    DONE,
    GROW_EXPANSION,
    GROW_LEAVES,
    GROW_QUEUE,
    GROW_TREES,
    I_BEST,
    I_BUDGET,
    I_BUILT,
    I_CHILD,
    I_CHILD_QUEUED,
    I_CUR_TREE,
    I_FIXED,
    I_HEAP,
    I_IMPROVED,
    I_LEAVES,
    I_NEED,
    I_NODES,
    I_NODES_AT_BEST,
    I_PHASE,
    I_POOL,
    I_POPS,
    I_QUEUED,
    I_REQUIRED,
    I_SEEK,
    I_SEQUENCE,
    I_SPLITS,
    I_SPLITTABLE,
    I_SUBSET,
    I_TREE_HITS,
    I_TREES,
    IDLE,
    MAX_SPLITS,
    MORE,
    P_INCREMENTAL,
    P_LEAF_ACCURACY,
    R_CHILD_FIXED,
    R_CHILD_OBJECTIVE,
    R_CUR_BOUND,
    R_INCUMBENT,
    R_LAMBDA,
    R_TOTAL,
    SUBSETS,
    TOO_WIDE,
    TUPLES,
)

ONE = np.uint64(1)


LAYOUT_STAMP = "16cf25e65cec"  # state.LAYOUT these kernels were compiled against (see state.py)


@numba.njit(cache=True)
def step(data, leaves, trees, queue, exp, cfg, ints, reals):
    """Run until the budget is spent, the queue is empty (``DONE``) or an array is full (``GROW_*``)."""
    while ints[I_BUDGET] > 0:
        phase = ints[I_PHASE]
        if phase == IDLE:
            if ints[I_HEAP] == 0:
                return DONE
            status = pop_entry(data, leaves, trees, queue, exp, cfg, ints, reals)
        elif phase == TUPLES:
            status = next_child(data, leaves, trees, exp, cfg, ints, reals)
        else:
            status = push_split_sets(leaves, trees, queue, exp, cfg, ints, reals)
        if status != MORE:
            return status
    return MORE


@numba.njit(cache=True)
def room_for_leaves(leaves, ints, extra):
    """True when ``extra`` more leaves fit (arrays and a table at most half full); else ask for them."""
    need = ints[I_LEAVES] + extra
    if need > leaves.keys.shape[0] or 2 * need > leaves.slots.shape[0]:
        ints[I_NEED] = extra
        return False
    return True


@numba.njit(cache=True)
def pop_entry(data, leaves, trees, queue, exp, cfg, ints, reals):
    """Pop the best entry; drop it if a bound rules it out, else set up the product of its leaves' features."""
    t, split = queue.tree[0], queue.split[0]
    n_split, n_leaves = bitset.popcount(split), trees.length[queue.tree[0]]
    if n_split > MAX_SPLITS:
        return TOO_WIDE
    if n_split > exp.split.shape[0] or n_leaves > exp.fixed.shape[0]:
        ints[I_NEED] = max(n_split, n_leaves)
        return GROW_EXPANSION
    size = heap.pop(queue, ints[I_HEAP])
    ints[I_HEAP] = size
    ints[I_POPS] += 1
    ints[I_BUDGET] -= 1
    lower, bound = queue.lower[size], queue.bound[size]
    rule = bounds.pruning_rule(lower, bound, n_leaves, n_split, reals[R_INCUMBENT], reals[R_LAMBDA], cfg)
    if rule >= 0:
        ints[rule] += 1
        return MORE
    first_new = n_leaves - trees.n_new[t]
    n_fixed, k = np.int64(0), np.int64(0)  # int64: one compiled leaf_cap, not one per literal
    for p in range(n_leaves):
        leaf = trees.pool[trees.start[t] + p]
        if p >= first_new and (split >> np.uint64(p - first_new)) & ONE:
            exp.split[k] = leaf
            lc.leaf_cap(data, leaves, leaf, exp.caps, k)
            exp.masses[k, 0], exp.masses[k, 1], exp.masses[k, 2] = lc.class_masses(data, exp.caps[k])
            k += 1
        else:
            exp.fixed[n_fixed] = leaf
            n_fixed += 1
    ints[I_CUR_TREE], ints[I_SPLITS], ints[I_FIXED] = t, n_split, n_fixed
    reals[R_CUR_BOUND] = bound
    if not set_candidates(data, leaves, exp, cfg, ints, reals):
        return MORE
    if not cfg[C_EAGER]:
        exp.digit[:n_split] = 0
        ints[I_SEEK] = -1
    ints[I_PHASE] = TUPLES
    return MORE


@numba.njit(cache=True)
def child_base(leaves, exp, ints, reals):
    """Return the unchanged leaves' loss + λ × leaves of every child of the entry being expanded."""
    n_fixed = ints[I_FIXED]
    base = reals[R_LAMBDA] * (n_fixed + 2 * ints[I_SPLITS])
    for i in range(n_fixed):
        base += leaves.loss[exp.fixed[i]]
    return base


@numba.njit(cache=True)
def set_candidates(data, leaves, exp, cfg, ints, reals):
    """List each split leaf's usable features (in ``pyorder`` order); return False when some leaf has none."""
    for i in range(ints[I_SPLITS]):
        # int64, not literals: numba would compile candidate_order once more for a literal 0.
        leaf, n_used, n_dead = exp.split[i], np.int64(0), np.int64(0)
        for f in range(cfg[C_FEATURES]):
            if lc.uses(leaves, leaf, f):
                exp.used_list[n_used] = f
                n_used += 1
            elif lc.has_feature(leaves.dead, leaf, f):
                exp.dead_list[n_dead] = f
                n_dead += 1
        k = pyorder.candidate_order(
            cfg[C_FEATURES], exp.used_list, n_used, exp.dead_list, n_dead, exp.set_tables, exp.set_metas, exp.cand[i]
        )
        exp.child0[i, :k] = -1
        exp.child1[i, :k] = -1
        exp.n_cand[i] = k
        if k == 0:
            return False
    eager = cfg[C_EAGER] != 0
    if eager or cfg[C_SIMILAR]:
        return product.prepare(data, leaves, exp, cfg, ints, reals, eager)
    return True


@numba.njit(cache=True)
def advance(leaves, exp, cfg, ints, reals, last):
    """Move to the next feature tuple after every tuple that agrees with the current one up to leaf ``last``."""
    n = ints[I_SPLITS]
    if cfg[C_EAGER]:
        exp.digit[last] += 1
        ints[I_SEEK] = last
        ints[I_PHASE] = TUPLES
        return
    for j in range(last + 1, n):
        exp.digit[j] = exp.n_cand[j] - 1
    i = n - 1
    while i >= 0:
        exp.digit[i] += 1
        if exp.digit[i] < exp.n_cand[i]:
            ints[I_PHASE] = TUPLES
            return
        exp.digit[i] = 0
        i -= 1
    ints[I_PHASE] = IDLE


@numba.njit(cache=True)
def tuple_children(data, leaves, exp, cfg, ints, reals):
    """Fill ``exp.new`` with the children of the current feature tuple; return the leaf index that fails, or -1."""
    lam = reals[R_LAMBDA]
    for i in range(ints[I_SPLITS]):
        d = exp.digit[i]
        leaf, f = exp.split[i], exp.cand[i, d]
        for v in range(2):
            memo = exp.child0 if v == 0 else exp.child1
            c = memo[i, d]
            if c < 0:
                c = product.fetch_child(data, leaves, exp, ints, reals, i, f, v, cfg)
                memo[i, d] = c
            if cfg[C_LEAF_ACCURACY] and bounds.rejects_child(leaves.correct[c], lam):
                lc.mark_dead(leaves, leaf, f)  # Theorem 3.5: f stays dead below this leaf
                ints[P_LEAF_ACCURACY] += 1
                return i
            exp.new[2 * i + v] = c
    return -1


@numba.njit(cache=True)
def next_child(data, leaves, trees, exp, cfg, ints, reals):
    """Build the child tree of the current feature tuple, evaluate it and set up its split sets."""
    if ints[I_SEEK] >= 0:
        found = product.seek(exp, cfg, reals, ints, child_base(leaves, exp, ints, reals))
        if found == product.PAUSED:
            return MORE
        if found == product.EXHAUSTED:
            ints[I_PHASE] = IDLE
            return MORE
    n_split, n_fixed = ints[I_SPLITS], ints[I_FIXED]
    n_new = 2 * n_split
    if not room_for_leaves(leaves, ints, n_new):
        return GROW_LEAVES
    t = ints[I_TREES]
    if (
        t + 1 > trees.start.shape[0]
        or 2 * (t + 1) > trees.table.shape[0]
        or ints[I_POOL] + n_fixed + n_new > trees.pool.shape[0]
    ):
        ints[I_NEED] = n_fixed + n_new
        return GROW_TREES
    ints[I_BUDGET] -= 1
    failed = tuple_children(data, leaves, exp, cfg, ints, reals)
    if failed >= 0:
        advance(leaves, exp, cfg, ints, reals, failed)
        return MORE
    key = trees.key[ints[I_CUR_TREE]]
    for i in range(n_split):
        key ^= leaves.zob[exp.split[i]]
    for j in range(n_new):
        key ^= leaves.zob[exp.new[j]]
    slot = -1
    if cfg[C_PERMUTATION]:
        slot = tc.find_slot(trees, key, exp.fixed, n_fixed, exp.new, n_new)
        if trees.table[slot] != tc.EMPTY:
            ints[I_TREE_HITS] += 1  # Corollary E.1: this leaf set was already generated
            advance(leaves, exp, cfg, ints, reals, n_split - 1)
            return MORE
    lam = reals[R_LAMBDA]
    fixed_loss = 0.0
    for i in range(n_fixed):
        fixed_loss += leaves.loss[exp.fixed[i]]
    loss = fixed_loss
    for j in range(n_new):
        loss += leaves.loss[exp.new[j]]
    objective = loss + lam * (n_fixed + n_new)
    ints[I_POOL] = tc.add_tree(trees, t, ints[I_POOL], exp.fixed, n_fixed, exp.new, n_new, key, objective)
    ints[I_TREES] = t + 1
    if slot >= 0:
        trees.table[slot] = t
    ints[I_BUILT] += 1
    if objective < reals[R_INCUMBENT]:
        reals[R_INCUMBENT] = objective
        ints[I_BEST], ints[I_NODES_AT_BEST] = t, ints[I_NODES] + 1
        ints[I_IMPROVED] += 1
    r = 0
    for j in range(n_new):
        if lc.can_split(leaves, exp.new[j], cfg[C_FEATURES], cfg[C_MAX_DEPTH]):
            exp.splittable[r] = j
            r += 1
    n_required = 0
    if cfg[C_INCREMENTAL]:
        for i in range(n_split):
            if bounds.must_split_further(
                leaves.loss[exp.split[i]], leaves.loss[exp.new[2 * i]], leaves.loss[exp.new[2 * i + 1]], lam
            ):  # Theorem 3.4
                mask = np.uint64(0)
                for q in range(r):
                    if exp.splittable[q] // 2 == i:
                        mask |= ONE << np.uint64(r - 1 - q)
                exp.required[n_required] = mask
                n_required += 1
    ints[I_CHILD], ints[I_SPLITTABLE], ints[I_SUBSET], ints[I_REQUIRED] = t, r, 0, n_required
    ints[I_CHILD_QUEUED] = 0
    reals[R_CHILD_FIXED], reals[R_CHILD_OBJECTIVE] = fixed_loss, objective
    if r == 0 or (cfg[C_EAGER] and every_set_dropped(exp, cfg, reals, fixed_loss + lam * (n_fixed + n_new), n_split)):
        finish_child(leaves, trees, exp, cfg, ints, reals)
    else:
        ints[I_PHASE] = SUBSETS
    return MORE


@numba.njit(cache=True)
def every_set_dropped(exp, cfg, reals, base, n_split):
    """True when the bounds drop every split set of the current child (``product``'s sums, with a margin)."""
    if not (cfg[C_HIERARCHICAL] or cfg[C_LOOKAHEAD] or cfg[C_EQUIVALENT]):
        return False
    return base + exp.prefix[1, n_split] >= reals[R_INCUMBENT] + product.MARGIN


@numba.njit(cache=True)
def finish_child(leaves, trees, exp, cfg, ints, reals):
    """Done with the current child: forget it when pruning as queued left it no entry, then move on.

    Such a tree leads nowhere, and a later copy of it would lead nowhere
    either (R_c only falls), so keeping it only costs memory.
    """
    child = ints[I_CHILD]
    if cfg[C_EAGER] and ints[I_CHILD_QUEUED] == 0 and ints[I_BEST] != child and child == ints[I_TREES] - 1:
        if cfg[C_PERMUTATION]:
            tc.remove_last(trees, child)
        ints[I_POOL] = trees.start[child]
        ints[I_TREES] = child
    advance(leaves, exp, cfg, ints, reals, ints[I_SPLITS] - 1)


@numba.njit(cache=True)
def push_split_sets(leaves, trees, queue, exp, cfg, ints, reals):
    """Queue the current child with each allowed non-empty subset of its splittable new leaves."""
    r, n_required = ints[I_SPLITTABLE], ints[I_REQUIRED]
    last = (ONE << np.uint64(r)) - ONE
    subset = np.uint64(ints[I_SUBSET])
    child = ints[I_CHILD]
    n_leaves = trees.length[child]
    n_new = trees.n_new[child]
    new_start = trees.start[child] + n_leaves - n_new
    lam, total = reals[R_LAMBDA], reals[R_TOTAL]
    first = trees.pool[trees.start[child]]
    first_full = leaves.pos[first] + leaves.neg[first] == total
    while subset < last:
        if ints[I_BUDGET] <= 0:
            ints[I_SUBSET] = np.int64(subset)
            return MORE
        if ints[I_HEAP] >= queue.tree.shape[0]:
            ints[I_SUBSET] = np.int64(subset)
            return GROW_QUEUE
        subset += ONE
        ints[I_BUDGET] -= 1
        allowed = True
        for k in range(n_required):
            if subset & exp.required[k] == 0:
                allowed = False
                break
        if not allowed:
            ints[P_INCREMENTAL] += 1  # Theorem 3.4: a weak split's children may not both stay leaves
            continue
        split = np.uint64(0)
        n_split = np.int64(0)  # int64: one compiled entry_bound / pruning_rule, not one per literal
        for q in range(r):
            if (subset >> np.uint64(r - 1 - q)) & ONE:
                split |= ONE << np.uint64(exp.splittable[q])
                n_split += 1
        lower, b0, mass = reals[R_CHILD_FIXED], 0.0, 0.0
        for j in range(n_new):
            leaf = trees.pool[new_start + j]
            if (split >> np.uint64(j)) & ONE:
                b0 += leaves.b0[leaf]
                mass += leaves.pos[leaf] + leaves.neg[leaf]
            else:
                lower += leaves.loss[leaf]
        lower = lower + lam * n_leaves
        ints[I_NODES] += 1
        bound = bounds.entry_bound(lower, b0, n_split, lam, cfg)
        if cfg[C_EAGER]:
            rule = bounds.pruning_rule(lower, bound, n_leaves, n_split, reals[R_INCUMBENT], lam, cfg)
            if rule >= 0:
                ints[rule] += 1
                continue
        ints[I_SEQUENCE] += 1
        priority = heap.priority_of(
            cfg[C_POLICY], lower, reals[R_CHILD_OBJECTIVE], mass, total, first_full, ints[I_SEQUENCE]
        )
        ints[I_HEAP] = heap.push(queue, ints[I_HEAP], priority, child, split, lower, bound)
        ints[I_QUEUED] += 1
        ints[I_CHILD_QUEUED] += 1
    ints[I_SUBSET] = np.int64(subset)
    finish_child(leaves, trees, exp, cfg, ints, reals)
    return MORE


@numba.njit(cache=True)
def lower_bound(queue, ints, reals):
    """Return the proved lower bound: the least bound among live entries and the entry being expanded, at most R_c."""
    best = min(reals[R_INCUMBENT], heap.min_bound(queue, ints[I_HEAP]))
    if ints[I_PHASE] != IDLE:
        best = min(best, reals[R_CUR_BOUND])
    return best
