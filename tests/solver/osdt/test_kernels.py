# Check kernel plumbing: the replayed CPython feature order, and layout stamps against stale numba caches.
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.osdt.pyorder import candidate_order, scratch


@st.composite
def leaf_features(draw):
    m = draw(st.integers(1, 40))
    used = draw(st.lists(st.integers(0, m - 1), unique=True, max_size=m))
    rest = [f for f in range(m) if f not in used]
    dead = draw(st.lists(st.sampled_from(rest), unique=True, max_size=len(rest))) if rest else []
    return m, used, dead


@settings(max_examples=400, deadline=None)
@given(leaf_features())
def test_it_iterates_like_cpython(case):
    m, used, dead = case
    tables, metas = scratch(m)
    out = np.zeros(m, np.int64)
    k = candidate_order(m, np.array(used, np.int64), len(used), np.array(dead, np.int64), len(dead), tables, metas, out)
    expected = [f - 1 for f in set(range(1, m + 1)) - set(u + 1 for u in used) - set([d + 1 for d in dead])]
    assert out[:k].tolist() == expected


def test_a_wrapped_small_table_is_not_ascending():
    # {3, 9} in an 8-slot table: 9 lands in slot 1, before 3.
    m = 12
    tables, metas = scratch(m)
    out = np.zeros(m, np.int64)
    used = np.array([f - 1 for f in range(1, 13) if f not in (3, 9)], np.int64)
    k = candidate_order(m, used, len(used), np.zeros(0, np.int64), 0, tables, metas, out)
    assert (out[:k] + 1).tolist() == [9, 3] == list({3, 9} | set())


def test_kernel_modules_carry_the_current_state_layout():
    # numba caches kernels by their own file only; a changed layout in state.py must touch these files.
    from solver.osdt import bounds, expand, product, state

    for module in (bounds, expand, product):
        assert module.LAYOUT_STAMP == state.LAYOUT, f"update LAYOUT_STAMP in {module.__name__} to {state.LAYOUT}"
