"""``k - k*cos(u)`` as ``2*k*sin(u/2)**2``: no cancellation where u is small.

``(1 - cos(a*x))/a**2`` with a = 1e-4 was 0 for 0.5 at x = 1 in float32 (cos(1e-4)
rounds to 1): 94 of 183 points over the rule in float32, 46 of 353 in float64. The
half-angle form is exact for every u and costs one multiplication more.
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.traversal import bottom_up


def _cosine_term(term: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(k, u) where ``term`` is ``k*cos(u)``; None otherwise."""
    if isinstance(term, sp.cos):
        return sp.S.One, term.args[0]
    if not isinstance(term, sp.Mul):
        return None
    cosines = [f for f in term.args if isinstance(f, sp.cos)]
    if len(cosines) != 1:
        return None
    rest = [f for f in term.args if f is not cosines[0]]
    return sp.Mul(*rest), cosines[0].args[0]


def _half_angle(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    terms = list(e.args)
    for i, term in enumerate(terms):
        found = _cosine_term(term)
        if found is None or var not in found[1].free_symbols:
            continue
        k, u = found
        if var in k.free_symbols:
            continue
        for j, other in enumerate(terms):
            if j != i and var not in other.free_symbols and sp.expand(other + k) == 0:
                rest = [t for m, t in enumerate(terms) if m not in (i, j)]
                return sp.Add(*rest, -2 * k * sp.sin(u / 2) ** 2)
    return e


def cosine_as_half_angle(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``k*cos(u) - k`` (k free of x, u with x) as ``-2*k*sin(u/2)**2``."""
    return bottom_up(expr, lambda e: _half_angle(e, var))
