"""A problem's predicates without a dict per threshold: a numeric column's cuts stay one array.

A table of a million rows of measurements has about a million exact thresholds; as predicate dicts
(``solver.predicates``) they took seconds to build and hundreds of MB to hold, while a search reads them as
ranks (``solver.data.ordered``) and a model keeps only the few it splits on. ``FeatureList`` is the sequence
of a problem's predicates kept as blocks: plain predicates, or ``Thresholds`` (a column and its ascending
cuts), whose predicate ``column ≤ cut`` is made when it is read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from solver import predicates


class Thresholds(NamedTuple):
    """The predicates ``column ≤ cut`` of ascending ``cuts`` (array of float64)."""

    column: str
    cuts: np.ndarray


class FeatureList(Sequence):
    """The predicates of binary features, in order; equal to the list of them (``==``)."""

    def __init__(self, items=()):
        self._blocks, self._starts, self._size = [], [], 0
        self.extend(items)

    def __len__(self):
        return self._size

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[j] for j in range(*index.indices(self._size))]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("feature index out of range")
        b = bisect_right(self._starts, index) - 1
        block, k = self._blocks[b], index - self._starts[b]
        if isinstance(block, Thresholds):
            return predicates.threshold(block.column, block.cuts[k])
        return block[k]

    def __iter__(self):
        for block in self._blocks:
            if isinstance(block, Thresholds):
                for cut in block.cuts.tolist():
                    yield predicates.threshold(block.column, cut)
            else:
                yield from block

    def __eq__(self, other):
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(other) == len(self) and list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return f"FeatureList({len(self)} predicates in {len(self._blocks)} blocks)"

    def append(self, p):
        """Add one predicate (a dict)."""
        if self._blocks and isinstance(self._blocks[-1], list):
            self._blocks[-1].append(p)
        else:
            self._starts.append(self._size)
            self._blocks.append([p])
        self._size += 1

    def add_thresholds(self, column, cuts):
        """Add the predicates ``column ≤ cut`` of ascending ``cuts``."""
        cuts = np.ascontiguousarray(cuts, dtype=np.float64)
        if len(cuts):
            self._starts.append(self._size)
            self._blocks.append(Thresholds(column, cuts))
            self._size += len(cuts)

    def extend(self, items):
        """Add predicates: another ``FeatureList`` (its blocks kept) or any iterable of dicts."""
        if isinstance(items, FeatureList):
            for block in items._blocks:
                if isinstance(block, Thresholds):
                    self.add_thresholds(block.column, block.cuts)
                else:
                    for p in block:
                        self.append(p)
            return
        for p in items:
            self.append(p)

    def cuts(self, start, stop):
        """Return the thresholds of features ``start … stop - 1`` when they are one column's cuts, else None."""
        b = bisect_right(self._starts, start) - 1
        if b < 0:
            return None
        block, k = self._blocks[b], start - self._starts[b]
        if isinstance(block, Thresholds) and k + (stop - start) <= len(block.cuts):
            return block.cuts[k : k + (stop - start)]
        return None
