"""The log of a weighted mean of exponentials, without its cancellation near 0.

Mellowmax ``log((exp(w*x) + 1)/2)/w`` at w = 1e-8 was -500.68 for -499.999 at
x = -1000 in float32 (every point with |w x| small was off, float64 too): the mean
rounds to about 1 and its log keeps only the rounding error, which 1/w magnifies;
the log-sum-exp form ``softplus(w x) - log 2`` cancels the same way. With weights c_i
that sum to 1 (numbers read as c*exp(0)), exactly

    log(sum c_i exp(u_i)) = log1p(sum c_i expm1(u_i)),

in which nothing cancels while every |u_i| is small; beyond |u_i| = 1 the log-sum-exp
form (``rewrite.log_of``, which does not overflow) is kept, and there the log is far
enough from 0 for its rounding not to matter.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import expm1, log1p
from symnb.robust.traversal import bottom_up


def _mean_log(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    from symnb.robust.rewrite import _exp_terms, log_of

    if not isinstance(e, sp.log):
        return e
    terms = _exp_terms(e.args[0])
    if terms is None or sp.Add(*(c for c, _ in terms)) != 1:
        return e
    moving = [u for _, u in terms if var in u.free_symbols]
    far = log_of(e.args[0])
    if not moving or far is None:
        return e
    near = log1p(sp.Add(*(c * expm1(u) for c, u in terms if u != 0)))
    small = sp.And(*(sp.Abs(u) < 1 for u in moving))
    return sp.Piecewise((near, small), (far, True))


def log_mean_of_exps(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``log(sum c_i exp(u_i))`` with sum c_i = 1 as ``log1p(sum c_i expm1(u_i))``
    where every |u_i| < 1, as a log-sum-exp elsewhere."""
    return bottom_up(expr, lambda e: _mean_log(e, var), conditions=False)
