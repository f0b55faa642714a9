"""Differences of lgamma (and digamma) at arguments a constant apart, past their overflow.

``lgamma(x**2 + 3/2) - lgamma(x**2 + 1)`` is log Gamma(z + d)/Gamma(z) with z = x**2 + 1,
d = 1/2: about d log z = 2 d log|x| at large |x|, yet each lgamma overflows (float32 from
|x| = 1.8e19) and the difference was inf - inf = NaN; before that it cancelled to the
rounding error of lgamma (~z log z), 4e3 ulps from |x| = 57 in float32. Where z exceeds
``FAR_FACTOR * (1 + |d|)`` the pair is the asymptotic series (DLMF 5.11.8)

    lgamma(z + d) - lgamma(z) = d log z + sum_k (-1)^(k+1) (B_{k+1}(d) - B_{k+1}(0))
                                           / (k (k+1) z^k),

and ``digamma(z + d) - digamma(z)`` its derivative in z, with ``log z`` of a polynomial z
taking the leading power out (:func:`symnb.robust.rewrite.log_of_polynomial`'s form). The
series is exact to rounding there for every value of the constants (no analysed-value
guard).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.gamma import digamma, lgamma
from symnb.robust.traversal import bottom_up

#: z above which the series is used, times (1 + |d|) (its truncation error there is below
#: 1e-18 relative for |d| <= MAX_SHIFT)
FAR_FACTOR = 100
#: terms of the series
TERMS = 8
#: the largest shift d handled (the series' coefficients grow like |d|^(k+1))
MAX_SHIFT = 16


def _coefficients(d: sp.Number) -> list[sp.Expr]:
    """c_k of the lgamma difference's series, k = 1..TERMS."""
    return [
        sp.Integer(-1) ** (k + 1)
        * (sp.bernoulli(k + 1, d) - sp.bernoulli(k + 1, 0))
        / (k * (k + 1))
        for k in range(1, TERMS + 1)
    ]


def _series(kind, z: sp.Expr, d: sp.Number, var: sp.Symbol, log_of_polynomial):
    cs = _coefficients(d)
    if kind is lgamma:
        log_z = log_of_polynomial(sp.log(z), var)
        return d * log_z + sum(c / z**k for k, c in enumerate(cs, start=1))
    return d / z - sum(k * c / z ** (k + 1) for k, c in enumerate(cs, start=1))


def _term(t: sp.Expr):
    """(coefficient, function class, argument) of c*lgamma(u) or c*digamma(u)."""
    coeff, rest = t.as_coeff_Mul()
    if isinstance(rest, (lgamma, digamma)):
        return coeff, type(rest), rest.args[0]
    return None


def _pair(e: sp.Expr, var: sp.Symbol, log_of_polynomial) -> sp.Expr:
    if not isinstance(e, sp.Add) or var not in e.free_symbols:
        return e
    terms = list(e.args)
    for i, ti in enumerate(terms):
        a = _term(ti)
        if a is None or var not in a[2].free_symbols:
            continue
        for j, tj in enumerate(terms):
            b = _term(tj)
            if j == i or b is None or b[1] is not a[1] or b[0] != -a[0]:
                continue
            d = sp.expand(a[2] - b[2])
            if d.is_Float:  # 1.5 typed: its exact binary value
                d = sp.Rational(d)
            if not (d.is_Rational and d > 0 and d <= MAX_SHIFT):
                continue
            z = b[2]
            far = _series(a[1], z, d, var, log_of_polynomial)
            near = a[1](a[2]) - a[1](z)
            pair = a[0] * sp.Piecewise((far, z > FAR_FACTOR * (1 + d)), (near, True))
            rest = [t for k, t in enumerate(terms) if k not in (i, j)]
            return sp.Add(pair, *rest)
    return e


def gamma_differences(expr: sp.Expr, var: sp.Symbol, log_of_polynomial) -> sp.Expr:
    """Pairs ``c*lgamma(z + d) - c*lgamma(z)`` (and of digamma) in the sums of ``expr``,
    d a positive rational up to MAX_SHIFT, as their asymptotic series where z is large
    (``log_of_polynomial(expr, var)`` is passed in: it lives in the rewrite module)."""
    return bottom_up(expr, lambda e: _pair(e, var, log_of_polynomial))


__all__ = ["FAR_FACTOR", "MAX_SHIFT", "TERMS", "gamma_differences"]
