"""Powers of a scaled x that overflow before the value does: taken out of a log, or
split from their scale.

``log_of_power``: ``2*log1p((x/a)**b)`` (the log-logistic likelihood, b = 2.5) was inf
from x = 1e17 in float32 and 1e145 in float64: (x/a)**b overflows where the value, about
2 b log(x/a), is a few hundred. Where u = m x > 4 (and the exponent, the factor and m
are positive), ``log(c + k u**p) = log(k) + p (log(x) + log(m)) + log1p((c/k) u**-p)``:
u**-p underflows to 0 harmlessly; |x| for x likewise (``log(1 + abs(x)**1.5)`` was
inf from |x| = 1e26 in float32). Integer exponents are left to ``log_of_polynomial``.

``split_scaled_power``: the Weibull likelihood's ``(x/l)**k`` with l = 0.5 and k = 1.5
has f' = (k/l)(x/l)**0.5, 7.8e19 at the float32 maximum, but x/l overflowed first: f'
was inf there (and in C, ``pow(-inf, 0.5)`` is +inf, so f' was inf at -3.4e38 where it
is NaN). As ``x**p * m**p``, x**p is finite wherever the value is. Only where the scale
m is positive (both forms then have the same domain: x**p is NaN for x < 0 as (m x)**p
is) and the exponent not an integer (integer powers are Horner's and
``divide_stepwise``'s).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import log1p
from symnb.robust.traversal import bottom_up as _bottom_up

#: u = m x above which the power is taken out of the log (as ``log_of_polynomial``)
FAR = 4


def _scaled_power(e: sp.Expr, var: sp.Symbol):
    """(m, w, p) with e = (m*w)**p, w = x or |x|, m and p free of x, p not an
    integer, else None."""
    if not isinstance(e, sp.Pow):
        return None
    base, p = e.args
    if var in p.free_symbols or p.is_Integer:
        return None
    if isinstance(base, sp.Abs):  # |m x| = |m| |x|
        m, w = base.args[0].as_independent(var, as_Add=False)
        return (sp.Abs(m), sp.Abs(var), p) if w == var else None
    m, w = base.as_independent(var, as_Add=False)
    return (m, w, p) if w in (var, sp.Abs(var)) else None


def _power_term(t: sp.Expr, var: sp.Symbol):
    """(k, m, w, p) with t = k*(m*w)**p, k free of x (see :func:`_scaled_power`)."""
    k, rest = t.as_independent(var, as_Add=False)
    found = _scaled_power(rest, var)
    return None if found is None else (k, *found)


def _log_of_power(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, (sp.log, log1p)) or var not in e.free_symbols:
        return e
    c, t = e.args[0].as_independent(var, as_Add=True)
    if isinstance(e, log1p):
        c = c + 1
    if c == 0:
        return e  # log(k*u**p): log_forms' business
    found = _power_term(t, var)
    if found is None:
        return e
    k, m, w, p = found
    u = m * w
    log_u = sp.log(w) if m == 1 else sp.log(w) + sp.log(m)
    far = sp.log(k) + p * log_u + log1p(c / k * u ** (-p))
    cond = sp.And(u > FAR, p > 0, k > 0, m > 0)
    if cond is sp.false:
        return e
    return sp.Piecewise((far, cond), (e, True))


def log_of_power(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``log(c + k*(m*x)**p)`` and ``log1p(k*(m*x)**p)`` (p not an integer; |x| for
    x too) with the power taken out where m*x > 4: see the module."""
    return _bottom_up(expr, lambda e: _log_of_power(e, var))


def _split(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    found = _scaled_power(e, var)
    if found is None:
        return e
    m, w, p = found
    if m == 1 or m.is_nonpositive:
        return e
    if m.is_positive:
        return w**p * m**p
    return sp.Piecewise((w**p * m**p, m > 0), (e, True))


def split_scaled_power(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``(m*x)**p`` or ``(m*|x|)**p`` (p not an integer, m > 0) as ``x**p * m**p``
    (``|x|**p * m**p``): see the module."""
    return _bottom_up(expr, lambda e: _split(e, var))
