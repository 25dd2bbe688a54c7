"""The subproblem cache of the STreeD recursion (spec §3.5) and its archive for the similarity bound (§3.3).

An entry is ``(front or None, lower-bound set, the bound below which the front is complete)``: a
front found under an upper bound ``ub`` holds every solution with first component below ``ub``,
and "nothing below ``ub``" is kept as a lower bound (§3.3 sources 1–2). Entries are keyed by the
path's decisions (branch caching) and/or by the row set (dataset caching; with test costs, plus
the attributes measured on the path).
"""

from __future__ import annotations

import numpy as np

from solver.streed.depth_two import sorted_difference
from solver.streed.front import INF


class SubproblemCache:
    """Solved subproblems of one task, and the last two solved row sets per budget (the similarity archive).

    Parameters
    ----------
    task : Task
    use_branch, use_dataset : bool
        The two keys (``use_branch_caching``, ``use_dataset_caching``).
    use_similarity : bool
        Whether to keep the archive and answer ``similarity`` (sound only when the caller allows it).
    """

    def __init__(self, task, use_branch, use_dataset, use_similarity):
        self.task = task
        self.p = task.p
        self.scalar = self.p == 1
        self.use_branch, self.use_dataset, self.use_sim = use_branch, use_dataset, use_similarity
        self.worst = task.worst if use_similarity else None
        self.worst_first = np.ascontiguousarray(self.worst[:, 0]) if use_similarity else None
        self.branch_cache, self.dataset_cache, self.archive = {}, {}, {}

    def __len__(self):
        return len(self.dataset_cache) + len(self.branch_cache)

    def keys(self, ids, path, d, n):
        """Return the (table, key) pairs of subproblem (ids, d, n) reached by ``path``."""
        keys = []
        if self.use_branch:
            keys.append((self.branch_cache, (frozenset(path), d, n)))
        if self.use_dataset:
            context = self.task.test_cost.context(f for f, _ in path) if self.task.test_cost is not None else None
            keys.append((self.dataset_cache, (ids.tobytes(), context, d, n)))
        return keys

    def lookup(self, keys):
        for table, key in keys:
            entry = table.get(key)
            if entry is not None:
                return entry
        return None

    def store(self, keys, front, ub):
        """Store ``front`` (None: nothing) found under upper bound ``ub``."""
        entry = self.entry(front, ub)
        for table, key in keys:
            table[key] = entry

    def entry(self, front, ub):
        """Return a cache entry: (front or None, lower-bound set, the bound below which the front is complete).

        A front found under ``ub`` holds every solution with first component
        below ``ub``; the others are covered by the point (ub, 0, …) (§3.3
        sources 1–2). A scalar optimum found under any ``ub`` is complete.
        """
        floor = np.zeros((1, self.p))
        floor[0, 0] = ub
        if front is None:
            return None, floor, -INF
        if self.scalar:
            return front, front.values, INF
        if ub == INF:
            return front, front.values, INF
        return front, np.vstack([front.values, floor]), ub

    def similarity(self, ids, d, n):
        """Similarity lower bound (Eq. 45 with erratum 9): subtract the worst case of every removed row."""
        best = None
        for cached_ids, values in self.archive.get((d, n), ()):
            removed = sorted_difference(cached_ids, ids)
            if 2 * len(removed) > len(ids):
                continue  # the ref-impl's cut-off: too different to help
            if self.scalar:
                bound = np.array([[max(values[0, 0] - self.worst_first[removed].sum(), 0.0)]])
                if best is None or bound[0, 0] > best[0, 0]:
                    best = bound
                continue
            bound = np.maximum(values - self.worst[removed].sum(axis=0), 0.0)
            if best is None:  # fronts: the first that applies
                best = bound
        return best

    def remember(self, ids, d, n, values):
        """Archive the solved values of (ids, d, n) for the similarity bound (the last two per budget)."""
        if self.use_sim:
            entries = self.archive.setdefault((d, n), [])
            entries.append((ids, values))
            if len(entries) > 2:
                entries.pop(0)
