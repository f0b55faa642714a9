"""A difference of two sigmoids as a product that does not cancel.

The cumulative-link (ordinal logistic) likelihood of a class between thresholds t1 and
t2 is ``-log(sigmoid(t2 - x) - sigmoid(t1 - x))``. Far from the thresholds both
sigmoids round to 1 (or 0) and their difference to 0: with t2 - t1 = 1e-4 it was inf
from x = -17 in float32 (-37 in float64) where it is 9.2 + |x|. Exactly,

    sigmoid(a) - sigmoid(b) = -sigmoid(a) sigmoid(-b) expm1(b - a),

a product of factors that each keep their precision (b - a is the thresholds' gap when
both are shifts of x), and its log is ``logsigmoid(a) + logsigmoid(-b) +
log(-expm1(b - a))`` where the difference is positive.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import expm1, logsigmoid, sigmoid
from symnb.robust.traversal import bottom_up as _bottom_up


def _sigmoid_term(t: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(coefficient, argument) of c*sigmoid(u) (one sigmoid factor), else None."""
    if isinstance(t, sigmoid):
        return sp.S.One, t.args[0]
    if isinstance(t, sp.Mul):
        found = [f for f in t.args if isinstance(f, sigmoid)]
        if len(found) == 1:
            return t / found[0], found[0].args[0]
    return None


def _pair(e: sp.Add, var: sp.Symbol):
    """(c, a, b, the other terms) for e = c*sigmoid(a) - c*sigmoid(b) + rest."""
    terms = list(e.args)
    parts = [_sigmoid_term(t) for t in terms]
    for i, pi in enumerate(parts):
        for j, pj in enumerate(parts):
            if i == j or pi is None or pj is None:
                continue
            (ci, a), (cj, b) = pi, pj
            # the term of coefficient 1 (or one without a minus sign) is sigmoid(a)
            if (
                ci == -cj
                and (ci == 1 or ci.could_extract_minus_sign() is False)
                and var in a.free_symbols
            ):
                rest = [t for k, t in enumerate(terms) if k not in (i, j)]
                return ci, a, b, rest
    return None


def _as_product(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    found = _pair(e, var)
    if found is None:
        return e
    c, a, b, rest = found
    product = -sigmoid(a) * sigmoid(-b) * expm1(b - a)
    return sp.Add(c * product, *rest)


def _log_of_difference(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not (isinstance(e, sp.log) and isinstance(e.args[0], sp.Add)):
        return e
    found = _pair(e.args[0], var)
    if found is None or found[0] != 1 or found[3]:
        return e
    _, a, b, _ = found
    return logsigmoid(a) + logsigmoid(-b) + sp.log(-expm1(b - a))


def sigmoid_difference(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c*sigmoid(a) - c*sigmoid(b)`` as ``-c sigmoid(a) sigmoid(-b) expm1(b - a)``,
    and the log of a difference as a sum of log-sigmoids (see the module)."""
    logs = _bottom_up(expr, lambda e: _log_of_difference(e, var))
    return _bottom_up(logs, lambda e: _as_product(e, var))
