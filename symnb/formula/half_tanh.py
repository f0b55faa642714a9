"""``expm1(v)*sigmoid(-v)`` (what ``(exp(v) - 1)/(exp(v) + 1)`` becomes once its
numerator is expm1 and its denominator a sigmoid) as ``tanh(v/2)``, exactly.

The bipolar sigmoid ``(1 - exp(-k*x))/(1 + exp(-k*x))`` with k = 1e8 was NaN for
every x < -9e-7 in float32 (x < -7.1e-6 in float64), f and f': the stable spellings
of its parts, -expm1(-k*x) and sigmoid(k*x), are inf and 0 there, and their product
0*inf. The robustness stage looks for an asymptote only past |x| = 1, where a large
k had moved the overflow long before. ``(e^v - 1)/(e^v + 1) = tanh(v/2)`` for every
real v: one bounded function, finite wherever its argument is.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import expm1, sigmoid


def expm1_sigmoid_as_tanh(e: sp.Expr, cancels) -> sp.Expr | None:
    """``e`` (a product) with one factor pair ``expm1(v)**p * sigmoid(w)**p`` (w = -v,
    p the same power) replaced by ``tanh(v/2)**p``; None when it holds no such pair.

    ``cancels(a, b)`` says whether a + b == 0 (the caller's bounded check).
    """
    if not isinstance(e, sp.Mul):
        return None
    factors = list(e.args)
    for i, a in enumerate(factors):
        base, p = a.as_base_exp()
        if not isinstance(base, expm1):
            continue
        v = base.args[0]
        for j, b in enumerate(factors):
            s_base, q = b.as_base_exp()
            if j == i or not isinstance(s_base, sigmoid) or q != p:
                continue
            if not cancels(s_base.args[0], v):
                continue
            rest = [f for k, f in enumerate(factors) if k not in (i, j)]
            return sp.Mul(*rest, sp.tanh(v / 2) ** p)
    return None
