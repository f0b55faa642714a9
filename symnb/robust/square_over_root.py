"""``x**2/(sqrt(1 + (x/c)**2) + 1)`` for every value of c: no x**2 overflows first.

Pseudo-Huber ``d**2*(sqrt(1 + (x/d)**2) - 1)`` compiled at d = 1 takes the form
``x**2/(sqrt(1 + x**2/d**2) + 1)`` (the cancellation removed for every d); its
asymptote for large |x| is pinned to the analysed d, so with d moved to 1e3 (training,
``set_constants``) x**2 and the root overflowed, inf/inf = NaN from |x| = 1.8e19 in
float32 (1.3e154 in float64) where the value is about d|x|. Here the root of the
square is a hypot (``sqrt(p + q*x**2)`` with q a product of even powers: ``hypot(
sqrt(p), x*sqrt(q))``, rewrite.root_of_squares_as_hypot takes numbers only) and
``x**2/D`` multiplies one x at a time, ``x*(x/D)``: x/D stays near |d| where D grows
like |x|/|d|. Both are exact for every x and d. Where |x| > 1 that quotient is
``sign(x)/(a/|x| + hypot(p/x, q))`` (``_quotient``): with d moved to 1e-3, x/d
overflowed at the float maximum, hypot was inf and f 0 where it is about d|x|.
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.hypot import hypot2
from symnb.robust.traversal import bottom_up


def _even_root(t: sp.Expr) -> sp.Expr | None:
    """r with r**2 = t for a product of even integer powers and a positive number."""
    c, rest = t.as_coeff_Mul()
    if not c.is_positive:
        return None
    out = sp.sqrt(c)
    for f in sp.Mul.make_args(rest) if rest != 1 else ():
        base, e = f.as_base_exp()
        if not (e.is_Integer and e % 2 == 0):
            return None
        out *= base ** (e // 2)
    return out


def _as_hypot(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not (
        isinstance(e, sp.Pow) and e.exp == sp.S.Half and isinstance(e.base, sp.Add)
    ):
        return e
    terms = e.base.args
    if len(terms) != 2:
        return e
    roots = [_even_root(t) for t in terms]
    if any(r is None for r in roots) or not any(var in r.free_symbols for r in roots):
        return e
    return hypot2(*roots)


def _grows_like_x(d: sp.Expr, var: sp.Symbol) -> bool:
    """Whether d is a sum with a hypot (or root of a square) of x and other terms
    free of x: it grows like |x| far out."""
    if not isinstance(d, sp.Add):
        return False
    roots = [t for t in d.args if var in t.free_symbols]
    return len(roots) == 1 and isinstance(roots[0], hypot2)


def _quotient(var: sp.Symbol, d: sp.Expr) -> sp.Expr:
    """x/d for d = a + hypot(p, q*x) (p, q free of x) with no q*x to overflow where
    |x| > 1: sign(x)/(a/|x| + hypot(p/x, q)), each term at most max(|a|, |p|, |q|);
    x/d as it is for other d and where |x| <= 1."""
    plain = var / d
    root = next(t for t in d.args if var in t.free_symbols)
    a = d - root
    inner = [u for u in root.args if var in u.free_symbols]
    if len(inner) != 1:
        return plain
    q = sp.simplify(inner[0] / var)
    if var in q.free_symbols:
        return plain
    p = next(u for u in root.args if u is not inner[0])
    far = sp.sign(var) / (a / sp.Abs(var) + hypot2(p / var, q))
    return sp.Piecewise((far, sp.Abs(var) > 1), (plain, True))


def _stepwise(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    factors = list(e.args)
    if var**2 not in factors:
        return e
    grows = [
        f
        for f in factors
        if isinstance(f, sp.Pow) and f.exp == -1 and _grows_like_x(f.base, var)
    ]
    if not grows:
        return e
    factors.remove(var**2)
    factors.remove(grows[0])
    rest = sp.Mul(*factors)
    return var * sp.UnevaluatedExpr(rest * _quotient(var, grows[0].base))


def square_over_root(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``sqrt(p + q*x**2)`` (p, q products of even powers) as a hypot, then every
    ``x**2/(a + hypot(...))`` as ``x*(x/(a + hypot(...)))``."""
    out = bottom_up(expr, lambda e: _as_hypot(e, var), conditions=False)
    if out == expr:
        return expr
    return bottom_up(out, lambda e: _stepwise(e, var), conditions=False)
