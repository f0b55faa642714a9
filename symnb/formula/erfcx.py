"""exp(u^2)*erfc(u) (the scaled complementary error function erfcx), finite for u > 0,
and its powers (exp(-u^2)/erfc(u), the inverse Mills ratio, is 1/erfcx(u)).

Typed as ``exp(x**2)*erfc(x)`` (or ``exp(x**2)*(1 - erf(x))``, ``exp(x**2/2)*
erfc(x/sqrt(2))``, Mills' ratio), the product is inf*0 = NaN once exp(u^2) overflows
and erfc(u) underflows (u = 9.2 in float32, 26.5 in float64), though erfcx(u) tends to
1/(sqrt(pi) u). Its derivative 2u exp(u^2) erfc(u) - 2/sqrt(pi) fails with it.

``exp(r + u^2)*erfc(u)`` (r a number) is rewritten as exp(r)*erfcx(u), the primitive
:class:`symnb.formula.functions.erfcx` with its own derivative and kernels (since
ENGINE 110; before, a Piecewise with the continued fraction of
:mod:`symnb.formula.log_erfc` past u = 4, whose analysis took 7 s per compile).
:func:`piecewise_erfcx` keeps that form for printers without an erfcx (JAX, Numba).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.budget import bounded_expand
from symnb.formula.functions import erfc, erfcx
from symnb.formula.log_erfc import TAIL, _horner, _tail_coefficients


def _tail(u: sp.Expr) -> sp.Expr:
    """erfcx(u) for u > TAIL: 1/(sqrt(pi) u (1 + t P(t)/Q(t))), t = 1/u^2."""
    t = u**-2
    p, q = _tail_coefficients()
    qt = _horner(q, t)
    return (1 / sp.sqrt(sp.pi)) / u * (qt / (qt + t * _horner(p, t)))


def piecewise_erfcx(u: sp.Expr) -> sp.Piecewise:
    """exp(u**2)*erfc(u) written with exp and erfc only, finite wherever the value is:
    as typed up to u = 4, the continued fraction past it (for printers with no erfcx)."""
    return sp.Piecewise((sp.exp(u**2) * erfc(u), u <= TAIL), (_tail(u), True))


def piecewise_ierfcx(u: sp.Expr) -> sp.Piecewise:
    """1/sqrt(pi) - u*erfcx(u) (erfcx's derivative over -2) with exp and erfc only: as
    written up to u = 4, past it (1/sqrt(pi)) t P(t)/(Q(t) + t P(t)), t = 1/u^2."""
    t = u**-2
    p, q = _tail_coefficients()
    qt, tp = _horner(q, t), t * _horner(p, t)
    near = 1 / sp.sqrt(sp.pi) - u * sp.exp(u**2) * erfc(u)
    return sp.Piecewise((near, u <= TAIL), (tp / (sp.sqrt(sp.pi) * (qt + tp)), True))


def stable_erfcx(u: sp.Expr) -> sp.Expr:
    """exp(u**2)*erfc(u), finite wherever the value is: the erfcx primitive."""
    return erfcx(u)


def _erfc_power(f: sp.Expr) -> tuple[sp.Expr, int] | None:
    """(u, n) when f is erfc(u)**n, n a nonzero integer (erfc(u) itself: n = 1)."""
    if isinstance(f, sp.erfc):
        return f.args[0], 1
    if isinstance(f, sp.Pow) and isinstance(f.base, sp.erfc) and f.exp.is_Integer:
        return f.base.args[0], int(f.exp)
    return None


def _pair(e: sp.Mul) -> tuple[sp.Expr, sp.Expr, sp.Expr, int] | None:
    """(exp factor, erfc factor, r, n) when e holds exp(r + n u^2) and erfc(u)**n, r a
    number: exp(u^2)*erfc(u) and its reciprocal exp(-u^2)/erfc(u) (the inverse Mills
    ratio of the normal distribution, typed exp(-x**2/2)/erfc(x/sqrt(2)): 0/0 = NaN
    from x = 14 in float32)."""
    exps = [f for f in e.args if isinstance(f, sp.exp)]
    for ef in e.args:
        found = _erfc_power(ef)
        if found is None:
            continue
        u, n = found
        if u.is_number or u.is_real is False:
            continue
        for xf in exps:
            r = bounded_expand(xf.args[0] - n * u**2)
            if r is not None and r.is_number and r.is_finite:
                return xf, ef, r, n
    return None


def erfcx_forms(expr: sp.Expr, note) -> sp.Expr:
    """expr with every exp(r + u^2)*erfc(u) as exp(r)*:func:`stable_erfcx`(u)."""

    def walk(e: sp.Basic) -> sp.Basic:
        if not e.args or isinstance(e, erfcx):
            return e
        args = [walk(a) for a in e.args]
        e = e.func(*args) if tuple(args) != e.args else e
        if not isinstance(e, sp.Mul):
            return e
        found = _pair(e)
        if found is None:
            return e
        xf, ef, r, n = found
        note(
            "rewrote exp(u^2)*erfc(u) as erfcx(u), the scaled complementary error "
            "function (exp(u^2) overflows where erfc(u) underflows: inf*0 = NaN from "
            "u = 9.2 in float32, 26.5 in float64)"
        )
        rest = list(e.args)
        rest.remove(xf)
        rest.remove(ef)
        u = _erfc_power(ef)[0]
        return sp.Mul(*rest) * sp.exp(r) * stable_erfcx(u) ** n

    return walk(expr)
