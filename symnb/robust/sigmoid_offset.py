"""A constant plus a multiple of a sigmoid, as its midpoint plus a multiple of tanh.

A sigmoid rescaled to a range, ``lo + (hi - lo)*sigmoid(u)`` (a soft clamp, or
``lo + (hi - lo)*(tanh(x) + 1)/2`` as typed, which the front end reads as a sigmoid of
2x), cancels where the sum crosses 0: with lo = -1e8 and hi = 1e8 it was -4640 for
-4641.6 at x = -4.6e-5 in float32 (100008 for 99999.97 at x = 1e-3). Exactly,

    c + k*sigmoid(u) = (c + k/2) + (k/2)*tanh(u/2),

and the constant c + k/2 is expanded over the constants (c0/2 + c1/2 for the range
above), so a symmetric range leaves no constant to cancel against: the rule then
holds for every x, and the sum still crosses 0 elsewhere for any other range. Sums
of numbers that cannot cross 0 (``1 + sigmoid(u)``) are left as they are.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import sigmoid
from symnb.robust.traversal import bottom_up


def _sigmoid_term(t: sp.Expr, var: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """(k, u) of k*sigmoid(u) with k free of var and u depending on it, else None."""
    k, found = sp.S.One, None
    for f in sp.Mul.make_args(t):
        if isinstance(f, sigmoid) and found is None and var in f.free_symbols:
            found = f
        elif var in f.free_symbols:
            return None
        else:
            k *= f
    return None if found is None else (k, found.args[0])


def _offset(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    constants = [t for t in e.args if var not in t.free_symbols]
    terms = [(t, _sigmoid_term(t, var)) for t in e.args if var in t.free_symbols]
    scaled = [(t, p) for t, p in terms if p is not None]
    if not constants or len(scaled) != 1:
        return e
    (term, (k, u)) = scaled[0]
    c = sp.Add(*constants)
    if c.is_number and k.is_number and not 0 < -c / k < 1:
        # numbers that never cross 0 (1 + sigmoid(u) in Logish): nothing cancels
        return e
    rest = [t for t, _ in terms if t is not term]
    middle = sp.expand(c + k / 2)
    return sp.Add(middle, k / 2 * sp.tanh(u / 2), *rest)


def sigmoid_offset(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c + k*sigmoid(u)`` (c, k free of x) as ``(c + k/2) + (k/2)*tanh(u/2)``."""
    return bottom_up(expr, lambda e: _offset(e, var), conditions=False)
