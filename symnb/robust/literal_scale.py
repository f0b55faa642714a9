"""A number typed as the scale of x (``expm1(1e8*x)/(1e8*x)``) read as a constant's symbol.

The Taylor branch in u = c*x (``scaled_argument``) takes c as a learnable constant's
symbol; the same scale typed as a literal (1e8) is folded by SymPy into the form's
numbers (1e8 in ``exp(1e8*x)``, 1e-8 in front), and the Taylor polynomial in x has
coefficients 1e8**k: inf in float32 from k = 5, so no branch in x was good and the f'
of ``expm1(1e8*x)/(1e8*x)`` was 0 for 5e7 at x = 1e-12 in float32 (1e-20: 2.5e-4
relative off in float64). Here each such literal k becomes a symbol c, the numbers
that are its powers (k**-1 = 1e-8) c's powers, so ``scaled_argument`` sees c**n * g(c*x).
"""

from __future__ import annotations

import math

import sympy as sp

#: A literal is a scale when |log10 |k|| is at least this (1e3 and 1e-3 onward).
SMALLEST_DECADES = 3.0

#: Powers of the scale recognised among the form's numbers.
POWERS = (-4, -3, -2, -1, 2, 3, 4)

#: Relative difference within which a number is taken as a power of the scale.
MATCH = 1e-12


def literal_scales(expr: sp.Expr, var: sp.Symbol) -> list[sp.Float]:
    """The numbers that multiply ``var`` directly (``1e8*x``), far from 1."""
    found = []
    for node in sp.preorder_traversal(expr):
        if not isinstance(node, sp.Mul) or var not in node.args:
            continue
        k = node.as_coeff_Mul()[0]
        if not isinstance(k, sp.Float) or k == 0 or k in found:
            continue
        if abs(math.log10(abs(float(k)))) >= SMALLEST_DECADES:
            found.append(k)
    return found


def with_scale_symbol(expr: sp.Expr, k: sp.Float, c: sp.Symbol) -> sp.Expr:
    """``expr`` with the number k, and every number that is a power of it, as c's."""
    kv = float(k)

    def power_of(f: float) -> int | None:
        if f == kv:
            return 1
        for n in POWERS:
            try:
                p = kv**n
            except OverflowError:
                continue
            if p != 0 and math.isfinite(p) and abs(f / p - 1.0) <= MATCH:
                return n
        return None

    rule = {}
    for node in expr.atoms(sp.Float):
        for sign in (1, -1):
            n = power_of(sign * float(node))
            if n is not None:
                rule[node] = sign * c**n
    return expr.xreplace(rule)
