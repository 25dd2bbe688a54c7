"""λ in the terms analysts think in: "at most L leaves" and "at least k rows per leaf".

Both conversions come from the papers' bounds, so they are guarantees about
the *optimal* model, not rules of thumb:

* at most L leaves (or L rules + default): an optimal model has
  ``λ·H ≤ R* ≤ R(one leaf) = ℓ₀ + λ``, so ``H ≤ ℓ₀/λ + 1`` (OSDT Theorem C.1,
  CORELS Theorem 4/Corollary 5, GOSDT Theorem B.4). ``λ = ℓ₀ / (L − 1)``
  therefore guarantees ``H ≤ L``.
* at least k rows: with ``λ = k/N``, every rule of an optimal rule list
  captures at least k rows (CORELS Theorem 10), and in an optimal tree any
  two sibling leaves together hold at least 2k rows (OSDT Theorem 3.3).

``ℓ₀`` is the loss of the one-leaf model: the minority share for accuracy,
½ for balanced accuracy, and 1 (a valid upper bound for every loss here) when
it depends on more than the class counts.
"""

from __future__ import annotations

MODES = ("lambda", "max_leaves", "min_rows")


def root_loss(class_counts, objective="accuracy"):
    """Return ℓ₀, the loss of predicting one class for every row (an upper bound when not exact)."""
    total = sum(class_counts)
    if objective == "accuracy" and total > 0:
        return 1.0 - max(class_counts) / total
    if objective == "balanced_accuracy":
        return 0.5
    return 1.0


def regularization_for(mode, target, n_rows, loss0):
    """Return ``(λ, explanation)`` for "at most ``target`` leaves" or "at least ``target`` rows".

    Raises
    ------
    ValueError
        With a plain sentence when the target cannot be met.
    """
    if mode == "max_leaves":
        if target < 2:
            raise ValueError("At most 1 leaf is a single prediction; ask for at least 2 leaves.")
        lam = loss0 / (target - 1)
        return lam, (f"λ = ℓ₀ / (L − 1) = {loss0:.6g} / {target - 1} = {lam:.6g}: an optimal model then has at most "
                     f"{target} leaves (λ·H ≤ R* ≤ ℓ₀ + λ); often far fewer.")
    if mode == "min_rows":
        if not 1 <= target <= n_rows:
            raise ValueError(f"At least {target} rows per leaf is impossible with {n_rows} rows.")
        lam = target / n_rows
        return lam, (f"λ = k / N = {target} / {n_rows} = {lam:.6g}: every rule of an optimal rule list captures at "
                     f"least {target} rows, and any two sibling leaves of an optimal tree hold at least "
                     f"{2 * target} rows together.")
    raise ValueError(f"unknown mode {mode!r}")
