"""exp(u^2)*erfc(u) (the scaled complementary error function erfcx), finite for u > 0,
and its powers (exp(-u^2)/erfc(u), the inverse Mills ratio, is 1/erfcx(u)).

Typed as ``exp(x**2)*erfc(x)`` (or ``exp(x**2)*(1 - erf(x))``, ``exp(x**2/2)*
erfc(x/sqrt(2))``, Mills' ratio), the product is inf*0 = NaN once exp(u^2) overflows
and erfc(u) underflows (u = 9.2 in float32, 26.5 in float64), though erfcx(u) tends to
1/(sqrt(pi) u). Its derivative 2u exp(u^2) erfc(u) - 2/sqrt(pi) fails with it.

``exp(r + u^2)*erfc(u)`` (r a number) is rewritten as exp(r) times

* u <= TAIL: ``exp(u**2)*erfc(u)`` (as typed: exact there; it overflows to inf only
  where the value does, for u very negative);
* u > TAIL: ``Q(t)/(sqrt(pi) u (Q(t) + t P(t)))``, t = 1/u^2, the continued fraction
  of :mod:`symnb.formula.log_erfc` (relative error below 2^-60 from u = 4 on, value
  and derivative; its derivative is rational in u, finite for every u > 0).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.budget import bounded_expand
from symnb.formula.functions import erfc
from symnb.formula.log_erfc import TAIL, _horner, _tail_coefficients


def _tail(u: sp.Expr) -> sp.Expr:
    """erfcx(u) for u > TAIL: 1/(sqrt(pi) u (1 + t P(t)/Q(t))), t = 1/u^2."""
    t = u**-2
    p, q = _tail_coefficients()
    qt = _horner(q, t)
    return (1 / sp.sqrt(sp.pi)) / u * (qt / (qt + t * _horner(p, t)))


def stable_erfcx(u: sp.Expr) -> sp.Piecewise:
    """exp(u**2)*erfc(u), finite wherever the value is (see the module)."""
    return sp.Piecewise((sp.exp(u**2) * erfc(u), u <= TAIL), (_tail(u), True))


def _is_ours(e: sp.Basic) -> bool:
    """Whether e is a :func:`stable_erfcx` Piecewise (a second pass leaves it alone)."""
    if not (isinstance(e, sp.Piecewise) and len(e.args) == 2):
        return False
    for f in sp.Mul.make_args(e.args[0].expr):
        if isinstance(f, sp.erfc):
            return e == stable_erfcx(f.args[0])
    return False


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
        if not e.args or _is_ours(e):
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
            "rewrote exp(u^2)*erfc(u) (erfcx) with a continued fraction past u = 4 "
            "(exp(u^2) overflows where erfc(u) underflows: inf*0 = NaN from u = 9.2 "
            "in float32, 26.5 in float64)"
        )
        rest = list(e.args)
        rest.remove(xf)
        rest.remove(ef)
        u = _erfc_power(ef)[0]
        return sp.Mul(*rest) * sp.exp(r) * stable_erfcx(u) ** n

    return walk(expr)
