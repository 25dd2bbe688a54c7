"""Terminal solvers: subproblems the STreeD recursion hands to one numba call instead of branching (spec §3.6).

Which ones serve a task is decided once, from its flags (``terminal_solvers``):

* depth ≤ 2, every task: ``DepthTwo``, the pair-count solver (``solver.streed.depth_two``; F1's
  fronts by ``solver.streed.f1_fronts``);
* depth 3, one component without constraints or test costs (accuracy, policy): ``DepthThree``;
  F1 without test costs: ``DepthThreeF1``;
* a depth-four root of small data, one-hot scalar tasks: ``DepthFourRoot``; F1: ``DepthFourF1``.

Each has ``fits(ids, root)`` (small enough for one call: the anytime contract) and the generator
``steps(ids, path, n, ub, root)``, whose value is the node's front (None or empty: nothing below ``ub``).
The depth-two solver works over ranges of root features on many features, yielding between them; the
others are one kernel call each (``OneCall``).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from solver.driver import in_pieces
from solver.streed import bitcount, depth_two, f1_fronts, fronts
from solver.streed.front import INF, Front, Trees, below, caps_below, count_nodes, decode, depth_three_tree

ROOT_KERNEL_CELLS = 100_000  # rows × features up to which a depth-four root runs in one kernel call
# Worst-case work of one kernel call (pair updates, a word of 64 rows each) up to which the depth-three and
# depth-four kernels run in one call; beyond it the recursion yields between splits (the anytime contract).
KERNEL_WORK_MAX = 3e8
# Root features × features up to which a depth-two solve runs in one kernel call; beyond it, in pieces of
# root features (``solver.driver.in_pieces``: thousands of thresholds take seconds).
ONE_CALL_PAIRS = 2.5e5
F1_LEAVES = np.array(
    [[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]]
)  # label 0 → (positives, 0), 1 → (0, negatives)


def kernel_work(depth, m, n):
    """Return the worst-case work of solving a depth-``depth`` node of ``n`` rows over ``m`` features in one call.

    A depth-two solve counts every feature pair over the rows' 64-bit words; each level above tries every
    feature as its split.
    """
    return float(m) ** depth * max(1, (n + 63) // 64)


def is_f1(task, labels):
    """Whether the task is F1's (FN, FP) over two classes, which has kernels of its own (``f1_fronts``)."""
    return labels is not None and task.L.shape == (2, 2, 2) and np.array_equal(task.L, F1_LEAVES)


def terminal_solvers(solver):
    """Return {depth budget: terminal solver} for the recursion ``solver`` (a ``recursion.Solver``)."""
    if not solver.use_d2:
        return {}
    task = solver.task
    # One component, no constraint, free branching (no test costs): depth-three nodes go to one kernel.
    simple = solver.scalar and task.test_cost is None and not np.isfinite(task.caps).any()
    f1 = is_f1(task, solver.labels) and task.test_cost is None
    two = DepthTwo(solver)
    out = {1: two, 2: two}
    if simple:
        out[3] = DepthThree(solver)
        if solver.labels is not None:
            out[4] = DepthFourRoot(solver)
    elif f1:
        children = F1Children(solver)
        out[3], out[4] = DepthThreeF1(solver, children), DepthFourF1(solver, children)
    return out


def _over_features(q, run):
    """Generator: ``run(lo, hi)`` over the root features ``[0, q)``, in one call or, on many features, in pieces."""
    if q * q <= ONE_CALL_PAIRS:
        run(0, q)
        return
    yield from in_pieces(q, run, first=ONE_CALL_PAIRS / q)


class OneCall:
    """A terminal solver whose ``solve`` is one bounded kernel call: ``steps`` runs it and yields once."""

    def steps(self, ids, path, n, ub, root):
        result = self.solve(ids, path, n, ub, root)
        yield
        return result


def _fits_one_call(depth, X, ids):
    return kernel_work(depth, X.shape[1], len(ids)) <= KERNEL_WORK_MAX


def _fits_root(X, ids, root):
    return root and len(ids) * X.shape[1] <= ROOT_KERNEL_CELLS and _fits_one_call(4, X, ids)


class DepthTwo:
    """Depth ≤ 2 with the pair-count solver; caches budgets (1,1), (2,2), (2,3) together (§3.5).

    Counts cover every feature (those on the path are constant here, so the solver never splits
    on them; ``counts.PairCounts``). At the root of a task that reports its feasible point with
    the fewest errors (root relaxation, as in the recursion's ``_branch``) only that tree per root
    feature is kept (``depth_two.solve_fewest_first``), and nothing is cached (the result is not
    the node's complete front).
    """

    def __init__(self, solver):
        self.solver = solver
        task = solver.task
        self.relaxed_root = task.root_scalar and solver.use_ub
        if is_f1(task, solver.labels) and task.test_cost is None:
            self._fronts = self._f1
        elif solver.scalar and not np.isfinite(task.caps).any():
            self._fronts = self._scalar
        else:
            self._fronts = self._general

    def fits(self, ids, root):
        return True

    def steps(self, ids, path, n, ub, root):
        s = self.solver
        task = s.task
        relax = root and self.relaxed_root
        s.counters["depth_two_calls"] += 1
        S, C, tot = yield from s.counts.steps(ids, path)
        free = np.arange(s.X.shape[1])
        if task.test_cost is not None:
            measured = [f for f, _ in path]
            costs = (task.test_cost.costs(measured, free), task.test_cost.child_costs(measured, free))
        else:
            costs = s.free_costs
        if relax:
            out = yield from self._fewest_first(S, C, tot, len(ids), ub, costs, n)
        else:
            out = yield from self._fronts(S, C, tot, len(ids), ub, costs, n)
        result = None
        for budget, (d, values, codes) in enumerate(((1, out[0], out[1]), (2, out[2], out[3]), (2, out[4], out[5])), 1):
            if budget > n:
                break
            front = Front(values, Trees.of(("codes", codes, free), len(codes)), depth_two._nodes(codes))
            if relax:
                front = front.take(fronts.pareto(front.values, front.nodes, task.caps))
            else:
                s.cache.store(s.cache.keys(ids, path, d, budget), front, INF if s.scalar else ub)
            result = front
        yield
        return result

    # Generators over the root features (``_over_features``); each value is ``depth_two.solve``'s six arrays.
    def _fewest_first(self, S, C, tot, N, ub, costs, n):
        s = self.solver
        L, caps = s.task.L, caps_below(s.task.caps, ub)
        values, codes, sizes = depth_two.fewest_first_start(L, tot, caps, S.shape[0], n)
        yield from _over_features(
            S.shape[0],
            lambda lo, hi: depth_two.fewest_first_range(
                L, S, C, tot, N, caps, *costs, s.min_leaf, n, lo, hi, values, codes, sizes
            ),
        )
        return depth_two.fewest_first_finish(values, codes, sizes)

    def _f1(self, S, C, tot, N, ub, costs, n):
        s = self.solver
        state = f1_fronts.f1_start(S, C, tot, N, caps_below(s.task.caps, ub), n)
        yield from _over_features(len(state[9]), lambda lo, hi: f1_fronts.f1_range(S, C, N, s.min_leaf, lo, hi, state))
        return f1_fronts.f1_finish(state, tot, n)

    def _scalar(self, S, C, tot, N, ub, costs, n):
        s = self.solver
        L = s.task.L
        values, codes = depth_two.scalar_start(L, tot)
        yield from _over_features(
            S.shape[0],
            lambda lo, hi: depth_two.scalar_range(L, S, C, tot, N, *costs, s.min_leaf, n, lo, hi, values, codes),
        )
        return tuple(x for t in range(3) for x in (values[t : t + 1, None], codes[t : t + 1]))

    def _general(self, S, C, tot, N, ub, costs, n):
        s = self.solver
        L, caps = s.task.L, caps_below(s.task.caps, ub)
        state = [depth_two.solve_start(L, tot, caps)]

        def run(lo, hi):
            state[0] = depth_two.solve_range(L, S, C, tot, N, caps, *costs, s.min_leaf, n, lo, hi, state[0])

        yield from _over_features(S.shape[0], run)
        return depth_two.solve_finish(state[0], caps, n)


class DepthThree(OneCall):
    """A depth-three node of a one-component task without constraints or test costs, in one kernel.

    The depth-two solver on both children of every split. The one-hot kernel
    (``bitcount.solve_depth_three_node``) takes the upper bound and the similarity lower bound
    (returns None when nothing is below ``ub``); the general one (``depth_two.solve_depth_three``)
    ignores both.
    """

    def __init__(self, solver):
        self.solver = solver
        self.worst = solver.cache.worst_first if solver.use_sim else np.zeros(solver.task.A.shape[0])
        self.no_rows, self.zero_bounds = np.empty(0, dtype=np.int64), np.zeros(solver.X.shape[1])
        self.split_bounds = {}  # budget -> (rows, lower bound per root split) of the last depth-three node

    def fits(self, ids, root):
        return _fits_one_call(3, self.solver.X, ids)

    def solve(self, ids, path, n, ub, root):
        s = self.solver
        s.counters["depth_three_calls"] += 1
        free = np.arange(s.X.shape[1])
        if s.labels is not None:
            # Only features that vary on these rows can ever split them (min leaf ≥ 1), and a feature equal
            # to an earlier one on these rows, or its complement, gives the same splits (children swapped)
            # with the same values, never strictly better: keeping the first of each keeps the order, hence
            # the same splits and ties, and shrinks every count. Splits are bounded from the last
            # depth-three node of this budget (Eq. 45, erratum 9), and carry bounds to the next.
            previous_ids, previous_bounds = self.split_bounds.get(n, (self.no_rows, self.zero_bounds))
            value, f, left, right, label, bounds = bitcount.solve_depth_three_node(
                s.X,
                ids,
                s.labels,
                s.task.L,
                s.min_leaf,
                n,
                ub if s.use_ub else INF,
                self.worst,
                s.use_sim,
                previous_ids,
                previous_bounds,
            )
            if s.use_sim:
                self.split_bounds[n] = (ids, bounds)
            if value == INF:
                return None
            free = None  # the codes name the original features
        else:
            value, f, left, right, label = depth_two.solve_depth_three(s.X, ids, s.task.A, s.task.L, s.min_leaf, n)
        tree = (int(label),) if f == depth_two.NONE else (int(f), decode(left, free), decode(right, free))
        return Front(np.array([[value]]), [tree], np.array([count_nodes(tree)], dtype=np.int64))


class DepthFourRoot(OneCall):
    """A depth-four root of a one-hot scalar task in one kernel (``bitcount.solve_depth_four_root``).

    The same splits, order, bounds and ties as the recursion's ``_branch`` over ``DepthThree``
    children, without the Python work per split (about 0.1 ms: most of a few-millisecond fit).
    One call, so only for small data (``ROOT_KERNEL_CELLS``): larger roots keep the recursion,
    which yields between splits.
    """

    def __init__(self, solver):
        self.solver = solver
        self.worst = solver.cache.worst_first if solver.use_sim else np.zeros(solver.task.A.shape[0])

    def fits(self, ids, root):
        return _fits_root(self.solver.X, ids, root)

    def solve(self, ids, path, n, ub, root):
        s = self.solver
        value, f, label, left, right, solved = bitcount.solve_depth_four_root(
            s.X, ids, s.labels, s.task.L, s.min_leaf, n, ub, self.worst, s.use_sim, s.use_ub
        )
        s.counters["depth_three_calls"] += solved
        if value == INF:
            return None
        if f == depth_two.NONE:
            tree = (int(label),)
        else:
            tree = (int(f), depth_three_tree(left), depth_three_tree(right))
        return Front(np.array([[value]]), [tree], np.array([count_nodes(tree)], dtype=np.int64))


class F1Children:
    """The branch cache of F1 depth-two fronts shared between the depth-three kernels of one search.

    Keyed inside the kernels by path decisions (``f1_fronts``); made on first use.
    """

    def __init__(self, solver):
        self.m = solver.X.shape[1]
        self.caching = solver.cache.use_dataset or solver.cache.use_branch
        self.index_store = None

    def below(self, path):
        """Return the cache for a kernel below ``path``: (base, index, store); base 0 means none."""
        base = 2 * self.m
        if not path or not self.caching or base ** (len(path) + 1) >= 2**62:
            # A root has no sibling to share with; or no caching asked for; or keys would not fit one integer.
            return (0,) + _no_f1_children()
        if self.index_store is None:
            self.index_store = _new_f1_children()
        return (base,) + self.index_store


def _new_f1_children():
    """Return an empty branch cache of F1 depth-two fronts for ``f1_fronts.solve_f1_depth_three``: (index, store)."""
    child = numba.types.Tuple((numba.float64[:, ::1], numba.int64[:, ::1], numba.int64[::1], numba.int64[::1]))
    return numba.typed.Dict.empty(numba.int64, numba.int64), numba.typed.List.empty_list(child)


@functools.cache
def _no_f1_children():
    # The (never written) cache passed when sharing is off: typed containers cost ~0.5 ms to make.
    return _new_f1_children()


class DepthThreeF1(OneCall):
    """An F1 node of depth budget 3 in one kernel (``f1_fronts.solve_f1_depth_three``): its complete front.

    The kernel skips no split by bounds, but it saves the recursion's Python work per
    child; measured on every shared file it is faster (hypothyroid depth 4: 1.3 s through
    the recursion, 0.83 s with the kernel). With caching on, the depth-two children's fronts
    go into a branch cache of the kernels' own (``F1Children``), keyed by path decisions.
    """

    def __init__(self, solver, children):
        self.solver, self.children = solver, children

    def fits(self, ids, root):
        return _fits_one_call(3, self.solver.X, ids)

    def solve(self, ids, path, n, ub, root):
        s = self.solver
        s.counters["depth_three_calls"] += 1
        bits, cls = bitcount.pack_rows(s.X, ids, s.labels, 2)
        codes = np.array(sorted(2 * f + side for f, side in path), dtype=np.int64)
        values, codes, nodes = f1_fronts.solve_f1_depth_three(
            bits, cls, bitcount.row_mask(len(ids)), n, s.min_leaf, codes, *self.children.below(path)
        )
        front = Front(values, Trees.of(("codes3", codes, None), len(codes)), nodes)
        return front if ub == INF else below(front, ub)


class DepthFourF1(OneCall):
    """An F1 root of depth budget 4 in one kernel (``f1_fronts.solve_f1_depth_four``): its complete front.

    Its depth-three children are the kernels of ``DepthThreeF1`` (sharing their depth-two
    children through the same branch cache) without the Python work per split (monk1: the
    recursion spent 5 of its 14 ms between kernels). One call, so only for small data
    (``ROOT_KERNEL_CELLS``), like the accuracy root.
    """

    def __init__(self, solver, children):
        self.solver, self.children = solver, children

    def fits(self, ids, root):
        return _fits_root(self.solver.X, ids, root)

    def solve(self, ids, path, n, ub, root):
        s = self.solver
        bits, cls = bitcount.pack_rows(s.X, ids, s.labels, 2)
        base, index, store = self.children.below(((0, 0),))  # the children's paths have one decision
        values, codes, nodes, solved = f1_fronts.solve_f1_depth_four(
            bits, cls, bitcount.row_mask(len(ids)), n, s.min_leaf, base, index, store
        )
        s.counters["depth_three_calls"] += solved
        front = Front(values, Trees.of(("codes4", codes, None), len(codes)), nodes)
        return front if ub == INF else below(front, ub)
