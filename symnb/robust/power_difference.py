"""A power of a shifted argument less the shift's power, without the cancellation.

``(u + A)**n - A**n`` with a large A (``(x + 1e6)**3 - 1e18``, a cubic centred far
away) computes two numbers near A**n and subtracts them: in float32 (ulp 7e10 at 1e18)
``(cosh(1e-8 x/(1 + x**2)) + 1e6)**3 - 1e18`` was 3.0237e12 for 3.000003e12 at every
x, and ``sigmoid(x)*((x + 1e6)**3 - 1e18 + 2x)`` 5e-4 relative off at x = -30.
Exactly,

    (u + A)**n - A**n = u * sum_{j=1..n} C(n, j) A**(n - j) u**(j - 1),

whose terms do not cancel where u is small (the A**(n-1) term leads) and which is the
same polynomial where u is large. A sum holding ``c*(u + A)**n`` and numbers adding
up to about ``-c*A**n`` (within half of it) is written so, the numbers' remainder
added exactly.
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.traversal import bottom_up as _bottom_up

#: Highest power expanded (a longer polynomial is no cheaper than the power).
MOST_POWER = 8

#: The numbers must cancel c*A**n to within this fraction of it.
NEAR = 0.5


def _shifted_power(t: sp.Expr, var: sp.Symbol):
    """(c, u, A, n) for t = c*(u + A)**n, A a nonzero number, u in x, else None."""
    c, p = t.as_coeff_Mul()
    if not isinstance(p, sp.Pow) or not p.exp.is_Integer:
        return None
    n = int(p.exp)
    if not 2 <= n <= MOST_POWER or not isinstance(p.base, sp.Add):
        return None
    a, u = p.base.as_independent(var, as_Add=True)
    if not a.is_number or a == 0 or var not in u.free_symbols:
        return None
    return c, u, a, n


def _difference(u: sp.Expr, a: sp.Expr, n: int) -> sp.Expr:
    """(u + a)**n - a**n as u times a polynomial in u (Horner)."""
    t = sp.Dummy("t")
    poly = sp.Add(
        *[sp.binomial(n, j) * a ** (n - j) * t ** (j - 1) for j in range(1, n + 1)]
    )
    return u * sp.horner(poly, wrt=t).xreplace({t: u})


def _rewrite(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    numbers = [t for t in e.args if t.is_number]
    if not numbers:
        return e
    k = sp.Add(*numbers)
    for t in e.args:
        found = _shifted_power(t, var)
        if found is None:
            continue
        c, u, a, n = found
        lead = c * a**n
        try:
            near = abs(float(k + lead)) <= NEAR * abs(float(lead))
        except (TypeError, ValueError):
            continue
        if not near:
            continue
        rest = [r for r in e.args if r is not t and not r.is_number]
        return sp.Add(c * _difference(u, a, n), k + lead, *rest)
    return e


def power_difference(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c*(u + A)**n + K`` with K about ``-c*A**n`` as ``c*u*P(u) + (K + c*A**n)``
    (see the module); ``expr`` itself where there is none."""
    return _bottom_up(expr, lambda e: _rewrite(e, var), conditions=False)
