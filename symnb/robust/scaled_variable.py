"""Rational functions homogeneous in x and a constant c, written in x/c.

``x**2/(x**2 + s**2)`` with s = 1e-20: s**2 = 1e-40 is subnormal in float32 (16 bits
left) and x**2 is subnormal below |x| = 1e-19, so the quotient was 5e-4 off at
x = 1e-21, where it is 0.0099. The function depends on x/s only: as
``u**2/(u**2 + 1)`` with u = x/s, no square of a tiny number is formed. A rational
function R with R(l x, l c) = l**d R(x, c) is c**d g(x/c) (g free of c); the quotient
x/c is kept as one unit (unevaluated), so SymPy does not spread (x/c)**2 back into
x**2/c**2.
"""

from __future__ import annotations

import sympy as sp

#: largest operation count of a subexpression tried (cancel on larger ones is slow)
MAX_OPS = 60


def _degree(e: sp.Expr, var: sp.Symbol, c: sp.Symbol) -> int | None:
    """d with e(l x, l c) = l**d e(x, c), or None when e is not homogeneous."""
    lam = sp.Dummy("l", positive=True)
    ratio = sp.cancel(e.xreplace({var: lam * var, c: lam * c}) / e)
    if ratio.free_symbols - {lam}:
        return None
    if ratio == 1:
        return 0
    base, exp = ratio.as_base_exp()
    if base == lam and exp.is_Integer:
        return int(exp)
    return None


def _in_ratio(e: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
    """``e`` as c**d * g(x/c) for the first constant c that allows it, else None."""
    if not e.is_Mul and not e.is_Pow:
        return None
    if sp.count_ops(e) > MAX_OPS:
        return None
    consts = sorted(e.free_symbols - {var}, key=str)
    if not consts or not e.is_rational_function(var, *consts):
        return None
    _, den = sp.fraction(sp.together(e))
    if not den.has(var):
        return None  # a polynomial: nothing is divided, nothing to scale
    u = sp.Dummy("u", real=True)
    for c in consts:
        d = _degree(e, var, c)
        if d is None:
            continue
        g = sp.cancel(e.xreplace({var: u * c}) / c**d)
        if c in g.free_symbols:
            continue
        return c**d * g.xreplace({u: sp.UnevaluatedExpr(var / c)})
    return None


def scale_by_constant(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Each largest rational subexpression homogeneous in x and a constant c as
    c**d g(x/c) (see the module)."""
    if not isinstance(expr, sp.Basic) or not expr.has(var):
        return expr
    if isinstance(expr, sp.Expr):
        done = _in_ratio(expr, var)
        if done is not None:
            return done
    if isinstance(expr, (sp.core.relational.Relational, sp.Or, sp.And)):
        return expr
    args = [scale_by_constant(a, var) for a in expr.args]
    if all(n is o for n, o in zip(args, expr.args)):
        return expr
    return expr.func(*args)


__all__ = ["scale_by_constant"]
