"""The budgeted depth-first DP with memo (spec §3.7), resumable: its recursion lives in an explicit stack.

``solve(s, d, budget)`` has the postcondition: the subproblem is solved
(``lb == ub``, and ``ub`` is its optimum) whenever its optimum is below
``budget``; otherwise ``lb >= budget``, a proof that it cannot help the
caller. A frame of the stack is one call of ``solve``; its candidates are the
valid splits, sorted by the sum of their children's lower bounds.

Frame phases: ``UNEXPANDED`` (children not yet created), then for the
candidate at ``pos``: ``CHOOSE`` (prune it or solve its left child),
``LEFT_DONE`` (solve its right child), ``RIGHT_DONE`` (combine).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver import bitset
from solver.osst import cache
from solver.osst.objective import evaluate

UNEXPANDED, CHOOSE, LEFT_DONE, RIGHT_DONE = -1, 0, 1, 2
DONE, OUT_OF_BUDGET, NEEDS_MEMORY = 0, 1, 2


class Stack(NamedTuple):
    """Frames of the depth-first search (at most one per depth level).

    Attributes
    ----------
    node : array of int64, shape (S,)
        Memo id of the frame's subproblem.
    budget : array of float64, shape (S,)
        The caller's budget (``inf`` at the root).
    phase, pos, n_cand : array of int64, shape (S,)
        Phase, current candidate and number of candidates.
    feat_min : array of float64, shape (S,)
        Minimum of the lower bounds proved for the candidates already passed.
    cand_feature, cand_left, cand_right : array of int64, shape (S, M)
        Each candidate's feature and the memo ids of its children (feature 0 on the left).
    cand_key : array of float64, shape (S, M, 2)
        Sort key: children's lower-bound sum, then upper-bound sum.
    top : array of int64, shape (1,)
        Number of frames.
    """

    node: np.ndarray
    budget: np.ndarray
    phase: np.ndarray
    pos: np.ndarray
    n_cand: np.ndarray
    feat_min: np.ndarray
    cand_feature: np.ndarray
    cand_left: np.ndarray
    cand_right: np.ndarray
    cand_key: np.ndarray
    top: np.ndarray

    def nbytes(self):
        return sum(a.nbytes for a in self)


def make_stack(levels, n_features):
    """Return an empty ``Stack`` for at most ``levels`` frames over ``n_features`` features."""
    s, m = levels, max(1, n_features)
    return Stack(
        node=np.zeros(s, dtype=np.int64),
        budget=np.zeros(s),
        phase=np.zeros(s, dtype=np.int64),
        pos=np.zeros(s, dtype=np.int64),
        n_cand=np.zeros(s, dtype=np.int64),
        feat_min=np.zeros(s),
        cand_feature=np.zeros((s, m), dtype=np.int64),
        cand_left=np.zeros((s, m), dtype=np.int64),
        cand_right=np.zeros((s, m), dtype=np.int64),
        cand_key=np.zeros((s, m, 2)),
        top=np.zeros(1, dtype=np.int64),
    )


@numba.njit(cache=True)
def create(data, params, memo, slot, bits, size, depth):
    """Store the new subproblem (bits, depth) in the empty ``slot`` with its initial bounds; return its id."""
    node = cache.insert_at(memo, slot, bits, depth, size)
    leaf, lb = evaluate(data, params, bits, size, depth)
    memo.leaf[node] = leaf
    memo.ub[node] = leaf  # Alg. 1 l. 36: a new subproblem's upper bound is its leaf objective
    memo.lb[node] = lb
    return node


@numba.njit(cache=True)
def node_for(data, params, memo, bits, size, depth):
    """Return the memo id of (bits, depth), creating and bounding it on first sight."""
    slot = cache.find_slot(memo, bits, depth)
    node = memo.slots[slot]
    return node if node != cache.EMPTY else create(data, params, memo, slot, bits, size, depth)


@numba.njit(cache=True, inline="always")
def push(stack, node, budget):
    f = stack.top[0]
    stack.node[f] = node
    stack.budget[f] = budget
    stack.phase[f] = UNEXPANDED
    stack.top[0] = f + 1


@numba.njit(cache=True, inline="always")
def needs_solving(memo, node, budget):
    return memo.lb[node] < memo.ub[node] and memo.lb[node] < budget


@numba.njit(cache=True)
def _sort_candidates(stack, f):
    # Insertion sort by (lower-bound sum, upper-bound sum): most promising first.
    key, feat, left, right = stack.cand_key[f], stack.cand_feature[f], stack.cand_left[f], stack.cand_right[f]
    for i in range(1, stack.n_cand[f]):
        k0, k1, a, b, c = key[i, 0], key[i, 1], feat[i], left[i], right[i]
        j = i - 1
        while j >= 0 and (key[j, 0] > k0 or (key[j, 0] == k0 and key[j, 1] > k1)):
            key[j + 1, 0], key[j + 1, 1] = key[j, 0], key[j, 1]
            feat[j + 1], left[j + 1], right[j + 1] = feat[j], left[j], right[j]
            j -= 1
        key[j + 1, 0], key[j + 1, 1] = k0, k1
        feat[j + 1], left[j + 1], right[j + 1] = a, b, c


@numba.njit(cache=True)
def expand(data, params, memo, stack, f):
    """Create the children of every valid split of frame ``f``'s subproblem; return how many were new."""
    node = stack.node[f]
    bits = memo.keys[node]
    depth = memo.depth[node] - 1
    size = memo.size[node]
    before = memo.count[0]
    left_bits, right_bits = data.scratch[0], data.scratch[1]
    k = 0
    for j in range(data.cols.shape[0]):
        n_right = bitset.and_into(right_bits, bits, data.cols[j])
        n_left = size - n_right
        if n_left < params.min_leaf or n_right < params.min_leaf or n_left == 0 or n_right == 0:
            continue  # a leaf must hold at least min_leaf samples (spec §1.7)
        bitset.andnot_into(left_bits, bits, data.cols[j])
        # Look up before creating: a call that takes the data costs reference counts on all its arrays.
        slot = cache.find_slot(memo, left_bits, depth)
        left = memo.slots[slot]
        if left == cache.EMPTY:
            left = create(data, params, memo, slot, left_bits, n_left, depth)
        slot = cache.find_slot(memo, right_bits, depth)
        right = memo.slots[slot]
        if right == cache.EMPTY:
            right = create(data, params, memo, slot, right_bits, n_right, depth)
        stack.cand_feature[f, k], stack.cand_left[f, k], stack.cand_right[f, k] = j, left, right
        stack.cand_key[f, k, 0] = memo.lb[left] + memo.lb[right]
        stack.cand_key[f, k, 1] = memo.ub[left] + memo.ub[right]
        k += 1
    stack.n_cand[f], stack.pos[f], stack.phase[f], stack.feat_min[f] = k, 0, CHOOSE, np.inf
    _sort_candidates(stack, f)
    return memo.count[0] - before


@numba.njit(cache=True, inline="always")
def _next_candidate(stack, f, bound):
    stack.feat_min[f] = min(stack.feat_min[f], bound)
    stack.pos[f] += 1
    stack.phase[f] = CHOOSE


@numba.njit(cache=True)
def advance(params, memo, stack, f):
    """Move frame ``f`` one phase forward on its current candidate (may push a child frame)."""
    node, c = stack.node[f], stack.pos[f]
    left, right = stack.cand_left[f, c], stack.cand_right[f, c]
    lb, ub = memo.lb, memo.ub
    subtree = params.use_subtree_bound
    budget = min(stack.budget[f], ub[node]) if subtree else np.inf
    phase = stack.phase[f]
    if phase == CHOOSE:
        if subtree and lb[left] + lb[right] >= budget:  # Thm B.6 (and Thm 2.2): the split cannot beat the budget
            _next_candidate(stack, f, lb[left] + lb[right])
            return
        stack.phase[f] = LEFT_DONE
        if needs_solving(memo, left, budget - lb[right]):
            push(stack, left, budget - lb[right])
    elif phase == LEFT_DONE:
        if lb[left] < ub[left]:  # left proved ≥ its budget: the split cannot beat ours
            _next_candidate(stack, f, lb[left] + lb[right])
            return
        stack.phase[f] = RIGHT_DONE
        if needs_solving(memo, right, budget - ub[left]):
            push(stack, right, budget - ub[left])
    else:
        if lb[right] < ub[right]:
            _next_candidate(stack, f, ub[left] + lb[right])
            return
        total = ub[left] + ub[right]
        if total < ub[node]:
            cache.set_best(memo, node, total, stack.cand_feature[f, c], left, right)
        _next_candidate(stack, f, total)


@numba.njit(cache=True, inline="always")
def finish(params, memo, stack, f):
    """Close frame ``f``: its subproblem is solved, or proved to cost at least its budget."""
    node = stack.node[f]
    best = memo.ub[node]
    new_lb = max(memo.lb[node], min(memo.leaf[node], stack.feat_min[f]))
    if best < stack.budget[f] or best <= new_lb + params.tolerance:
        memo.lb[node] = best
    else:
        memo.lb[node] = min(new_lb, best)
    stack.top[0] = f


@numba.njit(cache=True)
def run(data, params, memo, stack, max_expansions):
    """Run the search until it finishes, has expanded ``max_expansions`` subproblems, or needs a bigger memo.

    Returns
    -------
    status : int
        ``DONE``, ``OUT_OF_BUDGET`` or ``NEEDS_MEMORY``.
    expansions : int
    created : int
        Subproblems created.
    """
    expansions = 0
    created = 0
    room = memo.keys.shape[0] - 2 * data.cols.shape[0]
    while stack.top[0] > 0:
        f = stack.top[0] - 1
        if stack.phase[f] == UNEXPANDED:
            if expansions >= max_expansions:
                return OUT_OF_BUDGET, expansions, created
            if memo.count[0] > room:
                return NEEDS_MEMORY, expansions, created
            created += expand(data, params, memo, stack, f)
            expansions += 1
        elif stack.pos[f] == stack.n_cand[f]:
            finish(params, memo, stack, f)
        else:
            advance(params, memo, stack, f)
    return DONE, expansions, created


@numba.njit(cache=True)
def tighten(memo, stack):
    """Raise the bounds of the subproblems on the stack to what the frames have proved so far.

    Deepest frame first, so that a child's progress reaches its parents:
    the lower bound becomes the least of the leaf and every candidate's
    current lower bound, the upper bound the best complete tree among the
    candidates. Both stay valid (anytime bounds of spec §3.7).
    """
    for f in range(stack.top[0] - 1, -1, -1):
        if stack.phase[f] == UNEXPANDED:
            continue
        node = stack.node[f]
        low = min(memo.leaf[node], stack.feat_min[f])
        for c in range(stack.pos[f], stack.n_cand[f]):
            left, right = stack.cand_left[f, c], stack.cand_right[f, c]
            low = min(low, memo.lb[left] + memo.lb[right])
            if memo.ub[left] + memo.ub[right] < memo.ub[node]:
                cache.set_best(memo, node, memo.ub[left] + memo.ub[right], stack.cand_feature[f, c], left, right)
        memo.lb[node] = max(memo.lb[node], min(low, memo.ub[node]))


@numba.njit(cache=True)
def greedy(data, params, memo, node, scratch):
    """Complete the greedy tree below ``node`` (best split by its children's leaf objectives, recursively).

    Sets the upper bound and split of every subproblem on the way when the
    greedy subtree beats it, so the search starts with a good incumbent and
    tight budgets. Stops early (still valid) when the memo is nearly full.

    Parameters
    ----------
    scratch : array of uint64, shape (levels, 2, W)
        Child bitsets, one pair per level.

    Returns
    -------
    float
        The upper bound of ``node`` afterwards.
    """
    depth = memo.depth[node]
    if memo.lb[node] >= memo.ub[node] or depth == 0:
        return memo.ub[node]
    if memo.count[0] > memo.keys.shape[0] - 2 * data.cols.shape[0]:
        return memo.ub[node]
    left_bits, right_bits = scratch[depth, 0], scratch[depth, 1]
    size = memo.size[node]
    # int64, not literals: numba would compile this recursion once more for the literal -1 (2 s of a cold start).
    best, best_j, best_left, best_right = np.inf, np.int64(-1), np.int64(-1), np.int64(-1)
    for j in range(data.cols.shape[0]):
        n_right = bitset.and_into(right_bits, memo.keys[node], data.cols[j])
        n_left = size - n_right
        if n_left < params.min_leaf or n_right < params.min_leaf or n_left == 0 or n_right == 0:
            continue
        bitset.andnot_into(left_bits, memo.keys[node], data.cols[j])
        left = node_for(data, params, memo, left_bits, n_left, depth - 1)
        right = node_for(data, params, memo, right_bits, n_right, depth - 1)
        if memo.ub[left] + memo.ub[right] < best:
            best, best_j, best_left, best_right = memo.ub[left] + memo.ub[right], j, left, right
    if best_j < 0:
        return memo.ub[node]
    total = greedy(data, params, memo, best_left, scratch) + greedy(data, params, memo, best_right, scratch)
    if total < memo.ub[node]:
        cache.set_best(memo, node, total, best_j, best_left, best_right)
    return memo.ub[node]
