"""A constant times an integer power, multiplied in one factor at a time.

``(1 - y)*x**2/2`` with the label y = 1 (the dissimilar pair of a contrastive loss) was
NaN from |x| = 1.8e19 in float32 (1.3e154 in float64): x**2 overflowed and 0*inf is
NaN, where the term is 0. ``a3*relu(x)**3`` with a3 = 1e-8 (a PolyReLU coefficient)
was inf from x = 7e12 in float32 where it is 1e37 and finite up to 3e15. As
``((c*u)*u)*u`` no partial product exceeds max(|c|, |c u**k|): a 0 constant gives 0,
and a small one brings u down before it is raised.
"""

from __future__ import annotations

import sympy as sp

#: integer exponents multiplied in stepwise (higher ones are Horner's or pow's)
POWERS = (2, 3, 4)


def _into_power(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    consts = [f for f in e.args if var not in f.free_symbols]
    powers = [
        f
        for f in e.args
        if isinstance(f, sp.Pow) and f.exp in POWERS and var in f.base.free_symbols
    ]
    c = sp.Mul(*consts)
    # numbers are left to the number rewrites (gelu_tanh's 0.044715*x**3 lost the
    # sigmoid its f and f' share); named constants only
    if len(powers) != 1 or c.is_number or not consts:
        return e
    (power,) = powers
    rest = [f for f in e.args if var in f.free_symbols and f is not power]
    # a number stays a number (the C printer reads numbers, not wrapped ones)
    q = c if c.is_number else sp.UnevaluatedExpr(c)
    for _ in range(int(power.exp)):
        q = sp.UnevaluatedExpr(q * power.base)
    return q * sp.Mul(*rest) if rest else q


def _outside_denominators(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """:func:`_into_power` bottom-up, except inside a negative power: a denominator
    keeps its powers, which the rational regimes read (``(a0 + a1*x + a5*x**5)/(1 +
    b2*x**2)`` lost its large-|x| tail: NaN from |x| = 1e23 in float32)."""
    if not isinstance(e, sp.Basic) or not e.args:
        return e
    if isinstance(e, sp.Pow) and e.exp.is_negative:
        return e
    args = [_outside_denominators(a, var) for a in e.args]
    if any(n is not o for n, o in zip(args, e.args)):
        e = e.func(*args)
    return _into_power(e, var)


def constant_into_power(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c*u**k*v`` (k = 2..4, c a named constant free of x) as
    ``(((c*u)*u)...)*v``, outside denominators: see the module."""
    return _outside_denominators(expr, var)
