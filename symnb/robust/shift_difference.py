"""Differences ``g(x + h) - g(x)`` with a small constant shift h, as Taylor series in h.

A difference quotient typed as such, ``(erf(x + d) - erf(x))/d`` with d = 1e-8, is
0 in float32 wherever x + d rounds to x (|x| > 0.1: 0 for 0.415 at x = 1), and in
float64 keeps only about 8 of its digits (and is 0 from x = -5, where it is 1.6e-11).
The two terms agree to the relative size of h, so no ordering of the subtraction
helps. The difference is h g'(x) + h**2/2 g''(x) + ...: computed from the series the
terms never cancel, and its truncation (h**n g^(n)(x)/n!) is far below the rounding
while |h| is small against the scale on which g changes.

:func:`candidates` finds, in every sum of the form, pairs of terms ``G(x + s)`` and
``-G(x)`` (or of any subexpression u of x in place of x) where the shift s is a constant (h, -h or 2h: forward, backward and
central differences) and offers the form with the pair replaced by its series, where
|h| < :data:`MAX_SHIFT` (a condition on the constant alone: it holds for every value
training gives it below there). The engine measures each candidate against mpmath
as it does the Taylor branches, so the series is kept only where it is more
accurate.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from symnb.robust import measure
from symnb.robust.infinity import far_points

#: Largest |h| for which the series replaces the difference.
MAX_SHIFT = 1e-3

#: Terms of the series: truncation about (h*scale)**TERMS relative, 1e-12 at h = 1e-3.
TERMS = 4

#: Operations above which a term's derivatives are not taken (their size grows).
MAX_OPERATIONS = 60


def _shifts(params: tuple, values: tuple) -> list[tuple[sp.Expr, sp.Symbol]]:
    """(s, h) pairs: shifts s in h, -h, 2h, -2h for each constant h whose analysed
    value is small and not 0."""
    out = []
    for p, v in zip(params, values):
        if 0 < abs(float(v)) < MAX_SHIFT:
            out += [(k * p, p) for k in (1, -1, 2, -2)]
    return out


def _series(g: sp.Expr, w: sp.Symbol, at: sp.Expr, s: sp.Expr) -> sp.Expr:
    """sum_{k=1..TERMS} s**k/k! g^(k)(at), g a function of w: g(at + s) - g(at)
    without cancellation."""
    from symnb.formula.stability import stabilize_derivative

    out, d = sp.S.Zero, g
    for k in range(1, TERMS + 1):
        # the formula layer's derivative spellings: tanh' as 1/cosh**2, not the
        # 1 - tanh**2 that cancels (1e-3 relative off at tanh(-6.6) in float32)
        d = stabilize_derivative(sp.diff(d, w))
        out += s**k / math.factorial(k) * d.xreplace({w: at})
    return out


def _where_they_differ(a: sp.Expr, b: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """The one pair of subexpressions at which the trees a and b differ (the whole
    of both where they differ in more than one argument); None where a == b."""
    if a == b:
        return None
    if a.func != b.func or len(a.args) != len(b.args) or not a.args:
        return a, b
    pairs = [(x, y) for x, y in zip(a.args, b.args) if x != y]
    if len(pairs) != 1:
        return a, b
    return _where_they_differ(*pairs[0])


def _mend_sum(
    e: sp.Add, var: sp.Symbol, shifts: list
) -> tuple[sp.Expr, sp.Symbol] | None:
    """``e`` with its first pair G(u + s), -G(u) replaced by the series (u any
    subexpression of x: the argument of tanh(c x + x + h) - tanh(c x + x)), and h."""
    terms = list(e.args)
    w = sp.Dummy("w", real=True)
    for i, j in itertools.permutations(range(len(terms)), 2):
        base = -terms[j]
        if not base.has(var) or sp.count_ops(base) > MAX_OPERATIONS:
            continue
        spot = _where_they_differ(terms[i], base)
        if spot is None or not spot[1].has(var):
            continue
        for s, h in shifts:
            if not spot[0].has(h) or sp.expand(spot[0] - spot[1] - s) != 0:
                continue
            g = base.xreplace({spot[1]: w})
            if g.xreplace({w: spot[0]}) != terms[i]:
                continue  # u also appears where it is not shifted
            rest = [t for k, t in enumerate(terms) if k not in (i, j)]
            return sp.Add(*rest, _series(g, w, spot[1], s)), h
    return None


def _reach(
    series: sp.Expr,
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    dtype: str,
) -> float | None:
    """The smallest |x| (of +-2**(k/2)) where the series is not finite in ``dtype``
    while ``expr`` is (erf's series x**3*exp(-x**2) is inf*0 from |x| = 6.6e12 in
    float32, where the difference is 0); None where it is finite everywhere."""
    mags = far_points(dtype, 1)
    mags = mags[mags >= 1]
    xs = np.concatenate([mags, -mags])
    got = [
        measure.evaluate(e, (var,), params, values, (xs,), dtype)
        for e in (series, expr)
    ]
    if any(g is None for g in got):
        return 0.0
    worse = ~np.isfinite(got[0]) & np.isfinite(got[1])
    return float(np.abs(xs[worse]).min()) if worse.any() else None


def candidates(
    expr: sp.Expr, var: sp.Symbol, params: tuple, values: tuple, dtype: str
) -> list[tuple[str, str, sp.Expr]]:
    """Regime candidates (name, note, form): ``expr`` with each difference of shifted
    terms replaced by its series in the shift while the shift is small (and the
    series finite: :func:`_reach`)."""
    shifts = _shifts(params, values)
    if not shifts:
        return []
    found: dict[sp.Symbol, None] = {}

    def mend(e):
        got = _mend_sum(e, var, shifts)
        if got is None:
            return e
        found[got[1]] = None
        return got[0]

    try:
        series = expr.replace(lambda e: isinstance(e, sp.Add), mend)
    except Exception:  # noqa: BLE001 - no series this way: no candidate
        return []
    if not found or series == expr:
        return []
    reach = _reach(series, expr, var, params, values, dtype)
    if reach is not None:
        if reach < 1:
            return []
        near = sp.Abs(var) < sp.Float(reach, 17)
        series = sp.Piecewise((series, near), (expr, True))
    # the constants' condition apart from x's (NumPy's select cannot mix the two)
    small = sp.And(*[sp.Abs(h) < MAX_SHIFT for h in found])
    note = (
        "a difference g(x + h) - g(x) with a small constant h is computed from its "
        "Taylor series in h, so the two terms do not cancel"
    )
    return [("shift_difference", note, sp.Piecewise((series, small), (expr, True)))]


__all__ = ["MAX_SHIFT", "TERMS", "candidates"]
