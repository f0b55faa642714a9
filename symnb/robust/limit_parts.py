"""The limit at +oo of a sum or product from the limits of its parts.

SymPy's ``limit`` of a whole form runs Gruntz's algorithm on all of it at once, and
on products of many sigmoids its cost grows fast: ``x*sigmoid(x)*...*sigmoid(5*x)``'
ran past the 3 s limit at both infinities, so the kernels kept NaN for f' there (the
limits are 0 and 1) and the compile spent 6 s waiting. By the algebra of limits, a
product's limit is the product of its factors' limits, and a sum's the sum of its
terms', wherever that is no ``0*oo`` or ``oo - oo``. Where it is, one factor going to
0 is taken with one going to +-oo (one term going to +oo with one going to -oo) as a
single smaller part, until no such pair is left or a pair has no limit. A part that
is no sum or product, or whose limit SymPy cannot find, is left to the caller (None):
it then takes the limit of the whole form, as before.
"""

from __future__ import annotations

import sympy as sp

#: pairs merged at most, per sum or product (each is one more SymPy limit)
_MAX_MERGES = 8


def limit_by_parts(e: sp.Expr, t: sp.Symbol) -> sp.Expr | None:
    """lim e as t -> +oo (a real number, oo or -oo) from the limits of its parts, or
    None where a part has none that SymPy finds or where the parts leave it open."""
    if not isinstance(e, (sp.Add, sp.Mul)):
        return None
    return _part_limit(e, t)


def _part_limit(e: sp.Expr, t: sp.Symbol) -> sp.Expr | None:
    if not e.has(t):
        return e if e.is_extended_real else None
    if isinstance(e, sp.Mul):
        return _combined(list(e.args), t, sp.Mul, _product_conflict)
    if isinstance(e, sp.Add):
        return _combined(list(e.args), t, sp.Add, _sum_conflict)
    return _whole_limit(e, t)


def _whole_limit(e: sp.Expr, t: sp.Symbol) -> sp.Expr | None:
    """SymPy's limit of ``e`` taken whole (a part, or a merged pair)."""
    try:
        lim = sp.limit(e, t, sp.oo)
    except Exception:  # noqa: BLE001 - SymPy found no limit for this part
        return None
    return lim if _determinate(lim) else None


def _combined(parts: list, t: sp.Symbol, op, conflict) -> sp.Expr | None:
    """``op`` (Mul or Add) of the parts' limits, merging conflicting pairs."""
    lims = [_part_limit(p, t) for p in parts]
    if any(lim is None for lim in lims):
        return None
    for _ in range(_MAX_MERGES + 1):
        pair = conflict(lims)
        if pair is None:
            total = op(*lims)
            return total if _determinate(total) else None
        i, j = pair
        merged = op(parts[i], parts[j])
        # whole: split again, the pair would conflict again
        lim = _whole_limit(merged, t)
        if lim is None:
            return None
        parts = [p for k, p in enumerate(parts) if k not in (i, j)] + [merged]
        lims = [m for k, m in enumerate(lims) if k not in (i, j)] + [lim]
    return None


def _product_conflict(lims: list) -> tuple[int, int] | None:
    """Indices of a factor going to 0 and one going to +-oo, or None."""
    zero = next((k for k, v in enumerate(lims) if v == 0), None)
    inf = next((k for k, v in enumerate(lims) if v in (sp.oo, -sp.oo)), None)
    return None if zero is None or inf is None else (inf, zero)


def _sum_conflict(lims: list) -> tuple[int, int] | None:
    """Indices of a term going to +oo and one going to -oo, or None."""
    up = next((k for k, v in enumerate(lims) if v == sp.oo), None)
    down = next((k for k, v in enumerate(lims) if v == -sp.oo), None)
    return None if up is None or down is None else (up, down)


def _determinate(lim: sp.Expr) -> bool:
    """A real number, oo or -oo (not NaN, zoo, a Limit, bounds or a symbol)."""
    if lim in (sp.oo, -sp.oo):
        return True
    if lim.has(sp.Limit, sp.AccumBounds, sp.nan, sp.zoo) or lim.free_symbols:
        return False
    return bool(lim.is_number and lim.is_extended_real)
