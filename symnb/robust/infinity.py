"""Values at x = +-inf: the limit of f and f' where the lowered form computes NaN there.

The kernels evaluate the lowered form at every x, inf included. A form right at every
finite x can still meet inf - inf, 0*inf or inf/inf at inf itself: the scaled softplus
(x + sign(c)|x|)/2 + softplus(-|c x|)/c was NaN at x = -inf (PyTorch gives 0), softsign
x/(1 + |x|) NaN at both infinities, sqrt(x**2 + eps**2)' (limits +-1) NaN at both.
Where the lowered form computes NaN at an infinity (in NumPy's order or the C
kernels') and SymPy finds the limit there (a real number or +-oo), the form gets a
branch for that infinity (``x > max`` or ``x < -max``, true there only) giving the
limit. An infinite limit is given as +-x (no inf literal reaches the kernel text).

The limit is taken at the analysed constant values, and the branch applies while the
constants keep them (as the regimes' branches do). NaN input still gives NaN (no
branch condition holds for it), and a form that gives a number at +-inf is returned
unchanged (no extra branch in the kernel).

A loss (y_pred, y_true) gets the same at y_pred = +-inf for every target: where the
lowered form is NaN there for a target in :data:`TARGETS`, and SymPy finds the loss
as ``a(t)*|y_pred| + b(t) + o(1)`` (checked against mpmath at those targets), the
branch gives b(t) where a(t) = 0 and a(t)*inf elsewhere (bce_with_logits: 0 at
(inf, 1) and (-inf, 0), inf at (inf, 0), where PyTorch gives NaN for the first two).
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from symnb.formula.functions import expm1, log1p, logsigmoid, sigmoid, softplus
from symnb.formula.internal import InternalForm
from symnb.robust import measure, regimes
from symnb.robust.deadline import OutOfTime, time_limit
from symnb.robust.limit_parts import limit_by_parts

#: CPU seconds SymPy may take for one limit (f or f', one side; the wall-clock backstop
#: is 4 times as long, and 1 s lost sinc's limit at +inf on a loaded machine).
LIMIT_SECONDS = 3.0

#: operations above which no limit is tried: SymPy's limit of a large form (the
#: inverse Mills ratio's continued fraction) runs into its time limit, and the
#: interrupt can land inside SymPy's assumption cache or gmpy
MAX_LIMIT_OPS = 200

#: largest |exponent| of a number power (after the constants are put in as exact
#: rationals) for which a limit is tried: SymPy's limit raises exact rationals to it,
#: and Barron's loss at alpha = -1e8, (x**2/(1e8 + 2) + 1)**(-50000000), spent minutes
#: (and gigabytes) in one integer power that no deadline can interrupt
MAX_LIMIT_EXPONENT = 1000

#: relative distance from the limit still taken as the limit (the accuracy rule's)
_RTOL = {"float32": 2e-5, "float64": 1e-9}

_STABLE = (sigmoid, softplus, logsigmoid)

#: where the user's branches are decided: far out, and still a float64 (the guarded
#: mpmath reference evaluates there; SymPy's evalf at 1e400 ran away on exp(x**2) and
#: left mpmath's precision corrupted when the time limit interrupted it)
_FAR = 1e300

_COMPARE = {
    sp.StrictGreaterThan: lambda d: d > 0,
    sp.GreaterThan: lambda d: d >= 0,
    sp.StrictLessThan: lambda d: d < 0,
    sp.LessThan: lambda d: d <= 0,
    sp.Equality: lambda d: d == 0,
    sp.Unequality: lambda d: d != 0,
}


def _far_value(u: sp.Expr, var: sp.Symbol, side: int):
    """``u`` at var = side*1e300 (mpmath, guarded as the references are), or None."""
    if not u.has(var):
        return None
    got = measure.reference_values(u, (var,), (), (), (np.array([side * _FAR]),))
    if not got:
        return None
    v = got[0]
    try:
        if mpmath.isnan(v) or mpmath.im(v) != 0:
            return None
        return mpmath.re(v)
    except (TypeError, ValueError):
        return None


def _far_truth(cond, var: sp.Symbol, side: int) -> bool | None:
    """Whether ``cond`` holds at var = side*1e300 (None: not decided)."""
    if cond in (sp.true, sp.false):
        return bool(cond)
    if isinstance(cond, (sp.And, sp.Or)):
        parts = [_far_truth(a, var, side) for a in cond.args]
        if None in parts:
            return None
        return all(parts) if isinstance(cond, sp.And) else any(parts)
    test = _COMPARE.get(type(cond))
    if test is None:
        return None
    d = _far_value(cond.lhs - cond.rhs, var, side)
    return None if d is None else bool(test(d))


def _far_branches(expr: sp.Expr, var: sp.Symbol, side: int) -> sp.Expr:
    """``expr`` with the branch taken far out, at var = side*1e300, for each Piecewise,
    Max, Min, Heaviside, sign and Abs of var (SymPy finds no limit through them:
    hard swish x*Min(6, Max(0, x + 3))/6). A choice it cannot decide is left as it is.
    """

    def piecewise(pw: sp.Piecewise) -> sp.Expr:
        for value, cond in pw.args:
            hit = _far_truth(cond, var, side)
            if hit is None:
                return pw
            if hit:
                return value
        return pw

    def extreme(e: sp.Expr) -> sp.Expr:
        values = [
            _far_value(a, var, side) if a.has(var) else _number(a) for a in e.args
        ]
        if any(v is None for v in values):
            return e
        pick = max if isinstance(e, sp.Max) else min
        best = pick(range(len(values)), key=lambda i: values[i])
        return e.args[best]

    def signed(e: sp.Expr) -> sp.Expr:
        v = _far_value(e.args[0], var, side)
        if v is None or v == 0:
            return e
        s = 1 if v > 0 else -1
        if isinstance(e, sp.Heaviside):
            return sp.Integer(1 if s > 0 else 0)
        if isinstance(e, sp.sign):
            return sp.Integer(s)
        return s * e.args[0]  # Abs

    def far(e: sp.Expr) -> sp.Expr:
        if not e.has(var):
            return e
        if isinstance(e, sp.Piecewise):
            return piecewise(e)
        if isinstance(e, (sp.Max, sp.Min)):
            return extreme(e)
        return signed(e)

    kinds = (sp.Piecewise, sp.Max, sp.Min, sp.Heaviside, sp.sign, sp.Abs)
    return expr.replace(lambda e: isinstance(e, kinds), far)


def _number(e: sp.Expr):
    """A constant argument of Max/Min as an mpmath number (None: not a real number)."""
    try:
        return mpmath.mpf(float(e))
    except (TypeError, ValueError):
        return None


def _huge_exponent(e: sp.Expr) -> bool:
    """A power in ``e`` has a number exponent beyond :data:`MAX_LIMIT_EXPONENT`:
    ``u**n`` or ``exp(n*log(u))`` (SymPy's limit makes the second the first; symnb
    writes powers of 1 + u as ``exp(n*log1p(u))``)."""
    for p in e.atoms(sp.Pow):
        if p.exp.is_number and abs(p.exp) > MAX_LIMIT_EXPONENT:
            return True
    for g in e.atoms(sp.exp, expm1):
        coeff, rest = g.args[0].as_coeff_Mul()
        if abs(coeff) > MAX_LIMIT_EXPONENT and rest.has(sp.log, log1p):
            return True
    return False


#: limits found (or found not to exist) in this process, by (expr, var, side, params,
#: values): f and f' are analysed once per dtype, and the limit does not depend on it
#: (a second SymPy limit cost 0.3-0.9 s per formula). A limit cut by its time limit is
#: not kept: a later, less loaded try may find it.
_KNOWN: dict[tuple, object] = {}
_KNOWN_MAX = 1024


def limit_at_infinity(
    expr: sp.Expr,
    var: sp.Symbol,
    side: int,
    params: tuple[sp.Symbol, ...] = (),
    values: tuple[float, ...] = (),
) -> float | None:
    """lim expr as var -> side*oo (side +1 or -1) at the constants' values: a float
    (+-inf for an infinite limit), or None when SymPy finds none in time (no limit,
    an oscillation, a bounded set, an unevaluated Limit)."""
    key = (expr, var, side, tuple(params), tuple(values))
    if key in _KNOWN:
        return _KNOWN[key]
    try:
        lim = _limit(expr, var, side, params, values)
    except OutOfTime:
        return None
    if len(_KNOWN) >= _KNOWN_MAX:
        _KNOWN.clear()
    _KNOWN[key] = lim
    return lim


def _limit(expr, var, side, params, values) -> float | None:
    """:func:`limit_at_infinity` itself; raises OutOfTime past its time limit."""
    t = sp.Dummy("t", positive=True)
    e = expr.xreplace(
        {p: sp.nsimplify(v, rational=True) for p, v in zip(params, values)}
    )
    e = _far_branches(e, var, side)
    if sp.count_ops(e) > MAX_LIMIT_OPS:
        return None
    if e.has(*_STABLE):
        e = e.rewrite(list(_STABLE), sp.exp)
    if _huge_exponent(e):
        return None
    try:
        with time_limit(LIMIT_SECONDS, "find the limit at infinity"):
            e = e.subs(var, side * t)
            lim = limit_by_parts(e, t)  # a product of many sigmoids: fast
            if lim is None:
                lim = sp.limit(e, t, sp.oo)
    except OutOfTime:
        raise
    except Exception:  # noqa: BLE001 - SymPy found no limit: the form stays as it is
        return None
    if lim is sp.oo:
        return float("inf")
    if lim is sp.S.NegativeInfinity:
        return float("-inf")
    if lim.has(sp.Limit, sp.AccumBounds, sp.nan, sp.zoo) or lim.free_symbols:
        return None
    if not (lim.is_number and lim.is_extended_real):
        return None
    try:
        return float(lim)
    except (TypeError, ValueError):
        return None


def _computed(form: InternalForm, expr: sp.Expr, dtype: str) -> list[np.ndarray]:
    """``expr`` at x = +inf and -inf as the kernels compute it (both orders)."""
    cols = (np.array([np.inf, -np.inf]),)
    args = (form.inputs, form.params, form.param_values, cols, dtype)
    out = [measure.evaluate(expr, *args)]
    cse = measure.evaluate(expr, *args, order="cse")
    if cse is not None:
        out.append(cse)
    return out


def _agrees(got: float, want: float, dtype: str) -> bool:
    if np.isnan(got):
        return False
    if np.isinf(want) or np.isinf(got):
        return got == want
    tiny = float(np.finfo(dtype).tiny)
    return abs(got - want) <= _RTOL[dtype] * abs(want) + tiny


def _branch_value(want: float, var: sp.Symbol, side: int, dtype: str) -> sp.Expr:
    """The branch's value: the limit rounded to ``dtype``; +-x where that is +-inf."""
    rounded = float(np.dtype(dtype).type(want))
    if np.isinf(rounded):
        return var if rounded * side > 0 else -var
    return sp.Float(rounded, 17)


#: values of a loss's target at which its lowered form is tried at y_pred = +-inf
#: (and its limit checked against mpmath): the labels of a binary loss and between
TARGETS = (0.0, 0.25, 0.5, 1.0)

_BAD = (sp.Limit, sp.AccumBounds, sp.nan, sp.zoo, sp.oo, -sp.oo)


def linear_limit(
    expr: sp.Expr,
    var: sp.Symbol,
    other: sp.Symbol,
    side: int,
    params: tuple[sp.Symbol, ...] = (),
    values: tuple[float, ...] = (),
) -> tuple[sp.Expr, sp.Expr] | None:
    """(a, b) with ``expr ~ a*|var| + b`` as var -> side*oo, a and b expressions of
    ``other`` (a loss's target) at the constants' values, or None when SymPy finds
    none in time or the result is not finite (bce_with_logits ``-p*t + softplus(p)``:
    (1 - t, 0) at +oo, (t, 0) at -oo)."""
    key = ("linear", expr, var, other, side, tuple(params), tuple(values))
    if key in _KNOWN:
        return _KNOWN[key]
    t = sp.Dummy("t", positive=True)
    o = sp.Dummy("o", real=True)
    e = expr.xreplace(
        {p: sp.nsimplify(v, rational=True) for p, v in zip(params, values)}
    ).xreplace({other: o})
    if sp.count_ops(e) > MAX_LIMIT_OPS or _huge_exponent(e):
        return None
    if e.has(*_STABLE):
        e = e.rewrite(list(_STABLE), sp.exp)
    found = None
    try:
        with time_limit(LIMIT_SECONDS, "find the limit at infinity"):
            e = e.subs(var, side * t)
            a = sp.limit(e / t, t, sp.oo)
            if not a.has(*_BAD) and a.free_symbols <= {o}:
                b = sp.limit(sp.expand(e - a * t), t, sp.oo)
                if not b.has(*_BAD) and b.free_symbols <= {o}:
                    found = (a.xreplace({o: other}), b.xreplace({o: other}))
    except OutOfTime:
        return None
    except Exception:  # noqa: BLE001 - SymPy found no limit: the form stays as it is
        found = None
    if len(_KNOWN) >= _KNOWN_MAX:
        _KNOWN.clear()
    _KNOWN[key] = found
    return found


def _linear_limit_holds(form, original, a, b, side: int, dtype: str) -> bool:
    """Whether (a, b) of :func:`linear_limit` agree with mpmath's value of
    ``original`` at y_pred = side*1e300 for each of :data:`TARGETS` (SymPy's limit
    with a symbolic target can miss a case split on its sign)."""
    other = form.inputs[1]
    consts = {p: sp.Float(v) for p, v in zip(form.params, form.param_values)}
    cols = (np.full(len(TARGETS), side * _FAR), np.array(TARGETS))
    got = measure.reference_values(
        original, form.inputs, form.params, form.param_values, cols
    )
    if not got:
        return False
    for target, v in zip(TARGETS, got):
        try:
            at = {other: sp.Float(target), **consts}
            av, bv = float(a.xreplace(at)), float(b.xreplace(at))
            v = float(mpmath.re(v)) if mpmath.im(v) == 0 else float("nan")
        except (TypeError, ValueError):
            return False
        if np.isnan(v):
            return False
        if av != 0:
            if np.sign(v) != np.sign(av) or abs(v) < 1e250:
                return False
        elif abs(v - bv) > _RTOL["float64"] * abs(bv) + 1e-250:
            return False
    return True


def _with_loss_limits(
    form: InternalForm, lowered: sp.Expr, original: sp.Expr, dtype: str
) -> tuple[sp.Expr, list[str]]:
    """:func:`with_limits` of a loss (y_pred, y_true): at y_pred = +-inf the limit
    ``a*|y_pred| + b`` in the target, as a branch ``b`` where a = 0 and ``a*|y_pred|``
    (+-inf) elsewhere; bce_with_logits ``-p*t + softplus(p)`` was inf*0 = NaN at
    (inf, 1) and (-inf, 0), where the loss tends to 0, and inf - inf = NaN at
    (inf, 0), where it tends to inf."""
    var, other = form.inputs
    if not lowered.has(var):
        return lowered, []
    n = len(TARGETS)
    cols = (np.array([np.inf] * n + [-np.inf] * n), np.array(TARGETS * 2))
    args = (form.inputs, form.params, form.param_values, cols, dtype)
    computed = [measure.evaluate(lowered, *args, order) for order in ("numpy", "cse")]
    computed = [c for c in computed if c is not None]
    big = sp.Float(float(np.finfo(dtype).max), 17)
    branches, notes = [], []
    for i, (side, cond) in enumerate(((1, var > big), (-1, var < -big))):
        if not any(np.isnan(c[i * n : (i + 1) * n]).any() for c in computed):
            continue
        found = linear_limit(original, var, other, side, form.params, form.param_values)
        if found is None:
            continue
        a, b = found
        if not _linear_limit_holds(form, original, a, b, side, dtype):
            continue
        far = side * var  # +inf in the branch
        if a == 0:
            value = b
        elif a.is_number:
            value = a * far
        else:
            value = sp.Piecewise((b, sp.Eq(a, 0)), (a * far, True))
        where = "inf" if side > 0 else "-inf"
        notes.append(
            f"at {var} = {where} the limit in the target: {sp.sstr(b)} where "
            f"{sp.sstr(a)} = 0, else {sp.sstr(a)} times inf"
        )
        branches.append((value, cond))
    out = lowered
    for value, cond in reversed(branches):
        out = regimes._branch(value, cond, out, form.params, form.param_values)
    return out, notes


#: far points tried per binary octave (x = +-2**(k/STEPS)) for where the lowered form
#: turns NaN before infinity, and how many of them mpmath checks against the limit
_STEPS = 2
_CHECKED = 16

#: the far points reach in to 2**-_INNERMOST
_INNERMOST = 40

#: mpmath evaluations that may place the branch's start between two far points
_BISECTIONS = 24


def far_points(dtype: str, side: int) -> np.ndarray:
    """side * 2**(k/_STEPS) from 2**-_INNERMOST to the dtype's maximum, outermost
    first (x exp(x (x + 1e8)) / (1 + |x exp(...)|) is inf/inf from x = 1e-6)."""
    top = np.finfo(dtype).maxexp * _STEPS
    with np.errstate(over="ignore"):
        xs = side * np.exp2(
            np.arange(top, -_INNERMOST * _STEPS - 1, -1) / _STEPS
        ).astype(dtype)
    return xs[np.isfinite(xs)]


def _nan_run(form: InternalForm, expr: sp.Expr, side: int, dtype: str) -> np.ndarray:
    """The far points (outermost first) from the dtype's maximum inward at which the
    lowered form computes NaN in either order, up to the first point where both
    orders give a number: where a vanishing factor underflowed to 0 against an
    overflowed one (softplus(1e-6 x)*cosh(x) from x = -1e8 in float32), or a
    difference of two overflowed terms, before x itself reaches infinity."""
    xs = far_points(dtype, side)
    args = (form.inputs, form.params, form.param_values, (xs,), dtype)
    nan = np.zeros(xs.shape, bool)
    for order in ("numpy", "cse"):
        got = measure.evaluate(expr, *args, order=order)
        if got is not None:
            nan |= np.isnan(np.asarray(got, dtype=np.float64))
    stop = np.flatnonzero(~nan)
    return xs[: stop[0] if stop.size else xs.size]


def _limit_reach(
    form: InternalForm,
    lowered: sp.Expr,
    original: sp.Expr,
    run: np.ndarray,
    want: float,
    dtype: str,
) -> float | None:
    """The smallest |x| of ``run`` (outermost first) from which mpmath's ``original``
    meets the accuracy rule with the limit at every point checked (up to
    :data:`_CHECKED`, spread over the run, outermost first), moved in to where the
    lowered form first computes NaN when the run reaches its inner end; None where
    the limit misses at the outermost point."""
    pick = np.unique(np.linspace(0, run.size - 1, _CHECKED).round().astype(int))
    pick = np.unique(np.append(pick, run.size - 1))
    reach = None
    for i in pick:
        if not _limit_meets_rule(form, original, float(run[i]), want, dtype):
            return reach
        reach = abs(float(run[i]))
    onset = _nan_onset(form, lowered, float(run[-1]), dtype)
    if onset is None:
        return reach
    if _limit_meets_rule(form, original, onset, want, dtype):
        return abs(onset)
    # NaN from the onset, the limit only from farther out (cosh(x)*softplus(1e-6 x)'
    # is -2.6e38 at the onset -89.42 in float32 and overflows from -89.5): bisected
    t = np.dtype(dtype).type
    near, far = onset, float(run[-1])
    for _ in range(_BISECTIONS):
        mid = float(t((near + far) / 2))
        if mid in (near, far):
            break
        if _limit_meets_rule(form, original, mid, want, dtype):
            far = mid
        else:
            near = mid
    return abs(far)


def _nan_onset(
    form: InternalForm, lowered: sp.Expr, outer: float, dtype: str
) -> float | None:
    """The x nearest 0 between ``outer`` (NaN there) and ``outer/2**(1/_STEPS)`` (the
    next far point in, a number there) where the lowered form computes NaN, by
    bisection (cosh(x)*softplus(1e-6 x) turns NaN at x = -89.4 in float32, between
    the far points -90.5 and -64)."""
    t = np.dtype(dtype).type
    args = (form.inputs, form.params, form.param_values)

    def nan_at(x: float) -> bool:
        cols = (np.array([x], dtype=dtype),)
        return any(
            got is not None and np.isnan(got).any()
            for got in (
                measure.evaluate(lowered, *args, cols, dtype, order=order)
                for order in ("numpy", "cse")
            )
        )

    hi, lo = float(t(outer)), float(t(outer / 2 ** (1 / _STEPS)))
    if not nan_at(hi) or nan_at(lo):
        return None
    for _ in range(60):
        mid = float(t((hi + lo) / 2))
        if mid in (hi, lo):
            break
        hi, lo = (mid, lo) if nan_at(mid) else (hi, mid)
    return hi


def _limit_meets_rule(
    form: InternalForm, original: sp.Expr, x: float, want: float, dtype: str
) -> bool:
    """Whether the limit ``want`` meets the accuracy rule for mpmath's ``original``
    at ``x``: its overflow to the same infinity, or within the rule's tolerance
    with the scale's lower bound max(1, |x|) (1e-312 at x = 1e104 for the limit 0)."""
    got = measure.reference_values(
        original, form.inputs, form.params, form.param_values, (np.array([x]),)
    )
    if not got:
        return False
    try:
        if mpmath.im(got[0]) != 0:
            return False
        v = float(mpmath.re(got[0]))
    except (TypeError, ValueError, OverflowError):
        return False
    big = float(np.finfo(dtype).max)
    if np.isinf(want):
        return abs(v) > big and np.sign(v) == np.sign(want)
    if np.isnan(v) or abs(v) > big:
        return False
    rel, ab = measure.RULE[dtype]
    return abs(v - want) <= rel * abs(v) + ab * max(1.0, abs(x))


def _far_value_of(
    want: float, var: sp.Symbol, side: int, dtype: str, finite_start: bool
) -> sp.Expr:
    """The branch's value: :func:`_branch_value`, except that an infinite limit from a
    finite start is +-max*|x| (|x| >= 2 there: it overflows to +-inf; +-x would give
    the finite x itself)."""
    value = _branch_value(want, var, side, dtype)
    if not finite_start or value.is_number:
        return value
    big = sp.Float(float(np.finfo(dtype).max), 17)
    return big * value


def with_limits(
    form: InternalForm, lowered: sp.Expr, original: sp.Expr, dtype: str
) -> tuple[sp.Expr, list[str]]:
    """``lowered`` with branches at +-inf where it misses ``original``'s limit there,
    and a note for each branch added (none: ``lowered`` itself is returned); for a
    loss, at y_pred = +-inf, for every target (:func:`_with_loss_limits`).

    Where the lowered form already computes NaN at finite far points (the outer run
    of :func:`_nan_run`) and mpmath's values there round to the limit in ``dtype``
    (an overflow to +-inf, an underflow to 0), the branch starts at the run's
    innermost point instead of the dtype's maximum."""
    if form.kind == "loss" and len(form.inputs) == 2:
        return _with_loss_limits(form, lowered, original, dtype)
    if len(form.inputs) != 1 or not lowered.has(form.inputs[0]):
        return lowered, []
    var = form.inputs[0]
    computed = _computed(form, lowered, dtype)
    big = float(np.finfo(dtype).max)
    branches, notes = [], []
    for i, side in enumerate((1, -1)):
        run = _nan_run(form, lowered, side, dtype)
        at_inf = any(np.isnan(c[i]) for c in computed)
        if not (at_inf or run.size):
            continue  # IEEE arithmetic gave a number there: its own limit, as a rule
        want = limit_at_infinity(original, var, side, form.params, form.param_values)
        if want is None:
            continue
        want_dtype = float(np.dtype(dtype).type(want))
        start = big
        reach = (
            _limit_reach(form, lowered, original, run, want_dtype, dtype)
            if run.size
            else None
        )
        if reach is not None:
            # an infinite limit is max*|x|, which overflows from |x| = 2 only
            start = max(reach, 2.0) if np.isinf(want_dtype) else reach
        elif all(_agrees(float(c[i]), want_dtype, dtype) for c in computed):
            continue
        where = "inf" if side > 0 else "-inf"
        if start < big:
            notes.append(
                f"from |x| = {start:g} toward {where} the limit {want_dtype:g} "
                "(computed: NaN)"
            )
            bound = sp.Float(start, 17)
            cond = var >= bound if side > 0 else var <= -bound
        else:
            got = ", ".join(f"{float(c[i]):g}" for c in computed)
            notes.append(f"at x = {where} the limit {want_dtype:g} (computed: {got})")
            bound = sp.Float(big, 17)
            cond = var > bound if side > 0 else var < -bound
        branches.append((_far_value_of(want, var, side, dtype, start < big), cond))
    out = lowered
    for value, cond in reversed(branches):
        # the limit was taken at the analysed constants: while they hold (as the
        # regimes' branches; a scaled softsign a*x/(1 + |x|) tends to +-a)
        out = regimes._branch(value, cond, out, form.params, form.param_values)
    return out, notes


__all__ = [
    "LIMIT_SECONDS",
    "MAX_LIMIT_EXPONENT",
    "TARGETS",
    "limit_at_infinity",
    "linear_limit",
    "with_limits",
]
