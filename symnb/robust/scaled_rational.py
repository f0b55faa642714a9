"""Products of polynomials, their absolute values and ``a + |P|`` in powers of 1/x.

The "safe" rational unit ``(a0 + a1*x + a2*x**2)/(1 + |b1*x + b2*x**2|)`` (named
coefficients) had f' NaN from x = 1e23 in float32: its second term
``N*Q'*sign(Q)/(1 + |Q|)**2`` is inf/inf where N and Q overflow, though the term is
1/x small. ``rewrite.rational_terms`` takes numeric coefficients and plain
polynomials only. Here each factor of a product is written exactly, for every value
of the coefficients, with its polynomials divided by their leading power of x:

    P = x^d P~(1/x),   |P| = |x|^d |P~|,   a + |P| = |x|^d (a/|x|^d + |P~|),

P~ in Horner form in 1/x, and the powers of |x| collected into one (sign(x) where the
count is odd). Used where |x| > 4, where every P~ is bounded and only the collected
power can overflow, which it does only where the product does.
"""

from __future__ import annotations

import sympy as sp

from symnb.robust.traversal import bottom_up

#: |x| beyond which the product is taken in powers of 1/x
FAR = 4


def _polynomial(e: sp.Expr, var: sp.Symbol) -> tuple[int, sp.Expr] | None:
    """(degree, P/x^degree in Horner form in 1/x) of a polynomial in x whose
    coefficients are free of x; None for anything else."""
    if var not in e.free_symbols:
        return None
    try:
        poly = sp.Poly(e, var)
    except (sp.PolynomialError, sp.PolificationFailed):
        return None
    if any(var in c.free_symbols for c in poly.coeffs()):
        return None
    d = poly.degree()
    coeffs = dict(poly.terms())
    # c_d + (c_{d-1} + (... + c_0/x)/x)/x
    scaled = coeffs.get((0,), sp.S.Zero)
    for k in range(1, d + 1):
        scaled = coeffs.get((k,), sp.S.Zero) + scaled / var
    return d, scaled


def _scaled(f: sp.Expr, var: sp.Symbol) -> tuple[sp.Expr, int, int, bool] | None:
    """(factor without its powers of x, power of x, power of |x|, has a degree >= 2
    in a denominator) for one factor of a product; None where it does not qualify."""
    if var not in f.free_symbols or isinstance(f, (sp.sign, sp.Heaviside)):
        return f, 0, 0, False
    base, e = f.as_base_exp()
    if not (e.is_Integer and e != 0):
        return None
    e = int(e)
    if isinstance(base, sp.Abs):
        found = _polynomial(base.args[0], var)
        if found is None:
            return None
        d, p = found
        return sp.Abs(p) ** e, 0, d * e, e < 0 and d >= 2
    if isinstance(base, sp.Add):
        outer = [t for t in base.args if var not in t.free_symbols]
        inner = [t for t in base.args if var in t.free_symbols]
        if len(inner) == 1:
            k, a = inner[0].as_independent(var, as_Add=False)
            if isinstance(a, sp.Abs):
                found = _polynomial(a.args[0], var)
                if found is None or not outer:
                    return None
                d, p = found
                rest = sp.Add(*outer) * (1 / sp.Abs(var)) ** d
                return (rest + k * sp.Abs(p)) ** e, 0, d * e, e < 0 and d >= 2
    found = _polynomial(base, var)
    if found is None:
        return None
    d, p = found
    return p**e, d * e, 0, e < 0 and d >= 2


def _rational_product(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul) or var not in e.free_symbols:
        return e
    if not e.has(sp.Abs) and not e.free_symbols - {var}:
        return e  # numbers only, no absolute value: rational_terms' case
    parts, power, abs_power, wanted = [], 0, 0, False
    for f in e.args:
        found = _scaled(f, var)
        if found is None:
            return e
        part, k, j, big = found
        parts.append(part)
        power, abs_power, wanted = power + k, abs_power + j, wanted or big
    if not wanted:
        return e
    n = power + abs_power
    scale = sp.Abs(var) ** n if n >= 0 else (1 / sp.Abs(var)) ** (-n)
    if power % 2:
        scale = scale * sp.sign(var)
    far = sp.Mul(*parts) * scale
    return sp.Piecewise((far, sp.Abs(var) > FAR), (e, True))


def scaled_rational_products(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Every product of polynomials, |polynomials| and ``a + |P|`` (integer powers,
    with a denominator of degree >= 2) in powers of 1/x where |x| > 4."""
    return bottom_up(expr, lambda e: _rational_product(e, var), conditions=False)
