"""A difference of two softplus terms whose arguments differ by a constant, without
the cancellation.

The soft clipping activation (Klimek and Perelstein 2020) is
``log((1 + exp(a x))/(1 + exp(a (x - 1))))/a`` = ``(softplus(a x) - softplus(a x -
a))/a``. With a small (1e-8) both softplus terms are about log 2 and their difference
(about a/2) is lost: 0 for 0.4999975 at x = -1000 in float32, 1e-6 relative off in
float64. Exactly, for d = u - v,

    softplus(u) - softplus(v) = log1p(expm1(d) * sigmoid(v))      (d > 0)
                              = -log1p(expm1(-d) * sigmoid(u))    (d < 0),

where the argument of log1p is at least 0 and each factor keeps its precision. Where
d is a constant (not a function of x), the form is chosen by its sign in a branch the
kernel decides once per call. Beyond |d| = 64 expm1(d) nears float32 overflow, and
the difference is d + log1p(expm1(-d) sigmoid(-v)) where v >= 0 and
softplus(d + logsigmoid(v)) (expm1(d) = exp(d) to 1e-27) where v < 0: the written
difference was 0.96 for 1 at a = 100, x = 1e6 in float32 (u - d rounds), 0 for 1 at
x = 1e300 in float64. A softplus is also found as
``log(1 + exp(u))``, ``-logsigmoid(-u)`` and in the log of a product of such factors
(``log((1 + exp(u)) * sigmoid(-v))``), as the log-typed soft clipping is read, and as
``log1p(exp(u))`` or ``log1p(sigmoid(u)/sigmoid(-u))`` (``log(1 + exp(logit(p)))``).

The odd part, ``softplus(u) - softplus(-u)`` (``logit(expit(u))`` is read as
``logsigmoid(u) - logsigmoid(-u)``), is ``u`` exactly for any u: at u = 1e-8 x both
terms are about -log 2 and the typed difference lost it (0 for x = 1 in float32 in
``logit(expit(1e-8 x))/1e-8``, 5e-9 relative off in float64).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import expm1, log1p, logsigmoid, sigmoid, softplus
from symnb.robust.traversal import bottom_up as _bottom_up

#: Beyond this |d| expm1(d) nears float32 overflow (88.7) and the difference no longer
#: cancels; the written difference is kept there.
LARGEST_GAP = 64


def _log_parts(arg: sp.Expr, var: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """``log(arg)`` as [(k, u), ...] meaning sum k*softplus(u), else None."""
    if isinstance(arg, sigmoid):
        return [(sp.S.NegativeOne, -arg.args[0])]
    if isinstance(arg, sp.Add) and len(arg.args) == 2 and sp.S.One in arg.args:
        other = arg.args[0] if arg.args[1] == 1 else arg.args[1]
        if isinstance(other, sp.exp):
            return [(sp.S.One, other.args[0])]
        return None
    if isinstance(arg, sp.Pow) and arg.exp.is_Integer:
        inner = _log_parts(arg.base, var)
        return None if inner is None else [(arg.exp * k, u) for k, u in inner]
    if isinstance(arg, sp.Mul):
        out = []
        for factor in arg.args:
            inner = _log_parts(factor, var)
            if inner is None:
                return None
            out += inner
        return out
    return None


def _exp_argument(w: sp.Expr) -> sp.Expr | None:
    """u where w is exp(u) or sigmoid(u)/sigmoid(-u) (= exp(u): ``exp(logit(p))``
    is p/(1 - p), read as such a ratio), else None."""
    if isinstance(w, sp.exp):
        return w.args[0]
    if isinstance(w, sp.Mul) and len(w.args) == 2:
        num = [a for a in w.args if isinstance(a, sigmoid)]
        den = [
            a.base
            for a in w.args
            if isinstance(a, sp.Pow) and a.exp == -1 and isinstance(a.base, sigmoid)
        ]
        if len(num) == 1 and len(den) == 1:
            u = num[0].args[0]
            if sp.expand(u + den[0].args[0]) == 0:
                return u
    return None


def _parts(t: sp.Expr, var: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """``t`` as [(k, u), ...] meaning sum k*softplus(u) (k free of x), else None."""
    coeff, rest = t.as_independent(var, as_Add=False)
    if isinstance(rest, softplus):
        found = [(sp.S.One, rest.args[0])]
    elif isinstance(rest, logsigmoid):
        found = [(sp.S.NegativeOne, -rest.args[0])]
    elif isinstance(rest, sp.log):
        found = _log_parts(rest.args[0], var)
    elif isinstance(rest, log1p) and _exp_argument(rest.args[0]) is not None:
        found = [(sp.S.One, _exp_argument(rest.args[0]))]
    else:
        return None
    return None if found is None else [(coeff * k, u) for k, u in found]


def _positive_gap(u: sp.Expr, v: sp.Expr, d: sp.Expr) -> sp.Expr:
    """softplus(u) - softplus(v) for u - v = d > 0, free of x (see the module)."""
    return sp.Piecewise(
        (log1p(expm1(d) * sigmoid(v)), d <= LARGEST_GAP),
        (d + log1p(expm1(-d) * sigmoid(-v)), v >= 0),
        (softplus(d + logsigmoid(v)), True),
    )


def _difference(u: sp.Expr, v: sp.Expr, d: sp.Expr) -> sp.Expr:
    """softplus(u) - softplus(v) for u - v = d, free of x: a branch on d's sign."""
    return sp.Piecewise(
        (_positive_gap(u, v, d), d > 0),
        (-_positive_gap(v, u, -d), d < 0),
        (0, True),
    )


def _rewrite(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, (sp.Add, sp.Mul, sp.log)):
        return e  # a branch's (expression, condition) pair, a condition, a leaf
    terms = e.args if isinstance(e, sp.Add) else (e,)
    parts, kept = [], []
    for t in terms:
        found = _parts(t, var) if var in t.free_symbols else None
        if found is None:
            kept.append(t)
        else:
            parts += found
    if len(parts) < 2:
        return e
    for i, (ki, u) in enumerate(parts):
        for j, (kj, v) in enumerate(parts):
            if i == j or sp.expand(ki + kj) != 0:
                continue
            if ki.could_extract_minus_sign():
                continue  # the pair is taken as k*softplus(u) - k*softplus(v), k > 0
            rest = [
                k * softplus(w) for n, (k, w) in enumerate(parts) if n not in (i, j)
            ]
            if sp.expand(u + v) == 0:
                # the odd part: softplus(u) - softplus(-u) = u exactly (logit(expit(u)))
                return sp.Add(ki * u, *rest, *kept)
            d = sp.expand(u - v)
            if d == 0 or var in d.free_symbols:
                continue
            return sp.Add(ki * _difference(u, v, d), *rest, *kept)
    return e


def softplus_difference(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``k*softplus(u) - k*softplus(v)`` with ``u - v`` free of x as ``k`` times a
    log1p of expm1 and a sigmoid (see the module); ``expr`` itself where there is no
    such pair (as after this rewrite: its branches hold no softplus pair)."""
    return _bottom_up(expr, lambda e: _rewrite(e, var), conditions=False)
