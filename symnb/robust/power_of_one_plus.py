"""``(1 + w)**q`` as ``exp(q*log1p(w))`` where ``1 + w > 0``, and ``(c + w)**q`` with a
constant term c (a named constant such as C = 1 in the Richards curve) as
``exp(q*(log(c) + log1p(w/c)))`` where ``c > 0`` and ``c + w > 0``.

``(1 + x/n)**n`` (the compound-interest limit of exp(x), the tempered exponential of
the bi-tempered logistic loss near t = 1) with n = 1e8 was 6.6e-6 for 4.5e-5 at
x = -10 in float32 and 4e-9 off at x = -4.9 in float64: 1 + x/n rounds to its dtype's
spacing, and the power multiplies that rounding error by n. log1p(w) keeps w whole, so
the error is that of one exp. The power is kept where ``1 + w <= 0`` (a constant
exponent may be an integer there), so the rewrite is exact for every value of the
constants; the engine keeps it only where measurement says it helps.

The Richards curve ``1/(C + Q*exp(-x))**(1/nu)`` with C = Q = 1 and nu = 1e-8 was 1.0
for 0.8137 at x = 20 in float32 and 7e-9 off in float64: the sum's constant is a
name, not the literal 1, so the first rule did not see it. Splitting the constant
out (c**q times (1 + w/c)**q) is exact wherever c > 0; a c <= 0 keeps the power.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import log1p
from symnb.robust.traversal import bottom_up


def _one_plus(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Pow) or var in e.exp.free_symbols:
        return e
    base, q = e.args
    if q.is_Integer or (q.is_Rational and q.q == 2):
        return e  # integer powers multiply exactly; roots lose nothing to 1 + w
    if not isinstance(base, sp.Add):
        return e
    if sp.S.One in base.args:
        w = base - 1
        if var not in w.free_symbols:
            return e
        return sp.Piecewise((sp.exp(q * log1p(w)), w > -1), (e, True))
    c, w = base.as_independent(var, as_Add=True)
    if c == 0 or not c.free_symbols or var not in w.free_symbols:
        return e  # a literal c != 1 is left alone: its c**q is a literal's power
    return sp.Piecewise(
        (sp.exp(q * (sp.log(c) + log1p(w / c))), (c > 0) & (w / c > -1)),
        (e, True),
    )


def power_of_one_plus(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``(1 + w)**q`` (w depending on var, q free of it, not an integer or a
    half) of ``expr`` as ``exp(q*log1p(w))`` where ``w > -1``; every ``(c + w)**q``
    with a named constant term c as ``exp(q*(log(c) + log1p(w/c)))`` where ``c > 0``
    and ``w/c > -1``."""
    return bottom_up(expr, lambda e: _one_plus(e, var), conditions=False)
