"""Regimes: branches that hold only in part of the input range, thresholds by measurement.

* :func:`taylor_candidates` - at every real zero x0 of a polynomial denominator (removable
  singularities such as ``pi*sin(x - pi)/(x - pi)`` and the cancellation around them, as in
  the derivative of ``sin(x)/x``): the Taylor polynomial at x0 where ``|x - x0| < r``.
* :func:`asymptotic_candidates` - where direct evaluation overflows at large ``|x|``: the
  asymptote (the limit, or ``a*x + b`` from two limits) where ``x`` is past a threshold.

Thresholds (r, or the point past which the asymptote is used) are found by measuring both
branches against the reference, on the sample points and then by bisection on the boundary,
separately for each expression and dtype. A branch that depends on the constants is guarded
by their analysed values (``Eq(c0, 1.0)``): with other values at run time the kernel
computes the unrewritten expression, never an asymptote that was not checked.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import mpmath
import numpy as np
import sympy as sp

#: Order of the Taylor polynomials (terms up to (x - x0)**(TAYLOR_ORDER - 1)).
TAYLOR_ORDER = 8

_MAX = float(np.finfo(np.float64).max)

#: Points of the dense grid that checks a branch across its boundary.
DENSE_POINTS = 24

#: Bisection steps when refining a threshold.
BISECTION_STEPS = 12


def _branch(
    branch: sp.Expr, cond, rest: sp.Expr, params: tuple, values: tuple
) -> sp.Expr:
    """``branch`` where ``cond`` holds, else ``rest``; guarded by the constants' values.

    When ``rest`` uses constants, the branch was only measured for their analysed values,
    so it applies only while the constants equal them (a separate, input-free condition:
    NumPy's ``select`` cannot mix scalar and array conditions in one ``And``).
    """
    inner = sp.Piecewise((branch, cond), (rest, True))
    used = (rest.free_symbols | branch.free_symbols) & set(params)
    if not used:
        return inner
    eqs = [sp.Eq(p, sp.Float(values[params.index(p)], 17)) for p in params if p in used]
    return sp.Piecewise((inner, sp.And(*eqs)), (rest, True))


def _main_branch(expr: sp.Expr) -> sp.Expr:
    """expr without Piecewise branches that hold at single points (Eq(x, x0) limits)."""

    def pick(e):
        if isinstance(e, sp.Piecewise):
            rest = [a for a in e.args if not isinstance(a.cond, sp.Eq)]
            if len(rest) == 1 and rest[0].cond == sp.true:
                return rest[0].expr
        return e

    return expr.replace(lambda e: isinstance(e, sp.Piecewise), pick)


def _denominator_roots(expr: sp.Expr, var: sp.Symbol) -> list[sp.Expr]:
    roots: list[sp.Expr] = []
    for node in sp.preorder_traversal(expr):
        if (
            isinstance(node, sp.Pow)
            and node.exp.is_number
            and node.exp.is_negative
            and var in node.base.free_symbols
        ):
            try:
                poly = sp.Poly(node.base, var)
            except sp.PolynomialError:
                # not a polynomial (expm1(x), sin(x)): 0 is the common removable point
                try:
                    at0 = node.base.xreplace({var: sp.Integer(0)})
                except Exception:  # noqa: BLE001 - cannot tell: no root
                    at0 = None
                if at0 is not None and at0.is_zero and sp.Integer(0) not in roots:
                    roots.append(sp.Integer(0))
                continue
            if poly.degree() > 2:
                continue
            for r in sp.roots(poly):
                if r.is_real is not False and r not in roots:
                    roots.append(r)
    return roots


MeasureFn = Callable[[sp.Expr, np.ndarray], np.ndarray]
"""ok-mask of an expression at given points of the variable (reference computed on demand)."""


def _bisect(
    ok_a: Callable, lo: float, hi: float, steps: int = BISECTION_STEPS
) -> float:
    """Boundary between ``lo`` (ok_a false) and ``hi`` (ok_a true), geometric steps."""
    for _ in range(steps):
        mid = math.sqrt(lo) * math.sqrt(hi) if lo > 0 else 0.5 * lo + 0.5 * hi
        if ok_a(mid):
            hi = mid
        else:
            lo = mid
    return hi


def taylor_candidates(
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    ok_at: MeasureFn,
    deadline: float,
    series_of: sp.Expr | None = None,
) -> list[tuple[str, str, sp.Expr]]:
    """Taylor branches around the real zeros of denominators, radius by measurement.

    The polynomial is the series of ``series_of`` (the unrewritten expression, equal to
    ``expr`` and usually much cheaper to expand) when given.
    """
    out = []
    subs = {p: sp.Float(v) for p, v in zip(params, values)}
    body = _main_branch(expr if series_of is None else series_of)
    for x0 in _denominator_roots(body, var):
        if time.perf_counter() > deadline:
            break
        try:
            x0v = float(sp.N(x0.xreplace(subs), 20))
        except (TypeError, ValueError):
            continue
        if not math.isfinite(x0v):
            continue
        try:
            ser = sp.series(body, var, x0, TAYLOR_ORDER).removeO()
        except Exception:  # noqa: BLE001, S112 - no series: no candidate
            continue
        if ser.has(
            sp.oo, -sp.oo, sp.zoo, sp.nan, sp.log, sp.Order
        ) or not ser.is_polynomial(var):
            continue
        scale = max(1.0, abs(x0v))
        dists = scale * 10.0 ** np.arange(-12.0, 0.01, 0.5)
        pts = np.concatenate([x0v + dists, x0v - dists])
        direct_ok = ok_at(expr, pts)
        taylor_ok = ok_at(ser, pts)
        n = dists.size
        d_ok = direct_ok[:n] & direct_ok[n:]
        t_ok = taylor_ok[:n] & taylor_ok[n:]
        if d_ok.all():
            continue
        last_bad = int(np.flatnonzero(~d_ok).max())
        if last_bad + 1 >= n or not t_ok[: last_bad + 2].all():
            continue
        lo, hi = float(dists[last_bad]), float(dists[last_bad + 1])

        def direct_good(d: float, x0v: float = x0v) -> bool:
            return bool(ok_at(expr, np.array([x0v + d, x0v - d])).all())

        r0 = _bisect(direct_good, lo, hi)
        # checked on a dense grid across the boundary; a wider radius if that fails
        cand = None
        for r in (2 * r0, 4 * r0, 8 * r0, r0):
            cond = sp.Abs(var - x0) < sp.Float(r, 17)
            trial = _branch(ser, cond, expr, params, values)
            dense = r * np.geomspace(1e-3, 10.0, DENSE_POINTS)
            if ok_at(trial, np.concatenate([x0v + dense, x0v - dense])).all():
                cand = trial
                break
        if cand is None:
            continue
        out.append(
            (
                "taylor",
                (
                    f"near x = {sp.sstr(x0)} (|x - x0| < {r:.3g}) a Taylor polynomial of "
                    f"degree {TAYLOR_ORDER - 1} replaces a 0/0 or a cancelling difference"
                ),
                cand,
            )
        )
    return out


def _converged(vals: list[float], tol: float = 1e-13) -> bool:
    last = vals[-1]
    return all(
        math.isfinite(v) and abs(v - last) <= tol * max(1.0, abs(last)) for v in vals
    )


def numeric_asymptote(
    ref_at: Callable[[np.ndarray], np.ndarray], var: sp.Symbol, sign: int
) -> sp.Expr | None:
    """The asymptote c or a*x + b at sign*oo, read off high-precision values far out.

    ``ref_at`` gives reference values (mpmath, 40 digits) at points; the value is taken
    as a constant when it no longer changes from 1e20 to 1e60, as the line through the
    values at 1e11 and 1e12 (slope rounded to a float64) when that line also matches the
    values at 1e8 to 1e10.
    """
    far = sign * 10.0 ** np.array([20.0, 30.0, 45.0, 60.0])
    v = [float(t) for t in ref_at(far)]
    if _converged(v):
        return sp.Float(v[-1], 17)
    mid = sign * 10.0 ** np.array([8.0, 9.0, 10.0, 11.0, 12.0])
    vm = ref_at(mid, exact=True)
    if vm is None or any(not mpmath.isfinite(t) for t in vm):
        return None
    with mpmath.workdps(60):
        xm = [mpmath.mpf(float(m)) for m in mid]
        # the line through the two farthest points, checked at the nearer ones
        slope = (vm[-1] - vm[-2]) / (xm[-1] - xm[-2])
        a = float(slope)
        b = float(vm[-1] - mpmath.mpf(a) * xm[-1])
        for t, m in zip(vm[:-2], xm[:-2]):
            pred = mpmath.mpf(a) * m + b
            if abs(t - pred) > 1e-6 * max(1.0, abs(b)) + 1e-12 * abs(t):
                return None
    return sp.Float(a, 17) * var + sp.Float(b, 17)


def asymptotic_candidates(
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    x: np.ndarray,
    bad: np.ndarray,
    ok_at: MeasureFn,
    ref_at: Callable,
    deadline: float,
    ok_at_samples: Callable[[sp.Expr], np.ndarray] | None = None,
) -> list[tuple[str, str, sp.Expr]]:
    """Asymptotic branches at +oo / -oo where the sample points there fail.

    ``ok_at_samples(expr)`` is the rule mask at the sample points ``x`` (their
    references are already known); without it they are measured again with ``ok_at``.
    """
    out = []
    for sign, direction in ((1, sp.oo), (-1, -sp.oo)):
        side = (np.sign(x) == sign) & (np.abs(x) >= 1)
        if not (bad & side).any() or time.perf_counter() > deadline:
            continue
        asym = numeric_asymptote(ref_at, var, sign)
        if asym is None:
            continue
        order = np.argsort(np.abs(x[side]), kind="stable")
        xs = np.abs(x[side])[order]
        if ok_at_samples is not None:
            d_ok = ok_at_samples(expr)[side][order]
            a_ok = ok_at_samples(asym)[side][order]
        else:
            d_ok = ok_at(expr, sign * xs)
            a_ok = ok_at(asym, sign * xs)
        # one split: direct up to |x| = xs[i], the asymptote beyond; the best split wins
        n = xs.size
        score = [int(d_ok[:i].sum() + a_ok[i:].sum()) for i in range(n + 1)]
        best = max(score)
        if best < n:  # neither form is good on one side of every split
            continue
        # the latest best split: the asymptote only where the direct formula fails
        i = n - score[::-1].index(best)
        if i == n:
            continue
        lo = float(xs[i - 1]) if i > 0 else 1.0
        hi = float(xs[i])

        def asym_good(t: float, asym=asym, sign=sign) -> bool:
            return bool(ok_at(asym, np.array([sign * t])).all())

        def direct_bad(t: float, sign=sign) -> bool:
            return not bool(ok_at(expr, np.array([sign * t])).all())

        # bisection for where the direct formula starts failing; the asymptote from there
        t = _bisect(direct_bad, lo, hi) if i > 0 and not direct_bad(lo) else hi
        if not asym_good(t):
            t = hi
        cand = None
        for t_try in (t, 2 * t, 8 * t, 64 * t):
            if not math.isfinite(t_try) or t_try > _MAX:
                break
            cond_x = (
                var >= sp.Float(t_try, 17) if sign > 0 else var <= sp.Float(-t_try, 17)
            )
            trial = _branch(asym, cond_x, expr, params, values)
            with np.errstate(over="ignore"):
                dense = sign * t_try * np.geomspace(0.2, 1e3, DENSE_POINTS)
            if ok_at(trial, dense).all():
                cand, t = trial, t_try
                break
        if cand is None:
            continue
        where = f"x >= {t:.4g}" if sign > 0 else f"x <= {-t:.4g}"
        out.append(
            (
                "asymptote",
                (
                    f"for {where} its asymptote {sp.sstr(asym)} is used (the direct formula "
                    "overflows there)"
                ),
                cand,
            )
        )
    return out


__all__ = ["asymptotic_candidates", "taylor_candidates"]
