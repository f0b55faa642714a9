"""The edges of a logarithm's domain, where a product 0*log(0) has a one-sided limit.

``log(x)*log(1 - x)`` was NaN at x = 1 (log(1) = 0 times log(0) = -inf) where it tends
to 0, and its derivative ``log1p(-x)/x - log(x)/(1 - x)`` was NaN there (0/0 - inf)
where it tends to -inf. Such a point is a simple rational root of a logarithm's
polynomial argument (of 1 + u for ``log1p(u)``): the formula is real on one side of it
only, so the limit from that side is its value there, finite or infinite.
``formula._remove_removable_singularities`` takes the limits at the points found here;
0 itself is handled there already (two-sided, x*log(x) at 0).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import log1p

#: at most this many edges per expression (each costs a SymPy limit)
_MAX_EDGES = 4


def _argument(node: sp.Expr) -> sp.Expr | None:
    """The expression whose positivity is node's domain, for log and log1p nodes."""
    if isinstance(node, sp.log):
        return node.args[0]
    if isinstance(node, log1p):
        return 1 + node.args[0]
    return None


def log_edge_points(expr: sp.Expr, var: sp.Symbol) -> list[tuple[sp.Rational, str]]:
    """(point, side) for each nonzero simple rational root of a logarithm's polynomial
    argument (degree <= 2, numeric coefficients) in expr; side is "+" or "-", the side
    where the argument is positive (the limit's direction)."""
    found: list[tuple[sp.Rational, str]] = []
    for node in sp.preorder_traversal(expr):
        arg = _argument(node)
        if arg is None or arg.free_symbols != {var}:
            continue
        try:
            poly = sp.Poly(sp.expand(arg), var)
        except sp.PolynomialError:
            continue
        if poly.degree() > 2 or not all(c.is_Rational for c in poly.all_coeffs()):
            continue
        slope = poly.diff(var)
        for r in sp.roots(poly, filter="Q"):
            s = slope.eval(r)
            if r.is_zero or s == 0 or any(p == r for p, _ in found):
                continue
            found.append((r, "+" if s > 0 else "-"))
            if len(found) >= _MAX_EDGES:
                return found
    return found
