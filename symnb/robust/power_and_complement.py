"""``z*(1 + z)**n`` (n <= -2) as ``(1 + z)**(n + 1)/(1 + 1/z)`` for a power z = w**q.

The log-logistic CDF ``where(x > 0, 1/(1 + (x/a)**(-b)), 0)`` has f'
``b/(x*(x/a)**b*(1 + (x/a)**(-b))**2)``: at the smallest subnormal x, (x/a)**b
underflows to 0 and (x/a)**(-b) overflows, 0*inf = NaN (float32 and float64). With z =
w**q, ``z/(1 + z)**2 = 1/((1 + z)*(1 + w**(-q)))``: both factors are sums with 1, so
where one power overflows the other is 0 and the product is inf, not NaN.
The same for ``(1 + z)**n/z`` (n >= 2) as ``(1 + z)**(n - 1)*(1 + 1/z)``.
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.traversal import bottom_up


def _power_in_sum(b: sp.Expr) -> sp.Expr | None:
    """z where ``b`` is ``1 + z`` and z is a power (w**q) with a symbolic or
    non-integer exponent; None otherwise."""
    if not isinstance(b, sp.Add):
        return None
    one, z = b.as_coeff_Add()
    if one != 1 or not isinstance(z, sp.Pow) or z.exp.is_Integer:
        return None
    return z


def _combine(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul) or var not in e.free_symbols:
        return e
    factors = list(e.args)
    for j, f in enumerate(factors):
        base, n = f.as_base_exp()
        if not n.is_Integer:
            continue
        z = _power_in_sum(base)
        if z is None or var not in z.free_symbols:
            continue
        inv = z.base ** (-z.exp)
        for i, g in enumerate(factors):
            if i == j:
                continue
            if g == z and n <= -2:
                new = base ** (n + 1) / (1 + inv)
            elif g == inv and n >= 2:
                new = base ** (n - 1) * (1 + inv)
            else:
                continue
            rest = [h for m, h in enumerate(factors) if m not in (i, j)]
            return sp.Mul(*rest, new)
    return e


def power_and_complement(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every ``z*(1 + z)**n`` (n <= -2) and ``(1 + z)**n/z`` (n >= 2), z = w**q, as a
    product of sums with 1 (see the module's docstring)."""
    return bottom_up(expr, lambda e: _combine(e, var), conditions=False)
