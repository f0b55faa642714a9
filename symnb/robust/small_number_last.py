"""A number below 1 multiplies a quotient by a function of x after the quotient.

Squareplus at b = 0 has f' ``x/(2*hypot(sqrt(b), x)) + 1/2``; printed with its number
first, ``0.5*x`` of the smallest subnormal x rounds to 0 (or of 3 subnormal units to
2), so f' was 0.5 for 1 (1.17 at 1.5e-323) in float64 and float32, and 0.5 for 0 at
negative subnormals. ``(x/h)*(1/2)`` divides first: x/h is exact there. (Numbers above
1 go last for overflow: ``rewrite.number_factors_last``.)
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.traversal import bottom_up


def _small_number_last(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    coeff, rest = e.as_coeff_Mul()
    if not isinstance(coeff, (sp.Rational, sp.Float)) or not 0 < abs(coeff) < 1:
        return e
    if not any(
        isinstance(f, sp.Pow) and f.exp.is_negative and var in f.base.free_symbols
        for f in sp.Mul.make_args(rest)
    ):
        return e
    return sp.UnevaluatedExpr(rest) * coeff


def small_number_factors_last(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``c*u/v`` (|c| < 1 a number, v a function of x) as ``(u/v)*c``."""
    return bottom_up(expr, lambda e: _small_number_last(e, var), conditions=False)
