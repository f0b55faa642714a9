"""``u - log1p(u)`` and ``t - t*a/(a + u)`` without their cancellation where u is small.

Fair's loss ``c**2*(|x|/c - log1p(|x|/c))`` at c = 1e4 was 231.7363 for 231.7467 at
x = -21.5 in float32: u = |x|/c is 2e-3 and u - log1p(u) keeps only its rounding error
(57 of 191 points over the rule), and its f' ``c*sign(x)*(1 - 1/(1 + u))`` cancels the
same way. Both hold for every u that appears in a sum beside its log1p (or ``log(1 +
u)``), whatever x's function u is:

- ``u - log1p(u)`` is, with v = u/(2 + u) (so log1p(u) = 2 atanh(v) and u*v = u - 2v),
  ``u*v - 2 v^3 (1/3 + v^2/5 + v^4/7 + ...)``: no term cancels another. Used where
  |u| < 1/4 (|v| < 1/7: 9 terms reach float64's rounding); beyond, the plain difference
  loses at most 3 bits;
- ``t - t*a/(a + u)`` is ``t*u/(a + u)`` exactly (the derivative of the above, of
  ``log(a + u)`` terms and of ratios like ``u/(1 + u)``).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import log1p
from symnb.robust.traversal import bottom_up

#: |u| below which u - log1p(u) is taken from its series
SERIES_RADIUS = sp.Rational(1, 4)
#: terms of the odd series of atanh(v) - v kept (|v| < 1/7: the next is below 1e-17)
SERIES_TERMS = 9


def _log1p_argument(factor: sp.Expr) -> sp.Expr | None:
    """u where ``factor`` is ``log1p(u)`` or ``log(1 + u)``; None otherwise."""
    if isinstance(factor, log1p):
        return factor.args[0]
    if isinstance(factor, sp.log) and isinstance(factor.args[0], sp.Add):
        one, u = factor.args[0].as_coeff_Add()
        if one == 1:
            return u
    return None


def u_minus_log1p(u: sp.Expr) -> sp.Expr:
    """``u - log1p(u)``, from its series in v = u/(2 + u) where |u| < 1/4."""
    v = u / (u + 2)
    s = v**2
    tail = sp.Integer(0)
    for j in reversed(range(SERIES_TERMS)):
        tail = tail * s + sp.Rational(1, 2 * j + 3)
    series = u * v - 2 * v**3 * tail
    return sp.Piecewise((series, sp.Abs(u) < SERIES_RADIUS), (u - log1p(u), True))


def _factors_of_terms(e: sp.Expr):
    """(terms of the sum e, index, term, factor) for every factor of every term."""
    terms = list(e.args) if isinstance(e, sp.Add) else []
    for i, term in enumerate(terms):
        for factor in sp.Mul.make_args(term):
            yield terms, i, term, factor


def _log1p_difference(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    for terms, i, term, factor in _factors_of_terms(e):
        u = _log1p_argument(factor)
        if u is None or var not in u.free_symbols:
            continue
        k = term / factor
        rest = terms[:i] + terms[i + 1 :]
        for w in sp.Add.make_args(sp.expand(-k * u)):
            if w not in rest:
                break
            rest.remove(w)
        else:
            return sp.Add(*rest, -k * u_minus_log1p(u))
    return e


def log1p_difference(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``k*u - k*log1p(u)`` (or ``log(1 + u)``) in a sum as ``k*w(u)``, w the
    series form of :func:`u_minus_log1p`."""
    return bottom_up(expr, lambda e: _log1p_difference(e, var), conditions=False)


def _reciprocal_complement(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    for terms, j, term, factor in _factors_of_terms(e):
        if not (
            isinstance(factor, sp.Pow)
            and factor.exp == -1
            and isinstance(factor.base, sp.Add)
            and var in factor.base.free_symbols
        ):
            continue
        a, u = factor.base.as_coeff_Add()
        if a == 0 or var not in u.free_symbols:
            continue
        t = -term * factor.base / a
        for i, other in enumerate(terms):
            if i != j and (other == t or sp.expand(other - t) == 0):
                rest = [x for m, x in enumerate(terms) if m not in (i, j)]
                return sp.Add(*rest, t * u * factor)
    return e


def reciprocal_complement(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``t - t*a/(a + u)`` in a sum (a a number) as ``t*u/(a + u)``."""
    return bottom_up(expr, lambda e: _reciprocal_complement(e, var), conditions=False)
