"""A difference of two sigmoids as a product that does not cancel.

The cumulative-link (ordinal logistic) likelihood of a class between thresholds t1 and
t2 is ``-log(sigmoid(t2 - x) - sigmoid(t1 - x))``. Far from the thresholds both
sigmoids round to 1 (or 0) and their difference to 0: with t2 - t1 = 1e-4 it was inf
from x = -17 in float32 (-37 in float64) where it is 9.2 + |x|. Exactly,

    sigmoid(a) - sigmoid(b) = -sigmoid(a) sigmoid(-b) expm1(b - a),

a product of factors that each keep their precision (b - a is the thresholds' gap when
both are shifts of x), and its log is ``logsigmoid(a) + logsigmoid(-b) +
log(-expm1(b - a))`` where the difference is positive. Where b = -a the difference is
``tanh(a/2)`` (the product's expm1 overflows where its sigmoids underflow), and a sum
of two terms with common sigmoid factors (f' of a sigmoid surrogate) is factored first
so that the difference left inside is found.
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
        return _common_factor_out(e, var)
    c, a, b, rest = found
    if (a + b).is_zero:
        # sigmoid(a) - sigmoid(-a) = tanh(a/2): bounded where the product's expm1
        # overflows as its sigmoids underflow (inf*0)
        return sp.Add(c * sp.tanh(a / 2), *rest)
    product = -sigmoid(a) * sigmoid(-b) * expm1(b - a)
    return sp.Add(c * product, *rest)


def _common_factor_out(e: sp.Add, var: sp.Symbol) -> sp.Expr:
    """``k*s1**m*s2**n*(s1 - s2)`` for a sum of two terms with common sigmoid factors
    (f' of the sigmoid surrogate k*sigmoid(k x)*(1 - sigmoid(k x)) is k**2 times
    sigmoid(-u)**2*sigmoid(u) - sigmoid(-u)*sigmoid(u)**2): the difference of the
    sigmoids left inside cancels near u = 0 (5e-5 off at x = -1e-4 in float32) where
    its product form does not; ``e`` itself where no such pair is left."""
    if len(e.args) != 2 or not e.has(sigmoid):
        return e
    common = sp.gcd_terms(e, fraction=False)
    if not isinstance(common, sp.Mul):
        return e
    inner = [f for f in common.args if isinstance(f, sp.Add)]
    if len(inner) != 1 or _pair(inner[0], var) is None:
        return e
    outer = common / inner[0]
    return outer * _as_product(inner[0], var)


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
