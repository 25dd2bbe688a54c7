"""GOSDT's dependency graph (the paper's "hash tree", §4.1–§4.2) and its two-level queue, as arrays.

A vertex is one subproblem, keyed by its support bitset over the equivalent
points (and the remaining depth, and a path tag that is 0 unless the leaf
permutation bound is switched off). A vertex can have several parents: every
split of every vertex that produces the same support points to the same
vertex, and that sharing is where DPB reuses work. Edges up (parents) are a
linked list per vertex; edges down are the vertex's list of splits in a flat
pool. Vertex ids are stable: growing copies rows in place.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solver import best_tree
from solver import bitset_table as table

EMPTY = -1
NO_SPLIT = best_tree.NO_SPLIT
# Vertex states: created (not queued), queued for exploration, expanded (its splits are known).
NEW, QUEUED, EXPANDED = 0, 1, 2


class Graph(NamedTuple):
    """Vertices (capacity ``C``), split pool (capacity ``P``) and parent edges (capacity ``E``).

    Attributes
    ----------
    keys : array of uint64, shape (C, W)
        Support bitset of each vertex over the equivalent points.
    depth : array of int64, shape (C,)
        Split levels still allowed (``UNLIMITED`` without a depth limit).
    tag : array of uint64, shape (C,)
        Path tag (0 unless subproblems are keyed by path: leaf permutation bound off).
    leaf, ep, lb, ub, lbs : array of float64, shape (C,)
        One-leaf objective, equivalent-points loss, bounds on the optimum, and a lower bound
        on the best subtree that is not a single leaf (``inf`` when none exists).
    state : array of int8, shape (C,)
        ``NEW``, ``QUEUED`` or ``EXPANDED``.
    in_high : array of bool, shape (C,)
        Whether the vertex waits in the high-priority (bound update) queue.
    best : array of int64, shape (C,)
        Position in ``split_*`` of the split behind ``ub`` (``NO_SPLIT``: ``ub`` is the leaf).
    split_start, split_count : array of int64, shape (C,)
        The vertex's splits in the pool (set on expansion).
    split_feature, split_left, split_right : array of int64, shape (P,)
    split_dist : array of float64, shape (P,)
        Similar-support distance to the previous split of the same vertex (Thm 4.1).
    first_edge : array of int64, shape (C,)
    edge_parent, edge_next : array of int64, shape (E,)
    slots : array of int64, shape (2C,)
        Open-addressing hash table of vertex ids.
    count : array of int64, shape (3,)
        Vertices, pool entries and edges in use.
    high, low : array of int64, shape (C,)
        The two queues as stacks: bound updates (signals to parents) and exploration.
    tops : array of int64, shape (2,)
        Sizes of ``high`` and ``low``.
    """

    keys: np.ndarray
    depth: np.ndarray
    tag: np.ndarray
    leaf: np.ndarray
    ep: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    lbs: np.ndarray
    state: np.ndarray
    in_high: np.ndarray
    best: np.ndarray
    split_start: np.ndarray
    split_count: np.ndarray
    split_feature: np.ndarray
    split_left: np.ndarray
    split_right: np.ndarray
    split_dist: np.ndarray
    first_edge: np.ndarray
    edge_parent: np.ndarray
    edge_next: np.ndarray
    slots: np.ndarray
    count: np.ndarray
    high: np.ndarray
    low: np.ndarray
    tops: np.ndarray

    def nbytes(self):
        return sum(a.nbytes for a in self)


VERTEX_FIELDS = (
    "keys",
    "depth",
    "tag",
    "leaf",
    "ep",
    "lb",
    "ub",
    "lbs",
    "state",
    "in_high",
    "best",
    "split_start",
    "split_count",
    "first_edge",
    "high",
    "low",
)
POOL_FIELDS = ("split_feature", "split_left", "split_right", "split_dist")
EDGE_FIELDS = ("edge_parent", "edge_next")


def make_graph(n_words, capacity, pool_capacity, edge_capacity):
    """Return an empty ``Graph`` (vertex capacity rounded up to a power of two)."""
    c = 1 << max(4, int(capacity - 1).bit_length())
    p, e = max(16, pool_capacity), max(16, edge_capacity)
    f, i = np.zeros, np.int64
    return Graph(
        keys=f((c, n_words), np.uint64),
        depth=f(c, i),
        tag=f(c, np.uint64),
        leaf=f(c),
        ep=f(c),
        lb=f(c),
        ub=f(c),
        lbs=f(c),
        state=f(c, np.int8),
        in_high=f(c, np.bool_),
        best=np.full(c, NO_SPLIT, i),
        split_start=f(c, i),
        split_count=f(c, i),
        split_feature=f(p, i),
        split_left=f(p, i),
        split_right=f(p, i),
        split_dist=f(p),
        first_edge=np.full(c, EMPTY, i),
        edge_parent=f(e, i),
        edge_next=f(e, i),
        slots=np.full(2 * c, EMPTY, i),
        count=f(3, i),
        high=f(c, i),
        low=f(c, i),
        tops=f(2, i),
    )


def grown(graph, vertices, pool, edges):
    """Return a copy of ``graph`` with room for at least the given numbers; ids are unchanged."""
    cap, pcap, ecap = graph.keys.shape[0], graph.split_feature.shape[0], graph.edge_parent.shape[0]
    while cap < vertices:
        cap *= 2
    while pcap < pool:
        pcap *= 2
    while ecap < edges:
        ecap *= 2
    out = make_graph(graph.keys.shape[1], cap, pcap, ecap)
    n, used_pool, used_edges = (int(x) for x in graph.count)
    for name in VERTEX_FIELDS:
        getattr(out, name)[:n] = getattr(graph, name)[:n]
    for name in POOL_FIELDS:
        getattr(out, name)[:used_pool] = getattr(graph, name)[:used_pool]
    for name in EDGE_FIELDS:
        getattr(out, name)[:used_edges] = getattr(graph, name)[:used_edges]
    out.count[:] = graph.count
    out.tops[:] = graph.tops
    _rehash(out)
    return out


@numba.njit(cache=True)
def find_slot(graph, bits, depth, tag):
    """Return the slot holding (bits, depth, tag), or the empty slot where it belongs (``solver.bitset_table``)."""
    return table.find_slot(graph.slots, graph.keys, graph.depth, graph.tag, bits, depth, tag)


@numba.njit(cache=True)
def insert_at(graph, slot, bits, depth, tag):
    """Store a new vertex in the empty ``slot``; return its id (its values are set by the caller)."""
    v = graph.count[0]
    graph.keys[v, :] = bits
    graph.depth[v] = depth
    graph.tag[v] = tag
    graph.slots[slot] = v
    graph.count[0] = v + 1
    return v


@numba.njit(cache=True)
def add_parent(graph, child, parent):
    """Record the edge ``parent → child`` (once per consecutive repeat)."""
    e = graph.first_edge[child]
    if e != EMPTY and graph.edge_parent[e] == parent:
        return
    k = graph.count[2]
    graph.edge_parent[k] = parent
    graph.edge_next[k] = e
    graph.first_edge[child] = k
    graph.count[2] = k + 1


@numba.njit(cache=True)
def push_high(graph, v):
    if not graph.in_high[v]:
        graph.in_high[v] = True
        graph.high[graph.tops[0]] = v
        graph.tops[0] += 1


@numba.njit(cache=True)
def push_low(graph, v):
    if graph.state[v] == NEW:
        graph.state[v] = QUEUED
        graph.low[graph.tops[1]] = v
        graph.tops[1] += 1


@numba.njit(cache=True)
def _rehash(graph):
    table.rehash(graph.slots, graph.keys, graph.depth, graph.tag, graph.count[0])
