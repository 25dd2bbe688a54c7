"""Brute force over every rule list, from the definition (spec §7.2): the oracle of the CORELS tests.

It knows no bound and no incremental formula: each ordered list of distinct
antecedents is scored from scratch (labels are the majority of what each rule
captures, ties predict 1), in exact integers.
"""

from itertools import permutations


def best_rule_list(A, y, lam_num, scale, max_length=None):
    """Return ``(best scaled objective, one optimal prefix)`` over all rule lists of distinct antecedents.

    Parameters
    ----------
    A : array of uint8, shape (n, m)
    y : array of int, shape (n,)
        Labels 0/1.
    lam_num, scale : int
        λ = lam_num / scale.
    max_length : int, optional
    """
    n, m = A.shape
    columns = [sum(1 << i for i in range(n) if A[i, j]) for j in range(m)]
    ones = sum(1 << i for i in range(n) if y[i] == 1)
    everything = (1 << n) - 1
    longest = m if max_length is None else min(m, max_length)
    best, best_prefix = None, None
    for k in range(longest + 1):
        for prefix in permutations(range(m), k):
            left, errors = everything, 0
            for j in prefix:
                caught = left & columns[j]
                pos = (caught & ones).bit_count()
                errors += min(pos, caught.bit_count() - pos)
                left &= ~caught
            pos = (left & ones).bit_count()
            errors += min(pos, left.bit_count() - pos)
            value = errors * scale + k * lam_num * n
            if best is None or value < best:
                best, best_prefix = value, prefix
    return best, best_prefix
