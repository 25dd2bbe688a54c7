"""An exhaustive enumerator of the Rashomon set with exact arithmetic (spec §7): the oracle of the tests."""

from __future__ import annotations

from fractions import Fraction


def all_trees(X, y, cost, rows, depth, trivial=True):
    """Return [(tree text, mistakes, leaves)] of every admissible tree on ``rows`` (``depth``: splits left, None: any).

    ``cost[i]`` is row i's integer cost; leaves predict the cheaper label, ties → 1.
    """
    w0 = sum(cost[i] for i in rows if y[i] == 0)
    w1 = sum(cost[i] for i in rows if y[i] == 1)
    label, m = (1, w0) if w1 >= w0 else (0, w1)
    out = [(str(label), m, 1, label)]
    if depth == 0:
        return [t[:3] for t in out]
    below = None if depth is None else depth - 1
    for j in range(len(X[0])):
        r0 = [i for i in rows if X[i][j] == 0]
        r1 = [i for i in rows if X[i][j] == 1]
        if not r0 or not r1:
            continue
        for a in _with_label(X, y, cost, r0, below, trivial):
            for b in _with_label(X, y, cost, r1, below, trivial):
                if trivial and a[2] == 1 and b[2] == 1 and a[3] == b[3]:
                    continue
                out.append((f"x{j + 1}?({a[0]}|{b[0]})", a[1] + b[1], a[2] + b[2], None))
    return [t[:3] for t in out]


def _with_label(X, y, cost, rows, depth, trivial):
    trees = all_trees(X, y, cost, rows, depth, trivial)
    out = []
    for text, m, h in trees:
        out.append((text, m, h, int(text) if h == 1 else None))
    return out


def rashomon(X, y, cost, scale, lam, theta, depth=None):
    """Return sorted [(objective, tree text)] of every tree with ``m/scale + lam·h ≤ theta`` (Fractions)."""
    trees = all_trees(X, y, cost, list(range(len(y))), depth)
    return sorted((Fraction(m, scale) + lam * h, text) for text, m, h in trees if Fraction(m, scale) + lam * h <= theta)


def optimum(X, y, cost, scale, lam, depth=None):
    trees = all_trees(X, y, cost, list(range(len(y))), depth)
    return min(Fraction(m, scale) + lam * h for _, m, h in trees)
