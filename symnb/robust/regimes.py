"""Regimes: branches that hold only in part of the input range, thresholds by measurement.

* :func:`taylor_candidates` - at every real zero x0 of a polynomial denominator (removable
  singularities such as ``pi*sin(x - pi)/(x - pi)`` and the cancellation around them, as in
  the derivative of ``sin(x)/x``): the Taylor polynomial at x0 where ``|x - x0| < r``.
* :func:`asymptotic_candidates` - where direct evaluation overflows at large ``|x|``: the
  asymptote (the limit, or ``a*x + b`` from two limits) where ``x`` is past a threshold.
* :func:`vanishing_term_candidates` - where terms of a sum are inf*0 at large ``|x|``
  though they vanish there: the sum without them past a threshold.
* :func:`log_form_candidates` - where a factor overflows at large ``|x|`` but the result
  does not (``(exp(x) - 1)/x``): ``sign*exp(log|num| - log|den|)`` past a threshold.

Thresholds (r, or the point past which the asymptote is used) are found by measuring both
branches against the reference, on the sample points and then by bisection on the boundary,
separately for each expression and dtype. A branch that depends on the constants is guarded
by their analysed values (``Eq(c0, 1.0)``): with other values at run time the kernel
computes the unrewritten expression, never an asymptote that was not checked.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from symnb.formula.branches import local_branches
from symnb.formula.budget import cpu_clock
from symnb.robust.rewrite import log_of_polynomial

#: Order of the Taylor polynomials (terms up to (x - x0)**(TAYLOR_ORDER - 1)).
TAYLOR_ORDER = 8

_MAX = float(np.finfo(np.float64).max)

#: Points of the dense grid that checks a branch across its boundary.
DENSE_POINTS = 24

#: Bisection steps when refining a threshold.
BISECTION_STEPS = 12

#: Samples below a split tried for one where the direct formula holds.
_STEPS_DOWN = 8
#: factors of 4 below |x| = 1 searched for where a direct formula that fails at every
#: sample from 1 on still holds (4**-40: 1e-24)
_STEPS_BELOW_ONE = 40
#: inner sums (largest first) tried for terms that vanish at large |x|
_INNER_SUMS = 4
#: farthest failing points at which the terms of a sum are compared by size
_DOMINANCE_POINTS = 6
#: a term this many binary orders below the largest at every one of them is negligible
_NEGLIGIBLE_BITS = 80


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

    def at_a_point(cond) -> bool:
        # Eq(x, 0) & (1/x > 0): a one-sided value at the point (the derivative of a
        # function of |x| at a removable 0: log1p(|x|)/|x|)
        if isinstance(cond, sp.And):
            return any(isinstance(c, sp.Eq) for c in cond.args)
        return isinstance(cond, sp.Eq)

    def pick(e):
        if isinstance(e, sp.Piecewise):
            rest = [a for a in e.args if not at_a_point(a.cond)]
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


@lru_cache(maxsize=128)
def _series(
    body: sp.Expr, var: sp.Symbol, x0: sp.Expr, order: int = TAYLOR_ORDER
) -> sp.Expr:
    """Taylor polynomial of ``body`` at x0 (shared by both dtypes' analyses: slow)."""
    return sp.series(body, var, x0, order).removeO()


_STEPS = (sp.Heaviside, sp.sign, sp.Abs, sp.Max, sp.Min, sp.floor, sp.ceiling)


@lru_cache(maxsize=128)
def _two_sided_series(
    body: sp.Expr, var: sp.Symbol, x0: sp.Expr, subs: tuple
) -> sp.Expr | None:
    """The Taylor polynomial at x0 of an expression with ``sign``/``Abs`` of
    ``var - x0`` that is smooth there all the same, else None.

    ``x0 + t`` and ``x0 - t`` with ``t > 0`` resolve ``sign(x - x0)`` and
    ``|x - x0|``; where the two one-sided series are one polynomial, that is the
    series (Polya's GELU ``0.5*x*(1 + sign(x)*sqrt(1 - exp(-2*x**2/pi)))``: its f'
    divides by ``expm1(-2*x**2/pi)``, 0/0 = NaN where x**2 underflows, and SymPy's
    own series does not expand through ``sign``). Where they differ (a kink at x0: the
    f' of ``log1p(|x|)/|x|`` is -1/2 + 2x/3 right of 0 and 1/2 + 2x/3 left of it, and
    cancels to 0 in float32 for |x| < 1e-8) it is a Piecewise of the two polynomials,
    split at x0 (:func:`series_pieces`)."""
    t = sp.Dummy("t", positive=True)
    sides = []
    for s in (1, -1):
        ser = _series(body.xreplace({var: x0 + s * t}), t, sp.Integer(0))
        if ser.has(sp.sign, sp.Abs, sp.Heaviside) or not ser.is_polynomial(t):
            return None
        sides.append(sp.expand(ser.xreplace({t: s * (var - x0)})))
    gap = sp.expand(sides[0] - sides[1])
    if gap != 0:
        values = dict(subs)
        size = max(
            (abs(float(c.xreplace(values))) for c in sp.Poly(sides[0], var).coeffs()),
            default=0.0,
        )
        gaps = [abs(float(c.xreplace(values))) for c in sp.Poly(gap, var).coeffs()]
        if not all(g <= 1e-12 * size for g in gaps):
            # the right side from +0 on, the left from -0 (1/(+0) = inf), as the
            # derivative's own one-sided values at the point are chosen
            return sp.Piecewise((sides[0], 1 / (var - x0) > 0), (sides[1], True))
    return sides[0]


def series_pieces(ser: sp.Expr) -> list[sp.Expr]:
    """The polynomials of a series: itself, or both sides of a two-sided one."""
    if isinstance(ser, sp.Piecewise):
        return [a.expr for a in ser.args]
    return [ser]


def _each_piece(ser: sp.Expr, fn: Callable[[sp.Expr], sp.Expr]) -> sp.Expr:
    if isinstance(ser, sp.Piecewise):
        return sp.Piecewise(*[(fn(a.expr), a.cond) for a in ser.args])
    return fn(ser)


def _series_of(
    body: sp.Expr,
    antiderivative: sp.Expr | None,
    var: sp.Symbol,
    x0: sp.Expr,
    x0v: float,
    subs: dict,
    order: int = TAYLOR_ORDER,
) -> sp.Expr:
    body = local_branches(body, var, x0v, subs)
    if antiderivative is not None:
        f = local_branches(_main_branch(antiderivative), var, x0v, subs)
        if not f.has(sp.Piecewise, *_STEPS):
            return sp.expand(sp.diff(_series(f, var, x0, order + 1), var))
    if (
        body.has(sp.sign, sp.Abs)
        and not body.has(sp.Piecewise)
        and order == TAYLOR_ORDER
    ):
        try:
            ser = _two_sided_series(body, var, x0, tuple(subs.items()))
        except Exception:  # noqa: BLE001 - no series this way: SymPy's own below
            ser = None
        if ser is not None:
            return ser
    return _series(body, var, x0, order)


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


def _in_powers_of_distance(ser: sp.Expr, var: sp.Symbol, x0: sp.Expr) -> sp.Expr:
    """A polynomial around x0 != 0 as a sum of powers of (x - x0): expanded in powers
    of x it cancels near x0 (the series of tanh(x - 2)/(x - 2) + x's f' at 2 has
    coefficients up to 95 for a value near 1: float32 gave 1 at x = 2.0002 instead
    of 0.99987)."""
    if x0 == 0:
        return ser
    t = sp.Dummy("t")
    try:
        poly = sp.Poly(sp.expand(ser.xreplace({var: t + x0})), t)
    except (sp.PolynomialError, sp.PolificationFailed):
        return ser
    d = var - x0
    return sp.Add(*[c * d ** k[0] for k, c in poly.terms()])


#: log10 of the farthest distance from 0 a Taylor branch of a sum that cancels there
#: may reach (constants as small as 1e-3 scale the cancelling terms' argument)
_CANCELLATION_REACH = 3.0


def _cancels_at_zero(body: sp.Expr, var: sp.Symbol, subs: dict) -> bool:
    """Whether a sum in ``body`` with two or more terms in ``var`` is exactly 0 at
    var = 0 (at the constants' values): ``expm1(a*x) - a*x``, ``x - tanh(x)``."""
    for node in sp.preorder_traversal(body):
        if not isinstance(node, sp.Add):
            continue
        if sum(var in t.free_symbols for t in node.args) < 2:
            continue
        at0 = node.xreplace({var: sp.Integer(0)}).xreplace(subs)
        if at0.is_number and at0.is_zero:
            return True
    return False


def taylor_candidates(
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    ok_at: MeasureFn,
    deadline: float,
    series_of: sp.Expr | None = None,
    antiderivative: sp.Expr | None = None,
) -> list[tuple[str, str, sp.Expr]]:
    """Taylor branches around the real zeros of denominators, radius by measurement.

    The polynomial is the series of ``series_of`` (the unrewritten expression, equal to
    ``expr`` and usually much cheaper to expand) when given; for a derivative, the
    derivative of the series of its ``antiderivative`` (f), when f has no steps or
    kinks (several times cheaper than the series of f' itself; measured like any other).
    """
    out = []
    subs = {p: sp.Float(v) for p, v in zip(params, values)}
    body = _main_branch(expr if series_of is None else series_of)
    centres = _denominator_roots(body, var)
    # a sum cancelling at 0 with no denominator (LINEX's expm1(a*x) - a*x): its
    # cancellation reaches as far as 1/a, past the unit distance the grid ends at
    wider = sp.Integer(0) not in centres and _cancels_at_zero(body, var, subs)
    if wider:
        centres = [*centres, sp.Integer(0)]
    for x0 in centres:
        if cpu_clock() > deadline:
            break
        try:
            x0v = float(sp.N(x0.xreplace(subs), 20))
        except (TypeError, ValueError):
            continue
        if not math.isfinite(x0v):
            continue
        scale = max(1.0, abs(x0v))
        top = _CANCELLATION_REACH if wider and x0v == 0.0 else 0.0
        dists = scale * 10.0 ** np.arange(-12.0, top + 0.01, 0.5)
        n_tiny = 0
        if x0v == 0.0:
            # at 0 the two sides of a 0/0 can underflow together far below 1e-12
            # (x**2/expm1(x)**2, the Einstein function, was NaN from |x| = 1e-30 in
            # float32): the radius search starts at float32's smallest normals, and
            # in float64 far below (x**2 underflows from |x| = 1e-154: sin(x)**2/x**2
            # was NaN from 1e-162)
            tiny = np.concatenate(
                [
                    [1e-320, 1e-310],  # subnormal: erf(x)/x was 1 there
                    10.0 ** np.arange(-300.0, -38.0, 8.0),
                    10.0 ** np.arange(-38.0, -12.0, 2.0),
                ]
            )
            n_tiny = tiny.size
            dists = np.concatenate([tiny, dists])
        pts = np.concatenate([x0v + dists, x0v - dists])
        direct_ok = ok_at(expr, pts)
        n = dists.size
        d_ok = direct_ok[:n] & direct_ok[n:]
        if d_ok.all():
            continue
        last_bad = int(np.flatnonzero(~d_ok).max())
        if last_bad + 1 >= n:
            continue
        # the polynomial must be good past the last distance where the direct form is
        # bad; where TAYLOR_ORDER's is not, a longer one ((tanh(x) - x)/x**3's f' in
        # float32 cancels up to |x| = 0.3, where degree 7 is already 2e-5 off: no
        # Taylor branch was made, f' -1.26 instead of -0.0012 at x = -0.0046)
        chosen = None
        for order in (TAYLOR_ORDER, TAYLOR_ORDER + 4):
            try:
                trial_ser = _series_of(body, antiderivative, var, x0, x0v, subs, order)
            except Exception:  # noqa: BLE001 - no series: no candidate
                break
            if trial_ser.has(
                sp.oo, -sp.oo, sp.zoo, sp.nan, sp.log, sp.Order
            ) or not all(p.is_polynomial(var) for p in series_pieces(trial_ser)):
                break
            trial_ser = _each_piece(
                trial_ser, lambda p, x0=x0: _in_powers_of_distance(p, var, x0)
            )
            taylor_ok = ok_at(trial_ser, pts)
            t_ok = taylor_ok[:n] & taylor_ok[n:]
            if t_ok[: last_bad + 2].all():
                chosen = (trial_ser, t_ok, order)
                break
            if t_ok[: last_bad + 1].all():
                # good up to the last bad distance only: the boundary lies between it
                # and the next, bisected and checked densely below
                chosen = (trial_ser, t_ok, order)
            if cpu_clock() > deadline:
                break
        if chosen is None:
            continue
        ser, t_ok, order = chosen
        lo, hi = float(dists[last_bad]), float(dists[last_bad + 1])

        def direct_good(d: float, x0v: float = x0v) -> bool:
            return bool(ok_at(expr, np.array([x0v + d, x0v - d])).all())

        r0 = _bisect(direct_good, lo, hi)
        # The direct form's error near x0 is rounding noise: it can meet the rule at
        # one point and break it a little further out (sin(x)/x + 0.1*x: f' met it at
        # 0.0098 in float32 and broke it at 0.0215, outside the radius 0.0196). The
        # polynomial's truncation error grows smoothly with the distance, so the
        # widest radius where it is measured within the rule comes first.
        t_good = int(np.argmin(t_ok)) if not t_ok.all() else n
        wide = [
            float(dists[k])
            for k in (t_good - 1, t_good - 2)
            if 0 <= k and dists[k] > r0
        ]
        if not wide and 0 < t_good < n and dists[t_good] > r0:
            # between the grid's distances: the polynomial's own edge, bisected, with
            # a margin ((tanh(x) - x)/x**3's f' in float32: the direct form's noise
            # breaks the rule at 0.35-0.4, past the bisected r0 = 0.34)
            def taylor_bad(d: float, x0v: float = x0v, ser: sp.Expr = ser) -> bool:
                return not ok_at(ser, np.array([x0v + d, x0v - d])).all()

            edge = _bisect(taylor_bad, float(dists[t_good - 1]), float(dists[t_good]))
            if edge / 1.25 > r0:
                wide = [edge / 1.25]
        # checked on a dense grid across the boundary; a narrower radius if that fails
        cand = None
        radii = (2 * r0, 4 * r0, 8 * r0, r0)
        if last_bad < n_tiny:
            # failing only where powers of x underflow: a radius far above that edge,
            # as the fused f-and-f' kernel's shared reciprocals overflow earlier (the
            # Einstein function's 1/expm1(x)**2 is inf in float32 at x = 1e-20)
            radii = (1e-8,) + radii
        for r in (*wide, *radii):
            rf = sp.Float(r, 17)
            cond = sp.Abs(var - x0) < rf
            if expr.has(sp.Abs(var - x0)):
                # |x - x0| in the condition too would become a CSE temporary, and a
                # product of temporaries is ordered by name: Polya GELU's f' then
                # multiplied x*|x| (inf from 1.8e19, float32) before exp(-2x^2/pi)
                # (0) instead of after it, NaN
                cond = sp.And(var - x0 > -rf, var - x0 < rf)
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
                    f"degree {order - 1} replaces a 0/0 or a cancelling difference"
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
    values at 1e8 to 1e10, else the same eight and sixteen decades farther out.
    """
    far = sign * 10.0 ** np.array([20.0, 30.0, 45.0, 60.0])
    v = [float(t) for t in ref_at(far)]
    if _converged(v):
        return sp.Float(v[-1], 17)
    # decades past the constants' scale: sqrt(x**2 + eps**2) - eps with eps = 1e10
    # bends until |x| = 1e13 (its line |x| - eps then read off 1e16 to 1e20; only at
    # 1e8 to 1e12 it found none, and f was inf/inf = NaN from |x| = 1e21 in float32)
    for low in (8.0, 16.0, 24.0):
        line = _line_through(ref_at, var, sign * 10.0 ** (low + np.arange(5.0)))
        if line is not None:
            return line
    return None


def _line_through(ref_at: Callable, var: sp.Symbol, mid: np.ndarray) -> sp.Expr | None:
    """The line through the values at the two farthest of ``mid`` when it matches
    them at the nearer ones too (slope rounded to a float64), else None."""
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


def _tail_regime(
    expr: sp.Expr,
    alt: sp.Expr,
    sign: int,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    x: np.ndarray,
    ok_at: MeasureFn,
    ok_at_samples: Callable[[sp.Expr], np.ndarray] | None,
    exact: bool = False,
) -> tuple[sp.Expr, str] | None:
    """``alt`` for sign*x >= t, ``expr`` before, and "x >= t": t by measurement.

    ``exact``: alt equals expr for every value of the constants, so the branch is
    not limited to their analysed values.

    One split of the sample points on that side (|x| >= 1): ``expr`` up to it, ``alt``
    beyond, every point within the rule; the boundary is refined by bisection to where
    ``expr`` starts failing and checked on a dense grid past it.
    """
    side = (np.sign(x) == sign) & (np.abs(x) >= 1)
    order = np.argsort(np.abs(x[side]), kind="stable")
    xs = np.abs(x[side])[order]
    if ok_at_samples is not None:
        d_ok = ok_at_samples(expr)[side][order]
        a_ok = ok_at_samples(alt)[side][order]
    else:
        d_ok = ok_at(expr, sign * xs)
        a_ok = ok_at(alt, sign * xs)
    # one split: direct up to |x| = xs[i], the alternative beyond; the best split wins
    n = xs.size
    score = [int(d_ok[:i].sum() + a_ok[i:].sum()) for i in range(n + 1)]
    best = max(score)
    if best < n:  # neither form is good on one side of every split
        return None
    # the latest best split: the alternative only where the direct formula fails
    i = n - score[::-1].index(best)
    if i == n:
        return None
    lo = float(xs[i - 1]) if i > 0 else 1.0
    hi = float(xs[i])

    def alt_good(t: float) -> bool:
        return bool(ok_at(alt, np.array([sign * t])).all())

    def direct_bad(t: float) -> bool:
        return not bool(ok_at(expr, np.array([sign * t])).all())

    # the last sample below the split where the direct formula holds in this dtype:
    # a sample the dtype cannot hold counts as ok (1/(1 + expm1(exp(-x))^2)' in
    # float32: the split's lower neighbour was a float64 point, itself NaN once
    # rounded; bisecting from there, the branch started past failures, f' stayed NaN)
    j = i - 1
    while j >= max(0, i - _STEPS_DOWN) and direct_bad(float(xs[j])):
        j -= 1
    if j < i - 1:
        lo = float(xs[j]) if j >= 0 else 1.0
    # bisection for where the direct formula starts failing; the alternative from there
    t = _bisect(direct_bad, lo, hi) if i > 0 and not direct_bad(lo) else hi
    if not alt_good(t):
        t = hi
    below_t_bad = False
    for t_try in (t, 2 * t, 8 * t, 64 * t):
        if not math.isfinite(t_try) or t_try > _MAX:
            break
        found = _tail_trial(alt, expr, sign, var, params, values, ok_at, t_try, exact)
        if found[0] is not None:
            return found
        below_t_bad |= t_try == t and found[1]
    if below_t_bad:
        # the direct formula failed below the bisected threshold: its failures need
        # not start at one point (x*tanh(erf(0.5*x*cos(x)))' is inf*0 past x = 1.8e19
        # in float32 where x**2 overflows, but not where cos(x) is small; the
        # bisection stopped at 3.7e19 with failures below it, f' stayed NaN). The
        # last sample the direct formula met the rule at, then.
        found = _tail_trial(alt, expr, sign, var, params, values, ok_at, lo, exact)
        if found[0] is not None:
            return found
    if i == 0 and direct_bad(lo):
        return _tail_below_one(alt, expr, sign, var, params, values, ok_at, exact)
    return None


def _tail_below_one(alt, expr, sign, var, params, values, ok_at, exact):
    """The tail regime of :func:`_tail_regime` when the direct formula fails at every
    sample from |x| = 1 on: its failures start below 1, where a large constant scales
    x (``x*sigmoid(cosh(1000*x))``' is 0*inf = NaN from |x| = 0.71, where cosh(1000 x)
    overflows; its asymptote 1 holds from there). The threshold is found below 1 (down
    by factors of 4 to the last point where the direct formula holds, then bisected),
    and the same dense-grid trial decides."""

    def direct_bad(t: float) -> bool:
        return not bool(ok_at(expr, np.array([sign * t])).all())

    good = 1.0
    for _ in range(_STEPS_BELOW_ONE):
        good /= 4.0
        if not direct_bad(good):
            break
    else:
        return None
    t = _bisect(direct_bad, good, 4.0 * good)
    if not bool(ok_at(alt, np.array([sign * t])).all()):
        return None
    for t_try in (t, 2 * t, 8 * t):
        found = _tail_trial(alt, expr, sign, var, params, values, ok_at, t_try, exact)
        if found[0] is not None:
            return found
    return None


def _tail_trial(alt, expr, sign, var, params, values, ok_at, t_try, exact=False):
    """(trial, "x >= t") when alt past t_try and expr before meet the rule on a dense
    grid across t_try, else (None, whether it failed below t_try)."""
    cond_x = var >= sp.Float(t_try, 17) if sign > 0 else var <= sp.Float(-t_try, 17)
    if exact:
        trial = sp.Piecewise((alt, cond_x), (expr, True))
    else:
        trial = _branch(alt, cond_x, expr, params, values)
    factors = np.geomspace(0.2, 1e3, DENSE_POINTS)
    with np.errstate(over="ignore"):
        dense = sign * t_try * factors
    ok = ok_at(trial, dense)
    if ok.all():
        where = f"x >= {t_try:.4g}" if sign > 0 else f"x <= {-t_try:.4g}"
        return trial, where
    return None, bool((~ok & (factors < 1)).any())


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
    """Asymptotic branches at +oo / -oo where the sample points there fail: a constant
    or a line (:func:`numeric_asymptote`), else a rational function's form for large
    ``|x|`` (:func:`rational_tail`).

    ``ok_at_samples(expr)`` is the rule mask at the sample points ``x`` (their
    references are already known); without it they are measured again with ``ok_at``.
    """

    subs = dict(zip(params, (sp.Float(v, 17) for v in values)))

    def make(sign: int, pts: np.ndarray):
        # a rational function in constants: its own form for large |x|, exact for
        # every value of the constants (an asymptote holds for the analysed ones only)
        alt = (
            symbolic_rational_tail(expr, var, sign, params) if SYMBOLIC_TAILS else None
        )
        if alt is not None:
            return (
                alt,
                (
                    "numerator and denominator are divided by the denominator's "
                    "highest power of x (its powers overflowed before the quotient "
                    "does), for any values of the constants"
                ),
                True,
            )
        asym = numeric_asymptote(ref_at, var, sign)
        if asym is None:
            # no constant or line: a rational function's own form for large |x|
            alt = rational_tail(expr, var, sign, subs)
            if alt is None:
                return None
            return alt, (
                "numerator and denominator are divided by the denominator's leading "
                "term (its powers overflowed before the quotient does)"
            )
        note = f"its asymptote {sp.sstr(asym)} is used (the direct formula overflows there)"
        return asym, note

    tail = (expr, var, params, values, x, bad, ok_at, deadline, ok_at_samples)
    return _tail_candidates("asymptote", make, *tail)


def vanishing_term_candidates(
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    x: np.ndarray,
    bad: np.ndarray,
    ok_at: MeasureFn,
    dtype: str,
    deadline: float,
    ok_at_samples: Callable[[sp.Expr], np.ndarray] | None = None,
) -> list[tuple[str, str, sp.Expr]]:
    """Where a sum's terms are NaN at large ``|x|`` (inf*0, inf/inf) but the whole is
    finite: the sum without them past a measured threshold.

    ``x**c*tanh(x)``' is ``c*x**(c - 1)*tanh(x) + x**c*sech(x)**2``: the second term
    is inf*0 from x = 1e205 (float64, c = 1.5) though it vanishes long before, and
    ``sech(exp(x))``' (one term) is inf/inf from x = 10 where it is 0. Neither tail has
    a constant or linear asymptote, and the reference far out may itself be undefined
    (exp(exp(1e20))), so the asymptote regime finds nothing. The reduced sum (0 when
    every term goes) is kept only where it meets the rule against the reference.
    """
    from symnb.robust import measure

    subs = dict(zip(params, (sp.Float(v, 17) for v in values)))

    def make(sign: int, pts: np.ndarray):
        far = float(pts[np.argmax(np.abs(pts))])
        try:
            branch = _branch_at(_main_branch(expr), var, far, subs)
        except _NoLogForm:
            return None
        terms = sp.Add.make_args(branch)
        keep = _terms_without_nan(terms, pts)
        if len(keep) == len(terms):
            inner = _inner_sum_without_nan(branch, pts)
            return inner if inner is not None else _dominant_terms(terms, pts)
        if not keep and not ok_at(sp.Integer(0), pts).all():
            # every term NaN and the value is not 0 there: a sum inside them may be
            # what goes (a chain rule's factor)
            inner = _inner_sum_without_nan(branch, pts)
            if inner is not None:
                return inner
        note = (
            "the terms that vanish there are left out (each is inf*0 or inf/inf "
            "before the result overflows)"
            if keep
            else "its value 0 is used (the direct formula is inf*0 or inf/inf there)"
        )
        return sp.Add(*keep), note

    def _terms_without_nan(terms, pts):
        keep = []
        for t in terms:
            got = measure.evaluate(t, (var,), params, values, [pts], dtype)
            # NaN only: a term that is inf there may be the result overflowing
            if got is not None and not np.isnan(got).any():
                keep.append(t)
        return keep

    def _inner_sum_without_nan(branch, pts):
        # a sum inside a product (sigmoid(u)' * (A + B), the chain rule's factor):
        # the largest inner sum with NaN-only terms loses them
        sums = sorted(
            (a for a in sp.preorder_traversal(branch) if a.is_Add and a.has(var)),
            key=sp.count_ops,
            reverse=True,
        )
        for node in sums[:_INNER_SUMS]:
            terms = node.args
            keep = _terms_without_nan(terms, pts)
            if keep and len(keep) < len(terms):
                note = (
                    "the terms of an inner sum that vanish there are left out (each "
                    "is inf*0 or inf/inf before the result overflows)"
                )
                alt = branch.xreplace({node: sp.Add(*keep)})
                if _nan_free(alt, pts):
                    return alt, note
        return None

    def _dominant_terms(terms, pts):
        # inf - inf: terms that overflow with opposite signs where one of them is
        # negligible (1e6*x + logsigmoid(x)**2 at x = -3.4e38 in float32: -inf + inf,
        # where x**2 = 1.2e77 is the value); the negligible ones, by their mpmath
        # values at the farthest failing points, are left out
        if len(terms) < 2:
            return None
        far = pts[np.argsort(-np.abs(pts))][:_DOMINANCE_POINTS]
        mags = [measure.log2_magnitudes(t, var, params, values, far) for t in terms]
        if any(m is None for m in mags):
            return None
        top = np.max(mags, axis=0)
        keep = [t for t, m in zip(terms, mags) if (m > top - _NEGLIGIBLE_BITS).any()]
        if len(keep) == len(terms):
            return None
        note = (
            "the terms negligible there are left out (below 2**-80 of the largest; "
            "they overflowed with the opposite sign, inf - inf)"
        )
        alt = sp.Add(*keep)
        return (alt, note) if _nan_free(alt, pts) else None

    def _nan_free(alt, pts):
        # the reduced form must at least be a number at every failing point (2*x*c
        # for 2*x*c/(c*x**2 + 1) at c = 0 is inf*0 at x = 3e38 in float32)
        got = measure.evaluate(alt, (var,), params, values, [pts], dtype)
        return got is not None and not np.isnan(got).any()

    tail = (expr, var, params, values, x, bad, ok_at, deadline, ok_at_samples)
    return _tail_candidates("vanishing_terms", make, *tail)


def _side_of_steps(e: sp.Expr, var: sp.Symbol, sign: int) -> sp.Expr | None:
    """``Abs``/``sign``/``Heaviside`` of polynomials in x resolved for ``sign*x`` large
    (by the sign of their leading term), else None."""

    def side(u: sp.Expr) -> int | None:
        try:
            poly = sp.Poly(u, var)
        except (sp.PolynomialError, sp.PolificationFailed):
            return None
        lc = poly.LC()
        if not lc.is_number or lc == 0:
            return None
        return int(sp.sign(lc)) * (sign ** poly.degree())

    def monomial(node):
        """A step of c*x**k with c free of x (a constant's symbol): c's own step."""
        u = node.args[0]
        c, k = u.as_independent(var, as_Add=False)
        deg = k.as_base_exp()
        if deg[0] != var or not deg[1].is_Integer or deg[1] < 1:
            raise _NoLogForm
        sk = sp.Integer(sign) ** deg[1]
        if isinstance(node, sp.Abs):
            return sp.Abs(c) * (sign * var) ** deg[1]
        if isinstance(node, sp.sign):
            return sp.sign(c) * sk
        return sp.Heaviside(c * sk, *node.args[1:])

    def resolve(node):
        if isinstance(node, (sp.Abs, sp.sign, sp.Heaviside)):
            if var not in node.args[0].free_symbols:
                return node
            s = side(node.args[0])
            if s is None:
                return monomial(node)
            if isinstance(node, sp.Abs):
                return s * node.args[0]
            if isinstance(node, sp.sign):
                return sp.Integer(s)
            return sp.Integer(1 if s > 0 else 0)
        return node

    try:
        return sp.bottom_up(e, resolve)
    except _NoLogForm:
        return None


def _scaled_polynomial(coeffs: dict[int, float], var: sp.Symbol) -> sp.Expr:
    """sum c_k x**k (k of both signs) with the positive powers in Horner form in x and
    the negative ones in Horner form in 1/x: no power overflows before the sum does."""
    pos = sum((sp.Float(c, 17) * var**k for k, c in coeffs.items() if k > 0), sp.S.Zero)
    if pos != 0 and sp.Poly(pos, var).degree() >= 2:
        pos = sp.horner(pos, wrt=var)
    neg = sp.S.Zero
    for k in range(min(coeffs, default=0), 0):
        neg = (neg + sp.Float(coeffs.get(k, 0.0), 17)) / var
    return pos + sp.Float(coeffs.get(0, 0.0), 17) + neg


def _polynomial_quotient(b: sp.Expr, var: sp.Symbol, cancel: bool) -> tuple | None:
    """(P, Q) as polynomials in var with b = P/Q and a degree of at least 2, else None
    (``cancel``: common factors removed first, slow with symbolic coefficients)."""
    try:
        t = sp.together(b)
        num, den = sp.fraction(sp.cancel(t) if cancel else t)
        p, q = sp.Poly(num, var), sp.Poly(den, var)
    except (sp.PolynomialError, sp.PolificationFailed):
        return None
    n, m = p.degree(), q.degree()
    if max(n, m) < 2 or n < 0 or m < 0:
        return None
    return p, q


def rational_tail(
    expr: sp.Expr, var: sp.Symbol, sign: int, subs: dict
) -> sp.Expr | None:
    """A rational function of x (and of |x|, sign(x)) for ``sign*x`` large as
    (P(x)/(b x**m))/(Q(x)/(b x**m)), b x**m the leading term of Q, else None.

    ``(1.19 + 1.60*x + 0.5*x**2 + 0.0865*x**3)/(1 + abs(2.383*x))`` (a rational
    activation): x**3 overflows in float64 from |x| = 1.3e103 where f (about
    0.036*x**2) is finite up to 7e154, and at -1.8e308 the quotient is inf/inf = NaN;
    the derivative of ``x**4/(1 + |x|)``-like quotients is inf - inf. Neither has a
    constant or linear asymptote.
    """
    try:
        b = _branch_at(_main_branch(expr), var, sign * 1e30, subs)
    except _NoLogForm:
        return None
    b = _side_of_steps(b.xreplace(subs), var, sign)
    if b is None or b.free_symbols != {var}:
        return None
    found = _polynomial_quotient(b, var, cancel=True)
    if found is None:
        return None
    p, q = found
    m = q.degree()
    if not all(c.is_number for c in (*p.coeffs(), *q.coeffs())):
        return None
    lead = float(q.LC())
    if lead == 0 or not math.isfinite(lead):
        return None
    top = {k[0] - m: float(c) / lead for k, c in p.terms()}
    bottom = {k[0] - m: float(c) / lead for k, c in q.terms()}
    if not all(math.isfinite(c) for c in (*top.values(), *bottom.values())):
        return None
    return _scaled_polynomial(top, var) / _scaled_polynomial(bottom, var)


def _scaled_symbolic(coeffs: dict, var: sp.Symbol) -> sp.Expr:
    """:func:`_scaled_polynomial` with coefficients that may hold constants."""
    top = max(coeffs, default=0)
    pos = sp.S.Zero
    for k in range(top, 0, -1):
        pos = (pos + coeffs.get(k, 0)) * var
    neg = sp.S.Zero
    for k in range(min(coeffs, default=0), 0):
        neg = (neg + coeffs.get(k, 0)) / var
    return pos + coeffs.get(0, 0) + neg


#: Whether :func:`symbolic_rational_tail` is tried. Its far branches (Horner in 1/x
#: with every constant a symbol, for f and f') computed as selects in the SIMD loop
#: made the PAU 5/4 kernels 9x (forward) and 17x (forward + backward) slower at 1e5
#: elements in float32 (``benchmarks/bench_kernels.py --peers``, 2026-12-05: 254 us
#: against 28.5 us, 1.47 ms against 83 us); they are rare branches now
#: (:mod:`symnb.codegen.rare`: computed only for the elements past the threshold),
#: and the kernels are as fast as without them.
SYMBOLIC_TAILS = True


def symbolic_rational_tail(
    expr: sp.Expr, var: sp.Symbol, sign: int, params: tuple
) -> sp.Expr | None:
    """:func:`rational_tail` with the constants kept as symbols, so it is exact for
    every value of them: a PAU's constants change as it trains, and the numeric tail
    applies only at the analysed values (``(a0 + ... + a3 x**3)/(1 + |b1 x| +
    |b2 x**2|)`` with other constants was NaN from |x| = 1e20 in float32: x**3 and
    x**2 overflow, inf/inf). Numerator and denominator are divided by x**m, m the
    denominator's degree (not by its leading coefficient, which may be 0).

    A quotient that grows (numerator degree n > m) is ``(N/D)*x`` with N the
    numerator divided by x**(m + 1): the numerator's top term alone overflows where
    the quotient does not once its coefficient exceeds 1 (PAU 3/2 with a3 = 2.94,
    b2 = 4.18: 2.94*x is inf from x = 1.2e38 in float32 where f = 0.70*x is finite,
    and the tail, failing there, was not used at all: f NaN from |x| = 1e13)."""
    if not params or not (expr.free_symbols & set(params)):
        return None
    conds = [c for pw in expr.atoms(sp.Piecewise) for _, c in pw.args]
    if any(c.free_symbols & set(params) for c in conds):
        return None  # a branch for the analysed values only
    try:  # the branch that holds far out (a tail already taken on the other side)
        b = _branch_at(_main_branch(expr), var, sign * 1e30, {})
    except _NoLogForm:
        return None
    b = _side_of_steps(b, var, sign)
    if b is None or not b.free_symbols <= {var, *params}:
        return None
    found = _polynomial_quotient(b, var, cancel=False)
    if found is None:
        return None
    p, q = found
    m = q.degree()
    top = {k[0] - m: c for k, c in p.terms()}
    bottom = {k[0] - m: c for k, c in q.terms()}
    if any(var in c.free_symbols for c in (*top.values(), *bottom.values())):
        return None
    if max(top) < 1:
        return _scaled_symbolic(top, var) / _scaled_symbolic(bottom, var)
    # the quotient first, then one factor x: (N/D)*x, not (N*x)/D
    lower = {k - 1: c for k, c in top.items()}
    quotient = _scaled_symbolic(lower, var) / _scaled_symbolic(bottom, var)
    return sp.UnevaluatedExpr(quotient) * var


def _tail_candidates(
    name: str,
    make: Callable,
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    x: np.ndarray,
    bad: np.ndarray,
    ok_at: MeasureFn,
    deadline: float,
    ok_at_samples: Callable[[sp.Expr], np.ndarray] | None,
) -> list[tuple[str, str, sp.Expr]]:
    """For each side with failing points (|x| >= 1): ``make(sign, failing points)``
    gives (alternative, note) or None; the alternative is used past a measured threshold.
    """
    out = []
    for sign in (1, -1):
        side = (np.sign(x) == sign) & (np.abs(x) >= 1)
        pts = x[bad & side]
        if pts.size == 0 or cpu_clock() > deadline:
            continue
        made = make(sign, pts)
        if made is None:
            continue
        alt, note, *exact = made
        found = _tail_regime(
            expr, alt, sign, var, params, values, x, ok_at, ok_at_samples, *exact
        )
        if found is not None:
            out.append((name, f"for {found[1]} {note}", found[0]))
    return out


# ------------------------------------------------------------------ exp(log) forms


class _NoLogForm(Exception):
    pass


def _branch_at(expr: sp.Expr, var: sp.Symbol, at: float, subs: dict) -> sp.Expr:
    """expr with every Piecewise replaced by its branch that holds at ``var = at``."""
    point = {var: sp.Float(at, 17), **subs}

    def pick(e):
        for pair in e.args:
            try:
                held = pair.cond.xreplace(point)
            except (OverflowError, ValueError, TypeError) as exc:
                # mpmath cannot size the condition there (expm1(sinh(1e29)))
                raise _NoLogForm from exc
            if held == sp.true:
                return pair.expr
            if held != sp.false:
                raise _NoLogForm
        raise _NoLogForm

    return expr.replace(lambda e: isinstance(e, sp.Piecewise), pick)


def _distributed(e: sp.Expr) -> sp.Expr:
    """Products of sums multiplied out, powers left whole: expand_mul also multiplies
    a denominator by an exponential (exp(-x)/(2x^2 + 2) became 1/(2x^2 exp(x) +
    2 exp(x)), whose powers of x the log form cannot take out)."""
    if isinstance(e, sp.Add):
        return sp.Add(*[_distributed(a) for a in e.args])
    if not isinstance(e, sp.Mul):
        return e
    parts = [sp.Add.make_args(_distributed(f)) for f in e.args]
    if all(len(p) == 1 for p in parts) or math.prod(len(p) for p in parts) > 64:
        return e
    return sp.Add(*[sp.Mul(*c) for c in itertools.product(*parts)])


def _merged_exps(e: sp.Expr) -> sp.Expr:
    """Each term's exponential factors as one exp of the sum of their arguments:
    SymPy keeps exp(1/4 - x)*exp(x - 1/4) apart (exp(-x)*exp(x) cancels only because
    exp(-x) is exp(x)**-1), so taking the dominant exp(1/4 - x) out of a sum left it
    in every term, and the log form of (1 - exp(0.25 - x))/(x - 0.25)' was never
    found (NaN, inf - inf, at x = -89 in float32 and -710 in float64)."""
    terms = []
    for t in sp.Add.make_args(e):
        factors = sp.Mul.make_args(t)
        exps = [f for f in factors if isinstance(f, sp.exp)]
        if len(exps) < 2:
            terms.append(t)
            continue
        rest = [f for f in factors if not isinstance(f, sp.exp)]
        terms.append(sp.Mul(*rest, sp.exp(sp.Add(*[f.args[0] for f in exps]))))
    return sp.Add(*terms)


def _opened(e: sp.Expr) -> sp.Expr:
    """e with expm1, sinh and cosh written with exp, products of sums multiplied out."""
    from symnb.formula.functions import expm1

    return _distributed(
        e.replace(expm1, lambda u: sp.exp(u) - 1)
        .replace(sp.sinh, lambda u: (sp.exp(u) - sp.exp(-u)) / 2)
        .replace(sp.cosh, lambda u: (sp.exp(u) + sp.exp(-u)) / 2)
    )


def _times_power(rest: sp.Expr, j: sp.Expr, log_abs: sp.Expr) -> sp.Expr:
    """rest * |x|^j with |x|^j moved into rest's exponential as j*log|x| (x^2 exp(-x)
    was inf*0 = NaN at x = 1e20 in float32; exp(-x + 2 log x) is 0)."""
    exps = [f for f in sp.Mul.make_args(rest) if isinstance(f, sp.exp)]
    others = [f for f in sp.Mul.make_args(rest) if not isinstance(f, sp.exp)]
    arg = sp.Add(*[f.args[0] for f in exps]) + j * log_abs
    # unevaluated: SymPy would take exp(2 log x) out as x**2 again
    return sp.Mul(*others) * sp.exp(sp.UnevaluatedExpr(arg))


class _LogForm:
    """log|e| as a sum that does not overflow, and sign(e), on one side's points."""

    def __init__(self, var: sp.Symbol, subs: dict, pts: np.ndarray) -> None:
        self.var, self.subs, self.pts = var, subs, pts
        self.far = float(pts[np.argmax(np.abs(pts))])

    def _values(self, g: sp.Expr, pts: np.ndarray) -> np.ndarray:
        from symnb.robust.measure import _numpy_function

        fn = _numpy_function(g.xreplace(self.subs), (self.var,))
        if fn is None:
            raise _NoLogForm
        with np.errstate(all="ignore"):
            try:
                v = np.asarray(fn(pts), dtype=np.float64) * np.ones_like(pts)
            except Exception:  # noqa: BLE001 - not evaluable: no log form
                raise _NoLogForm from None
        return v

    def sign(self, g: sp.Expr) -> int:
        """The sign of g at every point of the side (where it is finite)."""
        v = self._values(g, self.pts)
        v = v[np.isfinite(v)]
        if v.size == 0 or (v == 0).any():
            raise _NoLogForm
        s = np.sign(v)
        if not (s == s[0]).all():
            raise _NoLogForm
        return int(s[0])

    def _term_power(self, t: sp.Expr, side: int):
        """(k, rest, has_exp) with t = x^k * rest, rest bounded as |x| grows but for
        its exponentials: a polynomial factor P^e of degree d is x^(d e) (P/x^d)^e.
        None for a factor of another kind, or a root of a polynomial where x < 0."""
        var = self.var
        k, rest, has_exp = sp.Integer(0), [], False
        for fac in sp.Mul.make_args(t):
            if var not in fac.free_symbols:
                rest.append(fac)
                continue
            if isinstance(fac, sp.exp):
                has_exp = True
                rest.append(fac)
                continue
            base, ex = fac.as_base_exp()
            if not ex.is_Rational or not base.is_polynomial(var):
                return None
            d = sp.degree(base, var)
            if not d.is_Integer or d <= 0:
                return None
            if side < 0 and not ex.is_integer:
                return None  # (x^d)^e is |x|^(d e) or no real number where x < 0
            k += d * ex
            if base != var:
                rest.append(sp.expand(base * var**-d) ** ex)
        return k, sp.Mul(*rest), has_exp

    def _power_out(self, e: sp.Add, depth: int) -> tuple[int, sp.Expr] | None:
        """(s, K log|x| + L) with e = |x|^K * s*exp(L): the highest power of x among
        the terms without an exponential taken out of the sum (polynomial factors
        count with their degree), so no term of what is left grows with |x|
        (sinh(x)/x^2 - 2(cosh(x) - 1)/x^3 is exp(x) times 1/(2x^2) - 1/x^3 + ...:
        x^3 overflowed at x = 1e13 in float32, and the log of the sum was -inf where
        f' is inf). None when a term is not c x^k P(x)^e exp(...)."""
        var = self.var
        side = 1 if self.far > 0 else -1
        split = []
        for t in sp.Add.make_args(_opened(e)):
            got = self._term_power(t, side)
            if got is None:
                return None
            split.append(got)
        powers = [k for k, _, has_exp in split if not has_exp]
        top = max(powers) if powers else sp.Integer(0)
        if side < 0 and not top.is_integer:
            return None
        # e / |x|^top, term by term (top is an integer where x < 0); a power of x
        # left with an exponential goes into it as a logarithm
        log_abs = sp.log(side * var)
        terms, merged = [], False
        for k, rest, has_exp in split:
            j = k - top
            if has_exp and j != 0:
                if side < 0 and not j.is_integer:
                    return None
                terms.append(side ** (top + j) * _times_power(rest, j, log_abs))
                merged = True
            else:
                terms.append(side**top * var**j * rest)
        if top == 0 and not merged:
            return None
        si, li = self.split(sp.Add(*terms), depth + 1)
        return si, top * log_abs + li

    def split(self, e: sp.Expr, depth: int = 0) -> tuple[int, sp.Expr]:
        """(s, L) with e = s*exp(L)."""
        from symnb.formula.functions import expm1
        from symnb.robust.rewrite import log_of

        if depth > 12:
            raise _NoLogForm
        var = self.var
        if isinstance(e, sp.Piecewise):
            raise _NoLogForm
        if isinstance(e, sp.exp):
            return 1, e.args[0]
        if isinstance(e, (sp.sinh, sp.cosh)) and var in e.free_symbols:
            # (exp(u) -+ exp(-u))/2: the Add below takes the dominant exp out
            # (sinh(x)/x was inf in float32 at x = 90, where it is 6.8e36)
            return self.split(e.rewrite(sp.exp), depth + 1)
        if isinstance(e, expm1):
            u = e.args[0]
            if self.sign(u) > 0:  # exp(u) - 1 = exp(u) (1 - exp(-u))
                return 1, u + sp.log(-expm1(-u))
            return -1, sp.log(-expm1(u))
        if isinstance(e, sp.Mul):
            s, logs = 1, []
            for f in e.args:
                sf, lf = self.split(f, depth + 1)
                s *= sf
                logs.append(lf)
            return s, sp.Add(*logs)
        if isinstance(e, sp.Pow) and var not in e.exp.free_symbols:
            sb, lb = self.split(e.base, depth + 1)
            if sb < 0 and not e.exp.is_integer:
                raise _NoLogForm
            return (sb ** int(e.exp) if sb < 0 else 1), e.exp * lb
        if var in e.free_symbols:
            lf = log_of(e)
            if lf is not None:
                return 1, lf
        if isinstance(e, sp.Add) and e.has(sp.exp, expm1, sp.sinh, sp.cosh):
            opened = _opened(e)
            exps = [a for a in opened.atoms(sp.exp) if var in a.free_symbols]
            if exps:
                far = np.array([self.far])
                args = [float(self._values(a.args[0], far)[0]) for a in exps]
                k = int(np.nanargmax(args)) if not np.isnan(args).all() else -1
                if k >= 0 and args[k] > 0:
                    v = exps[k].args[0]
                    inner = sp.Add(
                        *[
                            _merged_exps(_distributed(t * sp.exp(-v)))
                            for t in sp.Add.make_args(opened)
                        ]
                    )
                    si, li = self.split(inner, depth + 1)
                    return si, v + li
        if isinstance(e, sp.Add):
            out = self._power_out(e, depth)
            if out is not None:
                return out
        s = self.sign(e)
        return s, sp.log(s * e)


def log_form_candidates(
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    values: tuple,
    x: np.ndarray,
    bad: np.ndarray,
    ok_at: MeasureFn,
    deadline: float,
    ok_at_samples: Callable[[sp.Expr], np.ndarray] | None = None,
) -> list[tuple[str, str, sp.Expr]]:
    """``sign*exp(log|num| - log|den|)`` where a ratio or product overflows in between.

    ``(exp(x) - 1)/x`` at x = 89 in float32: exp(x) overflows, the quotient does not.
    Its logarithm is the sum of the logarithms of the factors, each written without
    overflow (``log(expm1(x)) = x + log(-expm1(-x))``; a sum with a dominant exp(v) is
    ``v + log(sum*exp(-v))``); signs are read off the failing points. Used past a
    threshold at +oo / -oo found by measurement, like the asymptotes.
    """
    subs = {p: sp.Float(v, 17) for p, v in zip(params, values)}

    def make(sign: int, pts: np.ndarray):
        try:
            # the branch where the failures start (regimes already found stay below)
            body = _branch_at(expr, var, float(pts[np.argmin(np.abs(pts))]), subs)
            s, log_abs = _LogForm(var, subs, pts).split(body)
        except (_NoLogForm, sp.PolynomialError, TypeError, ValueError):
            return None
        # a log of a polynomial inside it (log1p(x**2/k) in Barron's loss,
        # k*expm1(a/2*log1p(x**2/k)) with a = 1.99: x**2 overflowed from |x| = 1.8e19
        # in float32, where the loss is 3e37) with its leading power taken out
        log_abs = log_of_polynomial(log_abs, var)
        # unevaluated: SymPy would pull exp(-log(x)) out as 1/x, overflowing again
        alt = s * sp.exp(sp.UnevaluatedExpr(log_abs))
        note = (
            "it is computed as exp of a sum of logarithms (a factor overflows there "
            "although the result does not)"
        )
        return alt, note

    tail = (expr, var, params, values, x, bad, ok_at, deadline, ok_at_samples)
    return _tail_candidates("log_form", make, *tail)


__all__ = [
    "asymptotic_candidates",
    "log_form_candidates",
    "rational_tail",
    "taylor_candidates",
    "vanishing_term_candidates",
]
