# Check the pieces of CORELS: exact λ, minority rows, counting formulas, heap, map keys, and the stored trie.
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Limits
from solver.bitset import hash_words
from solver.corels import kernels as K
from solver.corels import pmap as pm
from solver.corels.objective import (
    exact_regularization,
    log10_remaining,
    make_data,
    minority_rows,
    naive_evaluations,
    rule_list_errors,
    symmetric_evaluations,
)
from solver.corels.queue import make_heap, pop, push
from solver.corels.search import CorelsSearch
from solver.corels.trie import IN_USE, REPLACED, ROOT, walk_prefix
from solver.driver import run
from solver.registry import get
from tests.solver.corels.test_datasets import load
from tests.solver.corels.test_exhaustive import WORKED_A, WORKED_Y, binary_problem


@pytest.mark.parametrize(
    "lam,expected",
    [(0.01, (1, 100)), (0.0025, (1, 400)), (0.0, (0, 1)), (1 / 6, (1, 6)), (0.5, (1, 2)), (1e-05, (1, 100000))],
)
def test_regularization_is_read_as_an_exact_fraction(lam, expected):
    assert exact_regularization(lam, 6489) == expected


def test_the_worked_example_has_one_minority_row():
    # Spec §7.1: rows 1, 3, 8 share the signature {a2} with labels 1, 0, 0; every other class is pure.
    z = minority_rows(WORKED_A.astype(np.uint8), WORKED_Y)
    assert np.flatnonzero(z).tolist() == [1]


def test_a_tied_class_marks_its_label_one_rows():
    A = np.array([[1], [1], [0], [0]], dtype=np.uint8)
    assert minority_rows(A, np.array([1, 0, 0, 0])).tolist() == [True, False, False, False]


def test_the_counting_bounds_match_the_paper():
    # Spec §7.3.12 (Proposition 8, Theorem 17, Table 6).
    assert naive_evaluations(100, length=5) == pytest.approx(9.130e9, rel=1e-3)
    assert float(symmetric_evaluations(100, length=5)) == pytest.approx(3.926e8, rel=1e-3)
    assert naive_evaluations(1000, length=10) == pytest.approx(9.568e29, rel=1e-3)
    assert float(symmetric_evaluations(1000, length=10)) == pytest.approx(2.658e24, rel=1e-3)
    assert naive_evaluations(122, length=5) == pytest.approx(2.509e10, rel=1e-3)
    assert naive_evaluations(122, length=10) == pytest.approx(5.046e20, rel=1e-3)
    assert naive_evaluations(122, lam=0.1) == naive_evaluations(122, length=5)


def test_the_remaining_space_of_a_fresh_search_is_proposition_eight():
    # Theorem 7 for the root alone, allowed 3 more rules, is Proposition 8 with K = 3.
    room = np.zeros((12, 11), dtype=np.int64)
    room[0, 3] = 1
    assert 10 ** log10_remaining(room, 10) == pytest.approx(naive_evaluations(10, length=3), rel=1e-9)
    room[2, 1] = 5  # plus five prefixes of length 2 that may grow by one rule: 5 · (1 + 8)
    expected = naive_evaluations(10, length=3) + 45
    assert 10 ** log10_remaining(room, 10) == pytest.approx(expected, rel=1e-9)
    assert log10_remaining(np.zeros((3, 3), dtype=np.int64), 10) is None


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.5, 1e300, float("inf")]), min_size=1, max_size=60))
def test_the_heap_pops_by_key_then_first_in(keys):
    heap = make_heap(len(keys))
    for i, key in enumerate(keys):
        push(heap, key, i, 7, 0, 3)
    popped = []
    for _ in keys:
        node, generation = pop(heap)
        assert generation == 7
        popped.append(node)
    assert popped == sorted(range(len(keys)), key=lambda i: (keys[i], i))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sets(st.integers(0, 300), min_size=1, max_size=7), min_size=1, max_size=80))
def test_the_map_finds_exactly_the_sets_it_holds(sets):
    zobrist = np.random.default_rng(0).integers(0, 2**63, size=301).astype(np.uint64)
    pmap = pm.make_pmap(4, 2)
    key = np.zeros(2, dtype=np.uint64)
    seen = {}
    for n, members in enumerate(sets):
        ordered = sorted(members)
        K.set_key(key, np.array(ordered[:-1], dtype=np.int32), len(ordered) - 1, ordered[-1])
        h = np.bitwise_xor.reduce(zobrist[ordered])
        slot, entry = pm.find(pmap, h, key)
        assert (entry != pm.EMPTY) == (frozenset(members) in seen)
        if entry == pm.EMPTY:
            if pm.room(pmap) < 1:
                pmap = pm.resized(pmap, 2 * len(pmap.node))
                slot, _ = pm.find(pmap, h, key)
            pm.insert(pmap, slot, h, key, n, 0, n, 0)
            seen[frozenset(members)] = n
        else:
            assert pmap.bound[entry] == seen[frozenset(members)]
    kept = pm.compact(pmap, 1, 0, False, len(sets) // 2)  # keep entries with bound < len/2
    assert kept == sum(1 for v in seen.values() if v < len(sets) // 2)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.lists(st.sets(st.integers(0, 7), min_size=1, max_size=4), min_size=1, max_size=40),
    st.booleans(),
)
def test_the_captured_vector_map_finds_exactly_the_captured_rows_it_holds(seed, sets, length_matters):
    # The map stores a prefix's antecedent set under the hash of the rows it leaves uncaptured; a lookup must
    # find an entry exactly when some stored set leaves the same rows (and, under a rule limit, has the same
    # length), though the sets differ: {a, b} leaves what {a} leaves when b's rows are a subset of a's.
    rng = np.random.default_rng(seed)
    A = (rng.random((90, 8)) < 0.3).astype(np.uint8)
    A[:, 7] = A[:, 0] & A[:, 1]  # rows captured by antecedent 7 are captured by 0 already
    data = make_data(A, rng.integers(0, 2, size=90), 0.01)
    cfg = K.Config(0, 5 if length_matters else K.NO_LENGTH_LIMIT, True, True, True, True, True, True, 2, True)
    pmap = pm.make_pmap(4, 2)
    key, vector, members = np.zeros(2, dtype=np.uint64), np.zeros(len(data.full), np.uint64), np.zeros(9, np.int32)
    seen = {}
    for n, chosen in enumerate(sets):
        ordered = sorted(chosen)
        K.set_key(key, np.array(ordered[:-1], dtype=np.int32), len(ordered) - 1, ordered[-1])
        vector[:] = data.full & ~np.bitwise_or.reduce(data.caps[ordered], axis=0)
        identity = (vector.tobytes(), len(ordered) if length_matters else 0)
        h = np.uint64(hash_words(vector, np.uint64(len(ordered) + 1 if length_matters else 1)))
        slot, entry = K.find_captured(data, cfg, pmap, h, vector, len(ordered), members)
        assert (entry != pm.EMPTY) == (identity in seen)
        if entry == pm.EMPTY:
            if pm.room(pmap) < 1:
                pmap = pm.resized(pmap, 2 * len(pmap.node))
                slot, _ = K.find_captured(data, cfg, pmap, h, vector, len(ordered), members)
            pm.insert(pmap, slot, h, key, n, 0, n, 0)
            seen[identity] = n
        else:
            assert pmap.bound[entry] == seen[identity]


# Check the captured-vector map's entries stay a few words long on many rows: each stores its prefix's
# antecedents, not the rows it leaves uncaptured (on flights, 327,346 rows in 103,000 classes, a stored vector
# was 13 KB and the map reached 800 MB in 12 s of a 60 s run).
def test_the_captured_vector_map_stays_small_on_many_rows():
    rng = np.random.default_rng(3)
    A = (rng.random((60_000, 18)) < 0.5).astype(np.uint8)
    y = (A[:, 0] ^ (rng.random(60_000) < 0.3)).astype(np.int64)
    search = CorelsSearch(binary_problem(A, y), get("corels").clean({"regularization": 0.001, "antecedents": "given"}))
    assert search.cfg.map_kind == K.CAPTURED_MAP and search.data.caps.shape[1] > 800  # 53,700 classes: 839 words
    for _ in range(20):
        if search.step(20_000):
            break
    assert search.pmap.counts[0] > 1000
    assert search.pmap.keys.shape[1] <= 4
    assert pm.pmap_bytes(search.pmap) <= 100 * len(search.pmap.node)


def test_a_set_key_does_not_depend_on_the_order():
    keys = set()
    for order in itertools.permutations([5, 70, 3, 200]):
        key = np.zeros(2, dtype=np.uint64)
        prefix = np.array(sorted(order[:-1]), dtype=np.int32)
        K.set_key(key, prefix, 3, order[-1])
        keys.add(tuple(key.tolist()))
    assert len(keys) == 1


def partial_search(params, node_limit=60_000):
    problem = load("compas-corels-rules.csv")
    search = CorelsSearch(problem, get("corels").clean({"antecedents": "given", **params}))
    run(search, Limits(node_limit=node_limit))
    return search


@pytest.mark.parametrize("policy", ["lower_bound", "bfs"])
def test_stored_prefixes_equal_their_values_from_scratch(policy):
    # Spec §7.3.2-3: incremental errors and b0 of every stored prefix equal a direct recomputation,
    # b grows by at least λ per rule, b0 never grows; no two live prefixes hold the same antecedent set.
    search = partial_search({"regularization": 0.005, "policy": policy}, node_limit=20_000)
    trie, A, y, z = search.trie, search.A, search.problem.y, minority_rows(search.A, search.problem.y)
    prefix = np.zeros(A.shape[1] + 1, dtype=np.int32)
    live_sets = set()
    checked = 0
    for i in range(1, int(trie.counts[1])):
        if not trie.flags[i] & IN_USE or checked >= 1500:
            continue
        depth, dead = walk_prefix(trie, i, prefix)
        rules = prefix[:depth].tolist()
        captured = A[:, rules].any(axis=1)
        errors, _, _, counts = rule_list_errors(A, y, rules)
        default_errors = counts[-1].sum() - counts[-1].max()
        assert trie.errors[i] == errors - default_errors
        assert trie.minority[i] == np.count_nonzero(z & ~captured)
        parent = trie.parent[i]
        assert trie.errors[i] >= trie.errors[parent] and trie.minority[i] <= trie.minority[parent]
        bound = trie.errors[i] * search.data.scale + depth * search.data.lam
        failing = K.bound_key(search.data, search.cfg, bound, trie.minority[i]) >= search.counters[K.BEST]
        if not dead and not failing:
            assert frozenset(rules) not in live_sets
            live_sets.add(frozenset(rules))
        checked += 1
    assert checked >= 1000


def test_the_lower_bound_of_a_stopped_search_is_below_the_optimum():
    search = partial_search({"regularization": 0.01}, node_limit=200_000)
    optimum = (2258 * 100 + 2 * 6489) / (100 * 6489)  # scaled exactly as the search does
    assert search.lower_bound <= optimum <= search.upper_bound
    assert search.trie.flags[ROOT] & IN_USE and not search.trie.flags[ROOT] & REPLACED


def test_edge_cases_return_certified_lists():
    # Spec §7.4: all labels equal, no antecedents, conflicting duplicates, λ ≥ 1/2.
    same = run_to_end(binary_problem(WORKED_A, np.zeros(12, dtype=int)), 0.01)
    assert same.upper_bound == 0 and same.best_antecedents().size == 0
    empty = run_to_end(binary_problem(np.zeros((12, 0)), WORKED_Y), 0.01)
    assert empty.upper_bound == pytest.approx(4 / 12) and empty.lower_bound == empty.upper_bound
    conflict = binary_problem([[1], [1], [0], [0]], [1, 0, 0, 0])
    for lam in (0.0, 0.1):
        s = run_to_end(conflict, lam)
        assert s.upper_bound == pytest.approx(0.25)
    big = run_to_end(binary_problem(WORKED_A, WORKED_Y), 0.6)
    assert big.best_antecedents().size == 0 and big.upper_bound == pytest.approx(1 / 3)


def run_to_end(problem, lam):
    search = CorelsSearch(problem, get("corels").clean({"regularization": lam, "antecedents": "given"}))
    while not search.step(1 << 20):
        pass
    return search


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), lam=st.sampled_from([0.0, 0.01, 0.05, 0.1]))
def test_the_optimum_is_invariant_under_symmetries_of_the_data(seed, lam):
    # Spec §7.3.9: permuting rows or antecedents, duplicating rows, repeating an antecedent,
    # flipping the labels leave R* unchanged.
    rng = np.random.default_rng(seed)
    A = (rng.random((25, 5)) < 0.4).astype(np.uint8)
    y = rng.integers(0, 2, 25)
    best = Fraction(run_to_end(binary_problem(A, y), lam).upper_bound).limit_denominator(10**6)
    rows = rng.permutation(25)
    variants = [
        (A[rows], y[rows]),
        (A[:, rng.permutation(5)], y),
        (np.vstack([A, A]), np.concatenate([y, y])),
        (np.hstack([A, A[:, :1]]), y),
        (A, 1 - y),
    ]
    for X, labels in variants:
        other = run_to_end(binary_problem(X, labels), lam).upper_bound
        assert Fraction(other).limit_denominator(10**6) == best
