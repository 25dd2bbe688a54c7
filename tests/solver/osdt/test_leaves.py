# Check OSDT's leaf cache on the shared bitset table: one leaf per literal set, found in any clause order, ids kept on growth.
import numpy as np

from solver import bitset, bitset_table
from solver.osdt import leaves as lc
from solver.osdt.data import prepare
from solver.osdt.trees import literals
from tests.solver.osdt.helpers import problem

M = 70  # two words of features: the value bits of features 64.. sit in the key's last word


def make_cache(capacity=4, slots=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(60, M))
    prepared = prepare(problem(X, rng.integers(0, 2, size=60)))
    leaves = lc.make_leaves(capacity, bitset.n_words(M), slots)
    lc.add_root(leaves, prepared.data, bitset.full(prepared.n_points), prepared.total, 0.0, False)
    return X, prepared, leaves


def child(prepared, leaves, count, parent, f, v):
    """Return ``(id, created)`` of ``parent ∧ x_f = v`` (search feature ``f``), as the search makes it."""
    data, w = prepared.data, prepared.data.ones.shape[1]
    caps = np.zeros((1, w), np.uint64)
    lc.leaf_cap(data, leaves, parent, caps, 0)
    key, scratch = np.zeros(leaves.keys.shape[1], np.uint64), np.zeros(w, np.uint64)
    return lc.child_leaf(leaves, data, count, parent, caps, 0, f, v, key, scratch, prepared.total, 0.0, False)


def stored_at(leaves, i):
    """Return the id the shared table holds for leaf ``i``'s own key and depth."""
    slot = bitset_table.find_slot(
        leaves.slots, leaves.keys, leaves.depth, bitset_table.NO_TAGS, leaves.keys[i], leaves.depth[i], 0
    )
    return leaves.slots[slot]


def test_it_finds_a_leaf_by_its_literals_in_any_order():
    X, prepared, leaves = make_cache()
    assert child(prepared, leaves, 1, 0, 3, 1) == (1, True)
    assert child(prepared, leaves, 2, 1, 66, 0) == (2, True)
    assert child(prepared, leaves, 3, 0, 66, 0) == (3, True)
    assert child(prepared, leaves, 4, 3, 3, 1) == (2, False)  # x66 = 0 ∧ x3 = 1 is x3 = 1 ∧ x66 = 0
    assert literals(leaves, 2, M) == {3: 1, 66: 0} and leaves.depth[2] == 2
    order = prepared.order
    rows = (X[:, order[3]] == 1) & (X[:, order[66]] == 0)
    assert leaves.pos[2] + leaves.neg[2] == rows.sum()
    assert [stored_at(leaves, i) for i in range(4)] == [0, 1, 2, 3]


def test_it_keeps_every_id_when_it_grows():
    _, prepared, leaves = make_cache()
    for count, (parent, f, v) in enumerate([(0, 0, 0), (0, 65, 1), (1, 65, 1)], start=1):
        assert child(prepared, leaves, count, parent, f, v) == (count, True)
    leaves = lc.grow_leaves(leaves, 4, 16, 32)
    assert leaves.keys.shape == (16, 4) and leaves.slots.shape == (32,)
    assert [stored_at(leaves, i) for i in range(4)] == [0, 1, 2, 3]
    assert child(prepared, leaves, 4, 2, 0, 0) == (3, False)
    assert child(prepared, leaves, 4, 3, 69, 1) == (4, True)
    assert literals(leaves, 4, M) == {0: 0, 65: 1, 69: 1}
