"""A logarithm's nested linear argument computed expanded near its domain edge.

The soft exponential at alpha < 0, ``-log(1 - a*(x + a))/a``, is ``-log1p(-a*(a + x))/a``:
at a = -0.5 one ulp below its domain edge x = -1.5, ``a + x`` rounds to -2 (half an ulp),
the argument to exactly 0, and f was -inf where it is undefined (NaN), f' inf for
-1.7e7. Expanded, ``w = (1 - a**2) - a*x`` is exact there (``1 - a**2`` and ``a*x``
exact, their difference by Sterbenz's lemma); for other constants it rounds no worse
than the nested form. So:

- ``log1p(u)`` with u linear in x with a constant term (``log1p(c + a*x)`` too: 1 + c
  rounds no more than 1 + (c + a*x)) is
  ``log(w)`` where w < 1/2 (near the edge), ``log1p(u)`` elsewhere (near u = 0 only
  log1p keeps f's digits);
- ``1/(1 + u)`` (the derivative's denominator), spelled nested, is ``1/w`` everywhere.

The constant term is held unevaluated, so the kernel adds it to ``a*x`` last.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import log1p


def _expanded(w: sp.Expr, var: sp.Symbol, moved: bool) -> sp.Expr | None:
    """w as b + a*x (b held as one term) when w is linear in x with a constant term b
    and is spelled otherwise (``moved``: b differs from w's constant term as spelled,
    1 + (c + a*x)); None otherwise."""
    if var not in w.free_symbols or w.has(sp.Piecewise):
        return None
    try:
        poly = sp.Poly(w, var)
    except sp.PolynomialError:
        return None
    if poly.degree() != 1:
        return None
    a, b = poly.all_coeffs()
    if b == 0 or (not moved and sp.expand(w) == w):
        return None
    return sp.UnevaluatedExpr(b) + a * var


def expand_edge_arguments(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """expr with every ``log1p(u)`` and ``(1 + u)**-1`` whose 1 + u is a nested linear
    function of var rewritten as above."""

    def log_of(u: sp.Expr) -> sp.Expr | None:
        c = sp.Poly(u, var).all_coeffs()[-1] if u.is_polynomial(var) else 0
        w = _expanded(1 + u, var, moved=c != 0)
        if w is None:
            return None
        return sp.Piecewise((sp.log(w), w < sp.S.Half), (log1p(u), True))

    def reciprocal(base: sp.Expr) -> sp.Expr | None:
        if not isinstance(base, sp.Add) or 1 not in base.args:
            return None
        w = _expanded(base, var, moved=False)
        return None if w is None else 1 / w

    def rule(e: sp.Expr) -> sp.Expr:
        if isinstance(e, log1p):
            out = log_of(e.args[0])
        elif isinstance(e, sp.Pow) and e.exp == -1:
            out = reciprocal(e.base)
        else:
            out = None
        return e if out is None else out

    return expr.replace(lambda e: isinstance(e, (log1p, sp.Pow)), rule)
