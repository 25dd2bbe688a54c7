"""The branch-and-bound loop of CORELS (paper Algorithms 5 and 6, spec §3.4) in numba.

``step`` pops prefixes from the queue and evaluates all children of each
(``expand``) until it has evaluated ``budget`` children, the queue is empty,
or a structure needs more room (the Python side grows it and calls again).
Every quantity is an integer scaled by ``D`` (see ``objective``), so every
bound test is exact.

Bound tests, each behind a switch of ``Config`` and named at its line:
Theorem 1 (hierarchical lower bound), Lemma 2 (one-step lookahead), Theorem 6
(prefix length), Theorem 10 (minimum support), Theorem 11 (minimum accurate
support), Theorem 20 (equivalent points), Corollary 16 / Theorem 15 (the
symmetry-aware map, by permutation or by captured vector).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver.bitset import hash_words, popcount
from solver.corels import pmap as pm
from solver.corels.queue import BOUND, NODE, ORDER, SIZE, heapify, policy_key, pop, push, top_depth
from solver.corels.trie import (
    CHECKED,
    DEAD,
    EXPANDED,
    IN_USE,
    NEXT_UNUSED,
    REPLACED,
    ROOT,
    add_node,
    is_live,
    labels_of,
    release,
    remove_and_prune_up,
    room,
    walk_prefix,
)

# step() results
BUDGET, DONE, MAINTAIN = 0, 1, 2

# symmetry-aware map kinds
NO_MAP, PERMUTATION_MAP, CAPTURED_MAP = 0, 1, 2
NO_LENGTH_LIMIT = 1 << 30  # Config.max_length when the user set no limit on the number of rules

# counters
(
    BEST,
    BEST_LEN,
    BEST_DEFAULT,
    EVALS,
    LB_EVALS,
    POPS,
    EXPANSIONS,
    INSERTIONS,
    PRUNE_SUPPORT,
    PRUNE_ACCURATE,
    PRUNE_HIERARCHICAL,
    PRUNE_LOOKAHEAD,
    PRUNE_LENGTH,
    PRUNE_MAP,
    REPLACEMENTS,
    GC_RUNS,
    MAX_DEPTH,
    IMPROVEMENTS,
    MAP_COMPACTIONS,
    STALE_POPS,
    DEAD_POPS,
    MAX_QUEUE,
    MAX_TRIE,
    N_COUNTERS,
) = range(24)

COUNTER_NAMES = (
    "best",
    "best_length",
    "best_default",
    "evaluations",
    "lower_bound_evaluations",
    "queue_pops",
    "expansions",
    "queue_insertions",
    "pruned_minimum_support",
    "pruned_accurate_support",
    "pruned_hierarchical_bound",
    "pruned_lookahead_equivalent_points",
    "pruned_length_bound",
    "pruned_symmetry_map",
    "map_replacements",
    "garbage_collections",
    "max_evaluated_prefix_length",
    "improvements",
    "map_compactions",
    "stale_pops",
    "dead_pops",
    "max_queue_size_physical",
    "max_trie_size",
)


class Config(NamedTuple):
    """The switches of one search (runtime values: one compilation serves them all)."""

    policy: int
    max_length: int
    use_hierarchical: bool
    use_lookahead: bool
    use_length: bool
    use_minimum_support: bool
    use_accurate_support: bool
    use_equivalent_points: bool
    map_kind: int
    use_gc: bool


class Scratch(NamedTuple):
    """Buffers reused by every expansion.

    prefix : int32 (m + 1,); sorted_prefix : int32 (m + 1,); in_prefix : uint8 (m,);
    u : uint64 (w,) classes the parent leaves uncaptured; key : uint64 (the map's key width,);
    vector : uint64 (w,) classes a child leaves uncaptured (the captured-vector map's comparison);
    members : int32 (m + 1,) the antecedents of a map entry being compared
    """

    prefix: np.ndarray
    sorted_prefix: np.ndarray
    in_prefix: np.ndarray
    u: np.ndarray
    key: np.ndarray
    vector: np.ndarray
    members: np.ndarray


@numba.njit(cache=True, inline="always")
def bound_key(data, cfg, bound, minority):
    """Return the pruning key of a prefix: ``b [+ b0 (Thm 20)] [+ λ (Lemma 2)]``, scaled."""
    key = bound
    if cfg.use_equivalent_points:
        key += minority * data.scale
    if cfg.use_lookahead:
        key += data.lam
    return key


@numba.njit(cache=True)
def children_viable(data, cfg, best, bound, minority, depth, m):
    """Return False if no child of a prefix can beat ``best`` (tested when it is popped)."""
    if depth >= cfg.max_length:
        return False  # the user's limit on the number of rules (a constraint, not a bound)
    if (cfg.use_hierarchical or cfg.use_lookahead or cfg.use_equivalent_points) and bound_key(
        data, cfg, bound, minority
    ) >= best:
        return False  # Theorem 1 with Lemma 2 and Theorem 20: the whole subtree is dominated
    # Theorem 6: K' ≤ K + ⌊(R^c − b)/λ⌋ admits no longer prefix (Prop. 3: K' ≤ M)
    return not (cfg.use_length and (depth >= m or (data.lam > 0 and bound + data.lam > best)))


@numba.njit(cache=True)
def uncaptured(data, trie, node, scratch):
    """Walk node's prefix into ``scratch``; set ``u`` = classes it leaves uncaptured; return (depth, dead)."""
    depth, dead = walk_prefix(trie, node, scratch.prefix)
    u = scratch.u
    u[:] = data.full
    for k in range(depth):
        a = scratch.prefix[k]
        scratch.in_prefix[a] = 1
        for w in range(u.shape[0]):
            u[w] &= ~data.caps[a, w]
    return depth, dead


@numba.njit(cache=True)
def weighted_count(a, planes):
    """Return the rows in the classes of bitset ``a``: ``Σ_k 2^k |a ∩ planes[:, k]|``."""
    total = 0
    for w in range(a.shape[0]):
        word = a[w]
        if word == 0:
            continue
        for k in range(planes.shape[1]):
            total += popcount(word & planes[w, k]) << k
    return total


@numba.njit(cache=True, inline="always")
def captured_counts(data, u, s):
    """Return, for the classes ``v = u ∩ cap(s)``: their rows, rows with label 1, minority rows (one pass)."""
    nv = nw = nz = 0
    caps, total, positive, minority = data.caps, data.total, data.positive, data.minority
    for w in range(u.shape[0]):
        v = u[w] & caps[s, w]
        if v == 0:
            continue
        for k in range(total.shape[1]):
            nv += popcount(v & total[w, k]) << k
        for k in range(positive.shape[1]):
            nw += popcount(v & positive[w, k]) << k
        for k in range(minority.shape[1]):
            nz += popcount(v & minority[w, k]) << k
    return nv, nw, nz


@numba.njit(cache=True)
def record_incumbent(trie, node, depth, s, label, default, objective, scratch, best_prefix, best_labels, counters):
    """Make ``prefix(node) + [s]`` the best rule list found."""
    counters[BEST] = objective
    counters[BEST_LEN] = depth + 1
    counters[BEST_DEFAULT] = default
    counters[IMPROVEMENTS] += 1
    best_prefix[:depth] = scratch.prefix[:depth]
    best_prefix[depth] = s
    labels_of(trie, node, best_labels)
    best_labels[depth] = label


@numba.njit(cache=True, inline="always")
def _put16(key, position, value):
    w, shift = position >> 2, np.uint64(16 * (position & 3))
    key[w] = (key[w] & ~(np.uint64(0xFFFF) << shift)) | (np.uint64(value) << shift)


@numba.njit(cache=True)
def set_key(key, sorted_prefix, depth, s):
    """Write the sorted antecedents of ``prefix + [s]`` into ``key`` as uint16s, padded with 0xFFFF."""
    key[:] = np.uint64(0xFFFFFFFFFFFFFFFF)
    p = 0
    placed = False
    for k in range(depth):
        a = sorted_prefix[k]
        if not placed and s < a:
            _put16(key, p, s)
            p += 1
            placed = True
        _put16(key, p, a)
        p += 1
    if not placed:
        _put16(key, p, s)


@numba.njit(cache=True)
def child_key(data, cfg, scratch, u, s, depth, parent_hash):
    """Fill ``scratch.key`` with the map key of the child ``prefix + [s]``; return its hash.

    Both maps store the child's antecedents as a sorted set (``set_key``). The permutation map hashes the set;
    the captured-vector map hashes the classes the child leaves uncaptured (written to ``scratch.vector``),
    which the set determines (a list captures the rows that satisfy any of its antecedents), and compares
    entries by recomputing that vector from the stored set (``find_captured``). Storing the set, not the
    vector, keeps an entry a few words long whatever the number of rows (on 327,000 rows the vector is 1,619
    words: 13 KB an entry, 800 MB in 12 s).
    """
    set_key(scratch.key, scratch.sorted_prefix, depth, s)
    if cfg.map_kind == PERMUTATION_MAP:  # the set of antecedents (Corollary 16)
        return parent_hash ^ data.zobrist[s]
    vector = scratch.vector
    for w in range(u.shape[0]):  # captured-vector key: the rows the child leaves uncaptured
        vector[w] = u[w] & ~data.caps[s, w]
    # With a limit on the number of rules, prefixes of different lengths are not interchangeable (a longer one
    # leaves less room), so the length is part of the key.
    return hash_words(vector, np.uint64(depth + 2 if cfg.max_length < NO_LENGTH_LIMIT else 1))


@numba.njit(cache=True)
def same_captured(data, cfg, stored, vector, size, members):
    """Return True if the set of antecedents ``stored`` (a key row) leaves uncaptured exactly ``vector``
    (and, under a limit on the number of rules, has ``size`` members)."""
    count = 0
    for w in range(stored.shape[0]):
        word = stored[w]
        for k in range(4):
            a = (word >> np.uint64(16 * k)) & np.uint64(0xFFFF)
            if a == 0xFFFF:
                break
            members[count] = np.int32(a)
            count += 1
    if cfg.max_length < NO_LENGTH_LIMIT and count != size:
        return False
    for w in range(vector.shape[0]):
        v = data.full[w]
        for k in range(count):
            v &= ~data.caps[members[k], w]
        if v != vector[w]:
            return False
    return True


@numba.njit(cache=True)
def find_captured(data, cfg, pmap, h, vector, size, members):
    """``pm.find`` for the captured-vector map: ``(slot, entry)`` of the stored set leaving ``vector``."""
    mask = pmap.index.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while pmap.index[i] != pm.EMPTY:
        if pmap.index_hash[i] == h:
            e = pmap.index[i]
            if same_captured(data, cfg, pmap.keys[e], vector, size, members):
                return i, e
        i = (i + 1) & mask
    return i, pm.EMPTY


@numba.njit(cache=True)
def parent_hash_of(data, cfg, scratch, depth):
    """Sort the popped prefix into ``scratch.sorted_prefix`` (both maps key by it); return its set's hash."""
    h = np.uint64(0)
    if cfg.map_kind == NO_MAP:
        return h
    out = scratch.sorted_prefix
    for k in range(depth):
        a = scratch.prefix[k]
        h ^= data.zobrist[a]
        j = k
        while j > 0 and out[j - 1] > a:  # insertion sort: prefixes are short
            out[j] = out[j - 1]
            j -= 1
        out[j] = a
    return h


@numba.njit(cache=True)
def insert_child(
    data,
    cfg,
    trie,
    heap,
    pmap,
    counters,
    queued,
    scratch,
    node,
    depth,
    s,
    errors,
    bound,
    minority,
    label,
    objective,
    captured,
    parent_hash,
):
    """Add an unpruned child to the map, trie and queue, unless the map holds a better ordering."""
    slot, entry = 0, pm.EMPTY
    h = np.uint64(0)
    if cfg.map_kind != NO_MAP:
        h = child_key(data, cfg, scratch, scratch.u, s, depth, parent_hash)
        if cfg.map_kind == PERMUTATION_MAP:
            slot, entry = pm.find(pmap, h, scratch.key)
        else:
            slot, entry = find_captured(data, cfg, pmap, h, scratch.vector, depth + 1, scratch.members)
        if entry != pm.EMPTY:
            if bound >= pmap.bound[entry]:
                counters[PRUNE_MAP] += 1  # Corollary 16 (Theorem 15): a better ordering is known
                return
            old, old_generation = pmap.node[entry], pmap.generation[entry]
            if is_live(trie, np.int64(old), np.int64(old_generation)):  # int64: one compiled is_live
                trie.flags[old] |= REPLACED  # its whole subtree is dead from now on
                counters[REPLACEMENTS] += 1
    child = add_node(trie, node, s, depth + 1, errors, minority, label)
    generation = trie.generation[child]
    if cfg.map_kind != NO_MAP:
        if entry == pm.EMPTY:
            pm.insert(pmap, slot, h, scratch.key, child, generation, bound, minority)
        else:
            pm.update(pmap, np.int64(entry), np.int64(child), np.int64(generation), bound, np.int64(minority))
    push(
        heap,
        policy_key(cfg.policy, depth + 1, bound, minority * data.scale, objective, captured),
        child,
        generation,
        bound + minority * data.scale,
        depth + 1,
    )
    queued[depth + 1] += 1
    counters[INSERTIONS] += 1


@numba.njit(cache=True)
def expand(data, cfg, trie, heap, pmap, best_prefix, best_labels, counters, queued, scratch, node, depth):
    """Evaluate every child of ``node`` (Algorithm 5); return True if the incumbent improved."""
    m, n, scale, lam = data.caps.shape[0], data.n, data.scale, data.lam
    u = scratch.u
    n_u = weighted_count(u, data.total)
    n_uy = weighted_count(u, data.positive)
    n_uz = weighted_count(u, data.minority)
    parent_errors = trie.errors[node]
    parent_hash = parent_hash_of(data, cfg, scratch, depth)
    prunes = cfg.use_hierarchical or cfg.use_lookahead or cfg.use_equivalent_points
    best = counters[BEST]
    improved = False
    # tallies kept in registers, added to the counters at the end
    support = accurate = evaluated = hierarchical = lookahead = length = 0
    for s in range(m):
        if scratch.in_prefix[s]:
            continue
        nv, nw, nz = captured_counts(data, u, s)
        if cfg.use_minimum_support and nv * scale < lam:
            support += 1  # Theorem 10: captures fewer than λN rows
            continue
        label = 1 if 2 * nw >= nv else 0
        correct = nw if label == 1 else nv - nw
        if cfg.use_accurate_support and correct * scale < lam:
            accurate += 1  # Theorem 11: classifies fewer than λN rows correctly
            continue
        evaluated += 1
        errors = parent_errors + nv - correct
        bound = errors * scale + (depth + 1) * lam  # eq. (30)
        if cfg.use_hierarchical and bound >= best:
            hierarchical += 1  # Theorem 1: b(child) ≥ R^c
            continue
        n_f, n_g = n_u - nv, n_uy - nw
        objective = bound + min(n_g, n_f - n_g) * scale  # eq. (32)
        if objective < best:
            default = data.majority if n_f == 0 else (1 if 2 * n_g >= n_f else 0)
            record_incumbent(
                trie, node, depth, s, label, default, objective, scratch, best_prefix, best_labels, counters
            )
            best = objective
            improved = True
        minority = n_uz - nz  # eq. (28): b0(child) = |f ∩ z| / N
        if prunes and bound_key(data, cfg, bound, minority) >= best:
            lookahead += 1  # Lemma 2 + Theorem 20: b + b0 + λ ≥ R^c, no child can win
            continue
        if cfg.use_length and (depth + 1 >= m or (lam > 0 and bound + lam > best)):
            length += 1  # Theorem 6: no longer prefix can beat R^c
            continue
        if depth + 1 >= cfg.max_length:
            continue  # its children would break the user's limit on the number of rules
        insert_child(
            data,
            cfg,
            trie,
            heap,
            pmap,
            counters,
            queued,
            scratch,
            node,
            depth,
            s,
            errors,
            bound,
            minority,
            label,
            objective,
            n - n_f,
            parent_hash,
        )
    for k in range(depth):
        scratch.in_prefix[scratch.prefix[k]] = 0
    counters[EVALS] += m - depth
    counters[PRUNE_SUPPORT] += support
    counters[PRUNE_ACCURATE] += accurate
    counters[LB_EVALS] += evaluated
    counters[PRUNE_HIERARCHICAL] += hierarchical
    counters[PRUNE_LOOKAHEAD] += lookahead
    counters[PRUNE_LENGTH] += length
    if evaluated:
        counters[MAX_DEPTH] = max(counters[MAX_DEPTH], depth + 1)
    return improved


@numba.njit(cache=True)
def has_room(data, cfg, trie, heap, pmap):
    """Return True if one more expansion fits in every structure."""
    need = data.caps.shape[0] + 1
    if room(trie) < need or heap.entries.shape[0] - heap.counts[SIZE] < need:
        return False
    if cfg.map_kind != NO_MAP and heap.counts[SIZE] > 0 and top_depth(heap) + 1 > 4 * pmap.keys.shape[1]:
        return False  # the next children's keys would not fit: widen the keys
    return cfg.map_kind == NO_MAP or pm.room(pmap) >= need


@numba.njit(cache=True)
def step(data, cfg, trie, heap, pmap, best_prefix, best_labels, counters, queued, scratch, budget):
    """Expand queued prefixes until ``budget`` children were evaluated; return BUDGET, DONE or MAINTAIN.

    ``queued[k]`` counts the stored, unexpanded prefixes of length ``k`` (the
    logical queue by length).
    """
    m = data.caps.shape[0]
    start = counters[EVALS]
    while heap.counts[SIZE] > 0:
        if counters[EVALS] - start >= budget:
            return BUDGET
        if not has_room(data, cfg, trie, heap, pmap):
            return MAINTAIN
        node, generation = pop(heap)
        counters[POPS] += 1
        if not is_live(trie, np.int64(node), np.int64(generation)):
            counters[STALE_POPS] += 1
            continue
        depth, dead = uncaptured(data, trie, node, scratch)
        queued[depth] -= 1
        bound = trie.errors[node] * data.scale + depth * data.lam
        if dead or not children_viable(data, cfg, counters[BEST], bound, trie.minority[node], depth, m):
            for k in range(depth):
                scratch.in_prefix[scratch.prefix[k]] = 0
            counters[DEAD_POPS] += 1
            if node != ROOT:
                remove_and_prune_up(trie, node)
            continue
        counters[EXPANSIONS] += 1
        improved = expand(data, cfg, trie, heap, pmap, best_prefix, best_labels, counters, queued, scratch, node, depth)
        if trie.n_children[node] == 0 and node != ROOT:
            remove_and_prune_up(trie, node)
        else:
            trie.flags[node] |= EXPANDED
        counters[MAX_QUEUE] = max(counters[MAX_QUEUE], heap.counts[SIZE])
        counters[MAX_TRIE] = max(counters[MAX_TRIE], trie.counts[0])
        if improved and cfg.use_gc:
            garbage_collect(data, cfg, trie, counters, queued, scratch.prefix)
    return DONE


@numba.njit(cache=True)
def _mark_dead(data, cfg, trie, best, stack):
    """Flag DEAD every stored node that fails the pruning test or lies under a replaced node.

    Each node is decided once (flag CHECKED), from its parent's verdict.
    """
    prune = cfg.use_hierarchical or cfg.use_lookahead or cfg.use_equivalent_points
    for i in range(1, trie.counts[NEXT_UNUSED]):
        if not trie.flags[i] & IN_USE:
            continue
        k, j = 0, i
        while j != ROOT and not trie.flags[j] & CHECKED:
            stack[k] = j
            k += 1
            j = trie.parent[j]
        dead = j != ROOT and (trie.flags[j] & DEAD) != 0
        while k > 0:
            k -= 1
            j = stack[k]
            bound = trie.errors[j] * data.scale + trie.depth[j] * data.lam
            dead = (
                dead
                or (trie.flags[j] & REPLACED) != 0
                or (prune and bound_key(data, cfg, bound, trie.minority[j]) >= best)
            )
            trie.flags[j] |= CHECKED | DEAD if dead else CHECKED


@numba.njit(cache=True)
def garbage_collect(data, cfg, trie, counters, queued, stack):
    """Free every node that can no longer lead to a better rule list (paper §5.5).

    The pruning key only grows along a path (``b`` gains at least λ per rule
    and ``b + b0`` never falls), so a failing node's whole subtree fails too
    and is freed in the same pass. Then expanded nodes left childless are
    freed. Queue entries of freed nodes stay until popped (they are
    recognised as stale by their generation).
    """
    _mark_dead(data, cfg, trie, counters[BEST], stack)
    top = trie.counts[NEXT_UNUSED]
    for i in range(1, top):
        if trie.flags[i] & DEAD:
            p = trie.parent[i]
            if not trie.flags[p] & DEAD:
                trie.n_children[p] -= 1
    for i in range(1, top):
        if trie.flags[i] & DEAD:
            if not trie.flags[i] & EXPANDED:
                queued[trie.depth[i]] -= 1
            release(trie, i)
        else:
            trie.flags[i] &= ~CHECKED
    for i in range(1, top):
        f = trie.flags[i]
        if (f & IN_USE) and (f & EXPANDED) and trie.n_children[i] == 0:
            remove_and_prune_up(trie, i)
    counters[GC_RUNS] += 1


@numba.njit(cache=True)
def set_aside(data, trie, heap, queued, threshold):
    """Drop every queued prefix whose ``b + b0`` is ``threshold`` or more, and the stale entries; free their
    nodes (and ancestors left childless). Return ``min(b + b0 + λ)`` over the dropped live prefixes (the
    floor they leave on the lower bound: every rule list they lead to costs at least that), ``-1`` if none.

    The search goes on with the better half of its queue when its structures reach their memory budget; a
    dropped prefix is never extended, so the run proves optimality only if its incumbent ends below the floor.
    """
    e = heap.entries
    size = heap.counts[SIZE]
    floor = np.int64(-1)
    kept = 0
    for i in range(size):
        node, generation = e[i, NODE] >> 32, e[i, NODE] & np.int64(0xFFFFFFFF)
        live = is_live(trie, np.int64(node), np.int64(generation))
        if live and e[i, BOUND] < threshold:
            for c in range(4):
                e[kept, c] = e[i, c]
            kept += 1
            continue
        if live:
            key = e[i, BOUND] + data.lam
            floor = key if floor < 0 else min(floor, key)
            queued[e[i, ORDER] & np.int64(0xFFFF)] -= 1
            remove_and_prune_up(trie, np.int64(node))
    heap.counts[SIZE] = kept
    heapify(heap)
    return floor
