# Check packed bitsets and the equivalent-points reduction against plain numpy.
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from solver import bitset
from solver.data.points import equivalent_points

bools = st.integers(0, 300).flatmap(lambda n: arrays(bool, n))


@settings(max_examples=200, deadline=None)
@given(bools)
def test_packing_is_lossless(v):
    bits = bitset.pack(v)
    assert bits.dtype == np.uint64 and len(bits) == bitset.n_words(len(v))
    assert (bitset.unpack(bits, len(v)) == v).all()
    assert bitset.count(bits) == v.sum()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 200).flatmap(lambda n: st.tuples(arrays(bool, n), arrays(bool, n))))
def test_set_operations_match_numpy(pair):
    a, b = pair
    A, B = bitset.pack(a), bitset.pack(b)
    out = np.empty_like(A)
    assert bitset.count_and(A, B) == (a & b).sum()
    assert bitset.and_into(out, A, B) == (a & b).sum() and (bitset.unpack(out, len(a)) == (a & b)).all()
    assert bitset.andnot_into(out, A, B) == (a & ~b).sum() and (bitset.unpack(out, len(a)) == (a & ~b)).all()
    weights = np.arange(len(a), dtype=np.float64) + 0.5
    assert bitset.weighted_sum(A, weights) == weights[a].sum()
    idx = np.empty(len(a), dtype=np.int64)
    k = bitset.items(A, idx)
    assert idx[:k].tolist() == np.flatnonzero(a).tolist()


def test_pack_columns_packs_one_feature_per_row():
    X = np.random.default_rng(0).integers(0, 2, size=(130, 5)).astype(np.uint8)
    packed = bitset.pack_columns(X)
    assert packed.shape == (5, 3)
    for j in range(5):
        assert (bitset.unpack(packed[j], 130) == X[:, j].astype(bool)).all()


def test_popcount_and_lowest_bit_of_edge_words():
    assert bitset.popcount(np.uint64(2**64 - 1)) == 64
    assert bitset.popcount(np.uint64(0)) == 0
    assert bitset.lowest_bit(np.uint64(2**63)) == 63


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), st.integers(0, 5), st.integers(0, 10**6))
def test_equivalent_points_preserve_class_weights(n, m, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    y = rng.integers(0, 3, size=n)
    w = rng.random(n)
    pts = equivalent_points(X, y, 3, w)
    assert np.allclose(pts.class_weight.sum(axis=0), [w[y == k].sum() for k in range(3)])
    assert (pts.X[pts.point_of_row] == X).all()
    assert len({tuple(r) for r in pts.X.tolist()}) == pts.n_points
    assert pts.rows.sum() == n
