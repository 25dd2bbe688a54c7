"""Packed bitsets: ``uint64`` words, bit ``i`` of word ``i // 64`` is item ``i``.

A set of ``n`` items takes ``n_words(n)`` words; bits past ``n`` are always 0,
so counts never need a tail mask. A binary matrix is packed one *feature* per
row: ``pack_columns(X)[j]`` is the set of rows where feature ``j`` is 1.

``popcount`` and ``lowest_bit`` compile to the CPU's ``popcnt`` and ``tzcnt``
through LLVM intrinsics.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

WORD = 64


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


def n_words(n):
    """Return the number of uint64 words that hold ``n`` bits."""
    return (n + WORD - 1) // WORD


@numba.njit(cache=True, inline="always")
def popcount(x):
    """Return the number of set bits of one uint64 word."""
    return np.int64(_ctpop(np.uint64(x)))


@numba.njit(cache=True, inline="always")
def lowest_bit(x):
    """Return the index of the lowest set bit of a non-zero uint64 word."""
    return np.int64(_cttz(np.uint64(x)))


@numba.njit(cache=True)
def count(a):
    """Return the number of set bits of bitset ``a``."""
    total = 0
    for w in range(a.shape[0]):
        total += popcount(a[w])
    return total


@numba.njit(cache=True)
def count_and(a, b):
    """Return ``|a ∩ b|`` without building it."""
    total = 0
    for w in range(a.shape[0]):
        total += popcount(a[w] & b[w])
    return total


@numba.njit(cache=True)
def and_into(out, a, b):
    """Write ``a ∩ b`` into ``out``; return its size."""
    total = 0
    for w in range(a.shape[0]):
        out[w] = a[w] & b[w]
        total += popcount(out[w])
    return total


@numba.njit(cache=True)
def andnot_into(out, a, b):
    """Write ``a \\ b`` into ``out``; return its size."""
    total = 0
    for w in range(a.shape[0]):
        out[w] = a[w] & ~b[w]
        total += popcount(out[w])
    return total


@numba.njit(cache=True)
def weighted_sum(a, weights):
    """Return the sum of ``weights[i]`` over the items ``i`` in ``a``."""
    total = 0.0
    for w in range(a.shape[0]):
        word = a[w]
        while word:
            total += weights[w * 64 + lowest_bit(word)]
            word &= word - np.uint64(1)
    return total


@numba.njit(cache=True)
def items(a, out):
    """Write the indices of the items in ``a`` into ``out`` (ascending); return how many."""
    k = 0
    for w in range(a.shape[0]):
        word = a[w]
        while word:
            out[k] = w * 64 + lowest_bit(word)
            k += 1
            word &= word - np.uint64(1)
    return k


def pack(v):
    """Pack a boolean vector, shape (n,), into a bitset, shape (n_words(n),)."""
    v = np.ascontiguousarray(v, dtype=bool)
    padded = np.zeros(n_words(len(v)) * WORD, dtype=bool)
    padded[: len(v)] = v
    return np.packbits(padded.reshape(-1, 8), axis=1, bitorder="little").reshape(-1).view(np.uint64).copy()


def pack_columns(X):
    """Pack each column of a 0/1 matrix, shape (n, m), into bitsets, shape (m, n_words(n))."""
    X = np.ascontiguousarray(X, dtype=bool)
    n, m = X.shape
    padded = np.zeros((m, n_words(n) * WORD), dtype=bool)
    padded[:, :n] = X.T
    return np.packbits(padded.reshape(m, -1, 8), axis=2, bitorder="little").reshape(m, -1).view(np.uint64).copy()


def unpack(bits, n):
    """Return the boolean vector, shape (n,), of bitset ``bits``."""
    raw = np.ascontiguousarray(bits, dtype=np.uint64).view(np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n].astype(bool)


def full(n):
    """Return the bitset of all ``n`` items."""
    return pack(np.ones(n, dtype=bool))


_MIX = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)
_SHIFT = np.uint64(31)


@numba.njit(cache=True)
def hash_words(bits, seed):
    """Return a 64-bit hash of a packed bitset, started from ``seed`` (uint64): keys of hash tables."""
    h = seed * _MIX
    for w in range(bits.shape[0]):
        h = (h ^ bits[w]) * _MIX2
        h ^= h >> _SHIFT
    return h


@numba.njit(cache=True)
def row_equals(keys, row, bits):
    """Return whether row ``row`` of the key matrix ``keys`` holds the bitset ``bits``."""
    for w in range(bits.shape[0]):
        if keys[row, w] != bits[w]:
            return False
    return True
