"""CORELS as a search object for ``solver.driver``: begin (``make_search``), step, end (``best_model``).

The state lives in arrays (``Trie``, ``Heap``, ``PMap``, counters); ``step``
calls the numba kernel and, when a structure is full, grows it and calls
again. See ``solver/corels/kernels.py`` for the algorithm.
"""

from __future__ import annotations

import time

import numpy as np

from solver import memory
from solver.bitset import count as bitset_count
from solver.corels import kernels as K
from solver.corels import pmap as pm
from solver.corels.objective import exact_regularization, log10_remaining, make_data, rule_list_errors, to_float
from solver.corels.queue import BOUND, POLICIES, SIZE, grow_heap, lowest_bound, make_heap, policy_key, push, top_depth
from solver.corels.trie import N_NODES, NONE, add_node, grow_trie, make_trie, room, trie_bytes
from solver.data.mining import mine_problem
from solver.models import RuleList

INITIAL_NODES = 1 << 10
# Both maps key a prefix by its sorted antecedents, four uint16s a word: room for 8, widened when a longer
# prefix is queued.
KEY_WORDS = 2
MAX_ANTECEDENTS = 0xFFFF - 1  # an antecedent's number fits a key's uint16 (0xFFFF pads)
MAX_HISTORY = 400
# Refresh the queue summary (a pass over the queue for the lower bound) at
# most this share of the search time.
SUMMARY_SHARE = 0.05
STEP_SECONDS = 0.1  # aim of one kernel call (the driver's TARGET_STEP_SECONDS)
RATE_MIN_SECONDS = 0.005  # a kernel call this long or longer measures the evaluation rate
MIN_CAP = 1024  # evaluations a call may always make
INDEX_PIECE = 1 << 18  # map entries indexed per step while the map grows (about 0.1 s)
MB = 1 << 20


def make_search(problem, config):
    """Return the search over ``problem``'s antecedents; their mining (tens of seconds on thousands of
    thresholds) and the search's set-up run in the background, keeping time limits and cancels meanwhile.
    Until then the run holds the empty rule list (the majority label) and the floor 0.
    """
    from solver.background import DeferredSearch

    _reject_weights(problem)
    errors, labels, default, counts = rule_list_errors(None, problem.y, np.zeros(0, dtype=np.int64))
    empty = RuleList(
        antecedents=np.zeros(0, dtype=np.int64),
        predictions=labels,
        default=default,
        counts=counts,
        features=problem.features,
        classes=problem.classes,
    )
    return DeferredSearch(
        lambda: CorelsSearch(problem, config),
        empty,
        errors / problem.n_samples,
        initial_budget=CorelsSearch.initial_budget,
        progress_keys=("queue_size", "trie_size", "pmap_size"),
    )


def antecedent_problem(problem, config):
    """Return the problem whose binary columns are the antecedents: mined, or the file's own columns."""
    if config["antecedents"] == "given":
        return problem
    return mine_problem(problem, config["min_support"], config["max_clauses"], config["negations"])


def kernel_config(config):
    """Return the kernels' ``Config`` for the registry's parameter values."""
    if config["use_captured_vector_map"]:
        map_kind = K.CAPTURED_MAP
    elif config["use_permutation_map"]:
        map_kind = K.PERMUTATION_MAP
    else:
        map_kind = K.NO_MAP
    return K.Config(
        policy=POLICIES.index(config["policy"]),
        max_length=int(config["max_length"]) if config["max_length"] is not None else 1 << 30,
        use_hierarchical=bool(config["use_hierarchical_bound"]),
        use_lookahead=bool(config["use_lookahead_bound"]),
        use_length=bool(config["use_length_bound"]),
        use_minimum_support=bool(config["use_minimum_support_bound"]),
        use_accurate_support=bool(config["use_accurate_support_bound"]),
        use_equivalent_points=bool(config["use_equivalent_points_bound"]),
        map_kind=map_kind,
        use_gc=bool(config["use_garbage_collection"]),
    )


def _reject_weights(problem):
    from solver.api import ProblemError

    w = problem.sample_weight
    if w is not None and len(w) and not np.all(w == w[0]):
        raise ProblemError("CORELS counts rows and takes no row weights; remove the weight column.")


class CorelsSearch:
    """Branch-and-bound over rule lists; see the driver protocol in ``solver/driver.py``."""

    initial_budget = 2048

    def __init__(self, problem, config):
        _reject_weights(problem)
        self.config = config
        self.cfg = kernel_config(config)
        self.problem = antecedent_problem(problem, config)
        y, A = self.problem.y, self.problem.X
        lam = config["regularization"]
        keep = np.arange(A.shape[1])
        if self.cfg.use_minimum_support and lam > 0:
            # Theorem 10 before the search: an antecedent true on fewer than λN
            # rows can capture no more in any context, so no optimal list uses it.
            lam_num, scale = exact_regularization(lam, len(y))
            keep = np.flatnonzero(A.sum(axis=0, dtype=np.int64) * scale >= lam_num * len(y))
        if self.cfg.map_kind != K.NO_MAP and len(keep) > MAX_ANTECEDENTS:
            from solver.api import ProblemError

            raise ProblemError(
                f"CORELS's symmetry-aware map takes at most {MAX_ANTECEDENTS:,} antecedents and this search has "
                f"{len(keep):,}: raise the minimum support, choose fewer features, or turn both maps off."
            )
        self.columns = keep
        # (no copy when every antecedent is kept: on 1,000,000 rows x 320 antecedents it is 305 MB)
        self.A = np.ascontiguousarray(A if len(keep) == A.shape[1] else A[:, keep])
        self.data = make_data(self.A, y, lam)
        self._started = time.perf_counter()
        self._allocate()
        self._summary_seconds = 0.0
        self._last_summary = -np.inf
        self._history = {"elapsed": [], "counts": [], "log10_remaining": []}
        self._best_seen = (int(self.counters[K.BEST]), 0.0)
        self._finished = False
        self._cap = 1 << 62
        self._growing = None
        # The trie, queue and map stay within ``queue_memory`` (and half of what the process may still take):
        # past it the search sets aside the queued prefixes with the worst bounds (``_set_aside``).
        self._budget = _queue_budget(config)
        self._floor = None  # least b + b0 + λ of the prefixes set aside (scaled), None while none was
        self._set_aside_prefixes = 0
        self._summarize(force=True)

    # ---------------------------------------------------------------- begin

    def _allocate(self):
        data, m = self.data, self.data.caps.shape[0]
        w = data.caps.shape[1]
        key_words = KEY_WORDS
        self.trie = make_trie(max(INITIAL_NODES, 2 * (m + 2)))
        self.heap = make_heap(max(INITIAL_NODES, 2 * (m + 2)))
        uses_map = self.cfg.map_kind != K.NO_MAP
        self.pmap = pm.make_pmap(
            _pow2(max(INITIAL_NODES, 4 * (m + 2))) if uses_map else 1, key_words if uses_map else 1
        )
        self.scratch = K.Scratch(
            np.zeros(m + 1, dtype=np.int32),
            np.zeros(m + 1, dtype=np.int32),
            np.zeros(m, dtype=np.uint8),
            np.zeros(w, dtype=np.uint64),
            np.zeros(self.pmap.keys.shape[1], dtype=np.uint64),
            np.zeros(w, dtype=np.uint64),
            np.zeros(m + 1, dtype=np.int32),
        )
        self.best_prefix = np.zeros(m + 1, dtype=np.int32)
        self.best_labels = np.zeros(m + 1, dtype=np.uint8)
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.queued = np.zeros(m + 2, dtype=np.int64)
        ones = int(np.count_nonzero(self.problem.y == 1))
        errors = min(ones, data.n - ones)
        self.counters[K.BEST] = errors * data.scale
        self.counters[K.BEST_DEFAULT] = data.majority
        minority = int(K.weighted_count(data.full, data.minority))
        root = add_node(self.trie, NONE, NONE, 0, 0, minority, data.majority)
        key = policy_key(self.cfg.policy, 0, 0, minority * data.scale, errors * data.scale, 0)
        push(self.heap, key, root, self.trie.generation[root], minority * data.scale, 0)
        self.queued[0] = 1
        self.counters[K.INSERTIONS] = 1

    # ---------------------------------------------------------------- step

    def step(self, budget):
        if self._finished:
            return True
        if self._growing is not None:  # a map being indexed, a piece a step (seconds at millions of entries)
            self._index_piece()
            return False
        # Steps that stop early to grow a structure look cheap to the driver, whose budget then grows
        # fourfold a step: cap it by this search's own rate, so one kernel call stays near STEP_SECONDS
        # (uncapped, a call of 10^8 evaluations took 2.6 s).
        evals, t0 = int(self.counters[K.EVALS]), time.perf_counter()
        code = K.step(
            self.data,
            self.cfg,
            self.trie,
            self.heap,
            self.pmap,
            self.best_prefix,
            self.best_labels,
            self.counters,
            self.queued,
            self.scratch,
            min(budget, self._cap),
        )
        seconds, done = time.perf_counter() - t0, int(self.counters[K.EVALS]) - evals
        if seconds >= RATE_MIN_SECONDS and done > 0:
            self._cap = max(MIN_CAP, int(done / seconds * STEP_SECONDS))
        if code == K.MAINTAIN:
            # Growing a structure can take seconds at millions of entries; the
            # driver gets control back after each growth to check its limits.
            self._maintain()
        self._note_incumbent()
        if code == K.DONE:
            self._finished = True
        self._summarize(force=self._finished)
        return self._finished

    def _maintain(self):
        m = self.data.caps.shape[0]
        if self._growth_passes_budget(m + 1):
            self._set_aside()
        if room(self.trie) < m + 1:
            self.trie = grow_trie(self.trie, 2 * len(self.trie.parent))
        if len(self.heap.entries) - self.heap.counts[SIZE] < m + 1:
            self.heap = grow_heap(self.heap, 2 * len(self.heap.entries))
        if self.cfg.map_kind != K.NO_MAP and pm.room(self.pmap) < m + 1:
            self._make_map_room(m + 1)
        if self.cfg.map_kind != K.NO_MAP and self.heap.counts[SIZE]:
            words = (int(top_depth(self.heap)) + 1 + 3) // 4
            if words > self.pmap.keys.shape[1]:
                self.pmap = pm.widened(self.pmap, words)
                self.scratch = self.scratch._replace(key=np.zeros(words, dtype=np.uint64))

    def _make_map_room(self, need):
        """Drop map entries that can no longer prune; grow the map if that frees too little."""
        cfg, data = self.cfg, self.data
        prunes = cfg.use_hierarchical or cfg.use_lookahead or cfg.use_equivalent_points
        if prunes:
            extra = data.lam if cfg.use_lookahead else 0
            pm.compact(self.pmap, data.scale, extra, cfg.use_equivalent_points, int(self.counters[K.BEST]))
            self.counters[K.MAP_COMPACTIONS] += 1
        capacity = len(self.pmap.node)
        if 4 * (self.pmap.counts[0] + need) > 3 * capacity:
            if self._structure_bytes() + pm.pmap_bytes(self.pmap) > self._budget:
                # Over its budget the map forgets instead of growing: an entry only prunes a worse ordering
                # of what it holds, so without it that ordering is searched again; nothing else changes.
                pm.forget(self.pmap, 0 if 4 * need > capacity else capacity // 4)
                return
            # The grown map is indexed in pieces over the next steps (``_index_piece``); the search waits.
            self._growing = (pm.unindexed_copy(self.pmap, 2 * capacity), 0)

    def _structure_bytes(self):
        return trie_bytes(self.trie) + self.heap.entries.nbytes + pm.pmap_bytes(self.pmap)

    def _growth_passes_budget(self, need):
        """Return True if growing the trie or the queue, short of room, would pass the memory budget."""
        extra = 0
        if room(self.trie) < need:
            extra += trie_bytes(self.trie)
        if len(self.heap.entries) - self.heap.counts[SIZE] < need:
            extra += self.heap.entries.nbytes
        return extra > 0 and self._structure_bytes() + extra > self._budget

    def _set_aside(self):
        """Drop the worse half of the queue by ``b + b0`` (all of it when every bound ties) and free its nodes;
        their least bound stays a floor under the run's lower bound (``K.set_aside``)."""
        size = int(self.heap.counts[SIZE])
        if size == 0:
            return
        bounds = self.heap.entries[:size, BOUND]
        threshold = np.partition(bounds, size // 2)[size // 2]
        if not np.any(bounds < threshold):
            threshold = bounds.min() + 1 if np.any(bounds > bounds.min()) else bounds.min()
        before = int(self.queued.sum())
        floor = int(K.set_aside(self.data, self.trie, self.heap, self.queued, threshold))
        self._set_aside_prefixes += before - int(self.queued.sum())
        if floor >= 0:
            self._floor = floor if self._floor is None else min(self._floor, floor)

    def _index_piece(self):
        grown, start = self._growing
        stop = min(int(grown.counts[0]), start + INDEX_PIECE)
        pm.index_range(grown, start, stop)
        self._growing = (grown, stop)
        if stop == grown.counts[0]:
            self.pmap, self._growing = grown, None
            self._maintain()  # what else the kernel asked for (widened keys) now applies to the grown map

    def _note_incumbent(self):
        best = int(self.counters[K.BEST])
        if best != self._best_seen[0]:
            self._best_seen = (best, time.perf_counter() - self._started)

    def _summarize(self, force=False):
        """Refresh the lower bound (a pass over the queue) and record the queue's lengths.

        The bound is ``min(R^c, min over queued prefixes of b + b0 + λ)``: every
        rule list not yet evaluated extends a queued prefix strictly (Lemma 2
        with Theorem 20, true whatever the switches of the search). Entries of
        prefixes freed since only lower it, so it stays valid, and it never
        decreases (children are queued with keys above their parent's).
        """
        now = time.perf_counter()
        if not force and (now - self._last_summary) * SUMMARY_SHARE < self._summary_seconds:
            return
        best = int(self.counters[K.BEST])
        m, lam = self.data.caps.shape[0], self.data.lam
        room = np.zeros((m + 2, min(m, best // lam if lam else m) + 1), dtype=np.int64)
        low = lowest_bound(self.heap, lam, best, m, room)
        self._lower = best if self._finished else int(low)
        if self._floor is not None:
            self._lower = min(self._lower, self._floor)
        self._live = int(self.queued.sum())
        self._max_live = max(getattr(self, "_max_live", 0), self._live)
        self._record_history(self.queued, None if self._finished else log10_remaining(room, m))
        self._last_summary = time.perf_counter()
        self._summary_seconds = self._last_summary - now

    def _record_history(self, histogram, remaining):
        used = np.flatnonzero(histogram)
        counts = histogram[: used[-1] + 1].tolist() if len(used) else []
        h = self._history
        h["elapsed"].append(round(time.perf_counter() - self._started, 6))
        h["counts"].append(counts)
        h["log10_remaining"].append(None if remaining is None else round(remaining, 3))
        if len(h["elapsed"]) > MAX_HISTORY:  # keep the first and last, thin the middle
            n = len(h["elapsed"])
            keep = list(range(0, n - 1, 2)) + [n - 1]
            for key in h:
                h[key] = [h[key][i] for i in keep]

    # ---------------------------------------------------------------- what the driver reads

    @property
    def finished_status(self):
        """``optimal``, unless prefixes set aside for memory may still lead to a better list."""
        if self._floor is not None and self._floor < int(self.counters[K.BEST]):
            return "memory_limit"
        return "optimal"

    @property
    def lower_bound(self):
        return to_float(self._lower, self.data)

    @property
    def upper_bound(self):
        return to_float(int(self.counters[K.BEST]), self.data)

    @property
    def nodes(self):
        return int(self.counters[K.EVALS])

    def progress(self):
        return {
            "queue_size": self._live,
            "trie_size": int(self.trie.counts[N_NODES]),
            "pmap_size": int(self.pmap.counts[0]) if self.cfg.map_kind != K.NO_MAP else 0,
        }

    def state_bytes(self):
        arrays = [
            *self.trie,
            self.heap.entries,
            self.heap.counts,
            *self.pmap,
            *self.scratch,
            self.best_prefix,
            self.best_labels,
            self.counters,
            self.queued,
            self.A,
            *self.data[:6],
        ]
        return int(sum(a.nbytes for a in arrays))

    # ---------------------------------------------------------------- end

    def best_antecedents(self):
        """Return the best rule list's antecedents as column indices of ``self.problem``."""
        return self.columns[self.best_prefix[: int(self.counters[K.BEST_LEN])]]

    def best_model(self):
        prefix = self.best_antecedents()
        _, labels, default, counts = rule_list_errors(self.problem.X, self.problem.y, prefix)
        return RuleList(
            antecedents=prefix,
            predictions=labels,
            default=default,
            counts=counts,
            features=self.problem.features,
            classes=self.problem.classes,
        )

    def stats(self):
        names = K.COUNTER_NAMES
        out = {names[i]: int(self.counters[i]) for i in range(len(names)) if names[i] not in ("best", "best_default")}
        out.update(
            antecedents=int(self.data.caps.shape[0]),
            max_queue_size=self._max_live,
            time_to_optimum_seconds=self._best_seen[1],
            regularization_fraction=f"{self.data.lam // self.data.n}/{self.data.scale}",
            equivalent_points_share=int(K.weighted_count(self.data.full, self.data.minority)) / self.data.n,
            classes=int(self.data.full.size and bitset_count(self.data.full)),
            queue_memory_budget_bytes=int(self._budget),
            set_aside_prefixes=self._set_aside_prefixes,
        )
        return out

    def extras(self):
        out = {"queue_by_length": self._history, "antecedent_notes": list(self.problem.notes[-1:])}
        if self._set_aside_prefixes:
            floor = to_float(self._floor, self.data)
            out["set_aside"] = {
                "prefixes": self._set_aside_prefixes,
                "floor": floor,
                "budget_bytes": int(self._budget),
                "note": (
                    f"The prefixes waiting to be extended filled their {self._budget / MB:,.0f} MB of queue memory, "
                    f"so the search set aside {self._set_aside_prefixes:,} of them (those with the worst lower "
                    f"bounds, {floor:.6f} and above) and went on; the lower bound stays at or under theirs. Raise "
                    "Queue memory (or the memory limit) to search them too."
                ),
            }
        return out


def _queue_budget(config):
    """Return the bytes the trie, queue and map may take: ``queue_memory`` MB, and at most half of what the
    process may still allocate (its hard limit, the machine's free memory), leaving room to grow into."""
    budget = None if config.get("queue_memory") is None else int(config["queue_memory"] * MB)
    allowance = memory.allowance()
    if allowance is not None:
        budget = allowance // 2 if budget is None else min(budget, allowance // 2)
    return budget if budget is not None else 1 << 62


def _pow2(x):
    p = 1
    while p < x:
        p *= 2
    return p


def warmup():
    """Compile (or load from numba's cache) every kernel by solving a tiny problem."""
    from solver.problem import Problem
    from solver.registry import get

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 4)).astype(np.uint8)
    y = rng.integers(0, 2, size=40)
    problem = Problem(X=X, features=[{"kind": "binary", "column": f"x{j}"} for j in range(4)], y=y, classes=["0", "1"])
    base = get("corels").clean({"regularization": 0.01, "antecedents": "given"})
    for extra in ({}, {"use_captured_vector_map": True}):
        search = CorelsSearch(problem, {**base, **extra})
        search._make_map_room(len(search.pmap.node))  # compaction and growth of the map
        pm.forget(search.pmap, len(search.pmap.node))  # what the map does past its memory budget
        search.step(1)  # one expansion queues the root's children ...
        search._set_aside()  # ... which the queue sets aside past its budget
        while not search.step(1 << 20):
            pass
        search.best_model()
