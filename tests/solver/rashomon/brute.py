"""An exhaustive enumerator of the Rashomon set with exact arithmetic (spec §7): the oracle of the tests."""

from __future__ import annotations

from fractions import Fraction


def all_trees(X, y, cost, rows, depth, trivial=True, any_label=False, k=2):
    """Return [(tree text, mistakes, leaves)] of every admissible tree on ``rows`` (``depth``: splits left, None: any).

    ``cost[i]`` is row i's cost; leaves predict the cheapest label, ties → the higher class, or with
    ``any_label`` each of the ``k`` labels (one tree each).
    """
    w = [sum((cost[i] for i in rows if y[i] == c), 0) for c in range(k)]
    total = sum(w)
    if any_label:
        out = [(str(c), total - w[c], 1, c) for c in range(k)]
    else:
        label = max(range(k), key=lambda c: (w[c], c))
        out = [(str(label), total - w[label], 1, label)]
    if depth == 0:
        return [t[:3] for t in out]
    below = None if depth is None else depth - 1
    for j in range(len(X[0])):
        r0 = [i for i in rows if X[i][j] == 0]
        r1 = [i for i in rows if X[i][j] == 1]
        if not r0 or not r1:
            continue
        for a in _with_label(X, y, cost, r0, below, trivial, any_label, k):
            for b in _with_label(X, y, cost, r1, below, trivial, any_label, k):
                if trivial and a[2] == 1 and b[2] == 1 and a[3] == b[3]:
                    continue
                out.append((f"x{j + 1}?({a[0]}|{b[0]})", a[1] + b[1], a[2] + b[2], None))
    return [t[:3] for t in out]


def _with_label(X, y, cost, rows, depth, trivial, any_label=False, k=2):
    trees = all_trees(X, y, cost, rows, depth, trivial, any_label, k)
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
