"""Derivatives of powers with their limits where the base is 0.

SymPy differentiates ``|x|**p`` as ``p*|x|**p/x`` and ``u**p`` with respect to ``p`` as
``u**p*log(u)``. Both are right away from ``u = 0`` and NaN at it (0/0 and 0*(-inf)),
although the limits exist: ``p*|x|**(p - 1)*sign(x)`` (0 for p > 1) and 0 (for p > 0).
One input at 0 (a ReLU output, a zero-padded feature) or a base that underflows to 0
(``sigmoid(x)`` at x = -800 in float64) made the derivative NaN there and, through the
constants' gradient sums, a learnable exponent NaN for the whole batch. These rewrites
keep the expressions away from 0 and give the limit at it.
"""

from __future__ import annotations

import sympy as sp


def _on_products(visit):
    """``visit`` for ``sp.bottom_up``: applied to products, other nodes kept."""
    return lambda e: visit(e) if isinstance(e, sp.Mul) else e


def _abs_quotient(m: sp.Mul) -> sp.Mul:
    """``|u|**p * u**-n`` -> ``|u|**(p - n) * sign(u)**n`` and ``|u|**p * |u|**-n`` ->
    ``|u|**(p - n)`` (equal wherever u != 0; SymPy keeps a symbolic p apart)."""
    args = list(m.args)
    for i, f in enumerate(args):
        if not (isinstance(f, sp.Pow) and isinstance(f.base, sp.Abs)):
            continue
        u = f.base.args[0]
        for j, g in enumerate(args):
            if j == i or not isinstance(g, sp.Pow) or g.base not in (u, f.base):
                continue
            n = -g.exp
            if not (n.is_Integer and n > 0) or (g.base == f.base and f.exp.is_Number):
                continue
            rest = [a for k, a in enumerate(args) if k not in (i, j)]
            sign = sp.sign(u) ** n if g.base == u else sp.S.One
            return _abs_quotient(sp.Mul(*rest, sp.Abs(u) ** (f.exp - n), sign))
    return m


def _power_log(m: sp.Mul) -> sp.Expr:
    """``B**p * log(B) * ...`` -> 0 where B = 0 and p > 0 (the limit there)."""
    bases = {f.args[0] for f in m.args if isinstance(f, sp.log)}
    if not bases:
        return m
    for f in m.args:
        if isinstance(f, sp.Pow) and f.base in bases:
            positive = sp.Gt(f.exp, 0)
            if positive is sp.false:
                continue
            # branches whose conditions are plain comparisons: NumPy's select cannot
            # reduce an And of a scalar (the constant's test) and an array
            return sp.Piecewise((m, sp.Ne(f.base, 0)), (0, positive), (m, True))
    return m


def power_limits_at_zero(expr: sp.Expr) -> sp.Expr:
    """``expr`` (a derivative) with powers' quotients and logarithms that are 0/0 or
    0*log(0) at a zero base replaced by forms equal elsewhere and right at 0."""
    if not expr.has(sp.Pow):
        return expr
    expr = sp.bottom_up(expr, _on_products(_abs_quotient))
    if expr.has(sp.log):
        expr = sp.bottom_up(expr, _on_products(_power_log))
    return expr
