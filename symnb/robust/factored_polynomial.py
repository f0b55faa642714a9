"""Polynomials with rational roots, factored: no cancellation near a repeated root.

A derivative that SymPy writes as a sum of products is often a polynomial whose
roots are rational, and near a root its terms cancel. Smootherstep
``t**3*(t*(6*t - 15) + 10)`` with ``t = clip(x, 0, 1)`` has f' = 30t^4 - 60t^3 + 30t^2
(as SymPy builds it), which was 8.5% off at x = 0.999 in float32 (2.74e-5 for
2.99e-5, the terms are 30 and differ by 3e-5); factored, 30 t^2 (t - 1)^2, it is
exact to rounding. The generators may be x, a bounded piece of it (``clip``,
``Min``/``Max``), steps or constants; factoring over the rationals is exact, and the
engine keeps it only where it measures better.
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.traversal import bottom_up

#: Largest polynomial factored (total degree, operations, generators): the
#: factorisation of a large multivariate polynomial costs more than it can gain.
MAX_DEGREE = 12
MAX_OPERATIONS = 80
MAX_GENERATORS = 4


def _factored(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add) or var not in e.free_symbols:
        return e
    if sp.count_ops(e) > MAX_OPERATIONS:
        return e
    try:
        poly = e.as_poly()
    except (sp.PolynomialError, sp.GeneratorsError, ValueError, TypeError):
        return e
    if poly is None or len(poly.gens) > MAX_GENERATORS:
        return e
    if poly.domain not in (sp.ZZ, sp.QQ) or not 2 <= poly.total_degree() <= MAX_DEGREE:
        return e
    if not any(var in g.free_symbols for g in poly.gens):
        return e
    coeff, factors = poly.factor_list()
    nonconstant = [(f, k) for f, k in factors if f.total_degree() > 0]
    # factored at all: two factors, or one repeated (a root where terms cancel)
    if len(nonconstant) < 2 and not any(k > 1 for _, k in nonconstant):
        return e
    out = sp.Mul(coeff, *(f.as_expr() ** k for f, k in nonconstant))
    return e if out == e else out


def factored_polynomials(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Each sum that is a polynomial with rational coefficients (in x, a function of
    it, steps or constants) and factors over the rationals, as the product of its
    factors (branch conditions keep their own arithmetic)."""
    return bottom_up(expr, lambda e: _factored(e, var), conditions=False)


__all__ = ["factored_polynomials"]
