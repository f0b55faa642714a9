"""Polynomials with a rational root other than 0, factored: no cancellation near a
repeated root.

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


def _degree(t: sp.Expr, gens: set) -> int | None:
    """Total degree of ``t`` as a polynomial whose generators are its other nodes
    (collected into ``gens``); None where it is not one (a negative or too large
    power). Generators are found here, not by ``as_poly``: SymPy splits
    ``exp(x - 0.693...)`` into a power of ``exp(x/2**53)`` of degree 6e15 and builds
    it densely (an analysis ran out of time there)."""
    if t.is_number:
        return 0
    if isinstance(t, sp.Add):
        parts = [_degree(a, gens) for a in t.args]
        return None if None in parts else max(parts)
    if isinstance(t, sp.Mul):
        parts = [_degree(a, gens) for a in t.args]
        return None if None in parts else sum(parts)
    if isinstance(t, sp.Pow) and t.exp.is_Integer:
        if not 0 < t.exp <= MAX_DEGREE:
            return None  # 1/x: Horner in 1/x keeps its signed zeros
        inner = _degree(t.base, gens)
        return None if inner is None else int(t.exp) * inner
    gens.add(t)
    return 1


def _factored(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add) or var not in e.free_symbols:
        return e
    if sp.count_ops(e) > MAX_OPERATIONS:
        return e
    gens: set = set()
    degree = _degree(e, gens)
    if degree is None or not 2 <= degree <= MAX_DEGREE:
        return e
    if len(gens) > MAX_GENERATORS or not any(var in g.free_symbols for g in gens):
        return e
    try:
        poly = sp.Poly(e, *sorted(gens, key=sp.default_sort_key))
    except (sp.PolynomialError, sp.GeneratorsError, ValueError, TypeError):
        return e
    if poly.domain not in (sp.ZZ, sp.QQ):
        return e
    coeff, factors = poly.factor_list()
    nonconstant = [(f, k) for f, k in factors if f.total_degree() > 0]
    # only where the terms cancel: at a rational root other than 0 (a linear factor
    # of two terms or more, t - 1); a power of x alone (x^2 (1 + x^2)) is left to
    # the rewrites that know sums of powers
    if not any(f.total_degree() == 1 and len(f.terms()) > 1 for f, _ in nonconstant):
        return e
    out = sp.Mul(coeff, *(f.as_expr() ** k for f, k in nonconstant))
    return e if out == e else out


def factored_polynomials(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Each sum that is a polynomial with rational coefficients (in x, a function of
    it, steps or constants) and factors over the rationals, as the product of its
    factors (branch conditions keep their own arithmetic)."""
    return bottom_up(expr, lambda e: _factored(e, var), conditions=False)


__all__ = ["factored_polynomials"]
