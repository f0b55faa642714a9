"""The formula as a reader should see it: numerical-only branches folded away.

Stability rewrites may split a function into branches that are the same mathematical
function spelled two ways, for the arithmetic's sake (``atan(u) + pi/2`` is
``-atan(1/u)`` for ``u < -1``, which keeps its digits where the sum cancels). The
kernels need the split; the LaTeX a student reads does not. :func:`fold_equal_branches`
replaces a Piecewise by its last branch when every other branch equals it, at 30 digits,
on sample points where that branch's condition holds (for several variables, such as a
constant times x or a loss's y_pred and y_true, on fixed combinations of the samples). Real definitions by cases (relu,
the real cube root, a kink's one-sided derivative) differ somewhere and are kept.
"""

from __future__ import annotations

import random

import mpmath
import sympy as sp

from symnb.formula.functions import expm1, log1p

#: Sample magnitudes (both signs and 0) at which branches are compared.
_SAMPLES = (0.0, 0.37, 0.9, 1.3, 2.7, 5.5, 11.0, 47.0, 130.0, 1e3, 3.3e4)
_MIN_POINTS = 3
#: Points compared for a Piecewise of several variables (constants, a loss's inputs).
_MULTI_POINTS = 64
_DIGITS = 30
#: Largest decimal exponent of a value evaluated on the way (larger: the point is skipped).
_MAX_EXPONENT = 10_000
#: Functions evaluated by mpmath at a Float argument (SymPy's go through a Rational).
_BY_MPMATH = ((log1p, mpmath.log1p), (expm1, mpmath.expm1))
#: Functions whose value grows like exp of their argument.
_EXP_LIKE = (sp.exp, sp.sinh, sp.cosh)


def fold_equal_branches(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each Piecewise of one variable whose branches all equal its last
    (default) branch replaced by that branch (innermost first)."""
    if not expr.has(sp.Piecewise):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Piecewise), _fold)


def _drop_point_branches(pw: sp.Piecewise) -> sp.Piecewise:
    """Without its ``Eq(x, b)`` branches whose value at b is what the others give there
    (a continuous function keeps such a point branch only for its derivative's kink
    convention, which the derivative's own LaTeX shows)."""
    args = list(pw.args)
    for e, c in pw.args:
        if not isinstance(c, sp.Equality):
            continue
        var, at = (c.lhs, c.rhs) if c.lhs.is_Symbol else (c.rhs, c.lhs)
        if not (var.is_Symbol and at.is_Number):
            continue
        rest = sp.Piecewise(*[a for a in args if a != (e, c)])
        try:
            same = sp.simplify(e.subs(var, at) - rest.subs(var, at)) == 0
        except (TypeError, ValueError):
            same = False
        if same:
            args.remove((e, c))
    return sp.Piecewise(*args) if len(args) != len(pw.args) else pw


def _drop_subnormal_branches(pw: sp.Piecewise) -> sp.Expr:
    """Without branches that hold only for 0 < x < float32's smallest normal number
    (the max/min tie slope of sides that round together there: arithmetic only)."""
    from symnb.formula.realdiff import SUBNORMAL_TIES

    def subnormal(c) -> bool:
        if not isinstance(c, sp.And) or len(c.args) != 2:
            return False
        syms = c.free_symbols
        if len(syms) != 1:
            return False
        (v,) = syms
        return set(c.args) == {v > 0, v < SUBNORMAL_TIES}

    args = [(e, c) for e, c in pw.args if not subnormal(c)]
    if len(args) == len(pw.args):
        return pw
    if len(args) == 1 and args[0][1] == sp.true:
        return args[0][0]
    return sp.Piecewise(*args)


def _fold(pw: sp.Piecewise) -> sp.Expr:
    pw = _drop_subnormal_branches(pw)
    if not isinstance(pw, sp.Piecewise):
        return pw
    pw = _drop_point_branches(pw)
    if not isinstance(pw, sp.Piecewise):
        return pw
    *branches, (last, cond) = pw.args
    if cond != sp.true or not branches:
        return pw
    points = _sample_points(pw.free_symbols)
    if not points:
        return pw
    for e, c in branches:
        if not _agree(e, last, c, points):
            return pw
    return last


def _sample_values(symbol: sp.Symbol) -> list[float]:
    """The signed sample magnitudes that ``symbol``'s assumptions allow."""
    values = [s * v for v in _SAMPLES for s in (1, -1)]
    if symbol.is_positive:
        return [v for v in values if v > 0]
    if symbol.is_nonnegative:
        return [v for v in values if v >= 0]
    if symbol.is_negative:
        return [v for v in values if v < 0]
    return values


def _sample_points(symbols: set[sp.Symbol]) -> list[dict[sp.Symbol, sp.Float]]:
    """Points at which branches are compared: every sample of one variable; for several
    (a constant times x, a loss's y_pred and y_true) ``_MULTI_POINTS`` fixed
    pseudo-random combinations of the samples."""
    ordered = sorted(symbols, key=str)
    if not ordered:
        return []
    choices = [_sample_values(s) for s in ordered]
    if len(ordered) == 1:
        combos = [(v,) for v in choices[0]]
    else:
        rng = random.Random(len(ordered))
        combos = [tuple(rng.choice(c) for c in choices) for _ in range(_MULTI_POINTS)]
    return [
        {s: sp.Float(v, _DIGITS) for s, v in zip(ordered, combo, strict=True)}
        for combo in combos
    ]


def _agree(
    a: sp.Expr, b: sp.Expr, cond: sp.Basic, points: list[dict[sp.Symbol, sp.Float]]
) -> bool:
    seen = 0
    with mpmath.workdps(_DIGITS):
        for at in points:
            try:
                if cond.subs(at) != sp.true:
                    continue
                # substituted unevaluated, then evaluated bottom-up with screening:
                # subs itself evaluates log1p of a Float exactly (Rational(arg)),
                # 45 s for log1p(-exp(c*...)) at c = 1e30, a LaTeX taking 13 s
                with sp.evaluate(False):
                    sa, sb = a.subs(at), b.subs(at)
                va = _bounded_value(sa)
                vb = _bounded_value(sb)
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return False
            if va is None or vb is None:
                continue  # a value beyond any float on the way: not comparable here
            if not (va.is_real and vb.is_real and va.is_finite and vb.is_finite):
                return False
            if abs(va - vb) > sp.Float(10) ** (-_DIGITS + 5) * (1 + abs(vb)):
                return False
            seen += 1
    return seen >= _MIN_POINTS


def _too_large(v: sp.Expr) -> bool:
    """``v`` (a number) is beyond 10**_MAX_EXPONENT in magnitude."""
    return v.is_finite is True and abs(v) > sp.Float(10) ** _MAX_EXPONENT


def _bounded_value(e: sp.Expr) -> sp.Expr | None:
    """The value of the number ``e`` at ``_DIGITS`` digits, evaluated bottom-up, or None
    when a value on the way would exceed 10**_MAX_EXPONENT in magnitude.

    ``sp.N`` of a power tower such as ``sin(x)**x**x**x`` at x = 47 builds exponents of
    exponents: GMP then aborts the whole process ("overflow in mpz type"), which no
    ``except`` can catch; so each power and exponential is screened in log space before
    it is evaluated."""
    if not (e.args and all(isinstance(a, sp.Expr) for a in e.args)):
        value = sp.N(e, _DIGITS)
        return None if _too_large(value) else value
    values = []
    for arg in e.args:
        v = _bounded_value(arg)
        if v is None:
            return None
        values.append(v)
    limit = _MAX_EXPONENT * mpmath.log(10)
    if isinstance(e, sp.Pow):
        base, power = values
        size = abs(base)
        if size not in (0, 1) and abs(power) * abs(sp.log(size)) > limit:
            return None
    elif isinstance(e, _EXP_LIKE) and abs(sp.re(values[0])) > limit:
        return None
    mp_fn = next((f for cls, f in _BY_MPMATH if isinstance(e, cls)), None)
    if mp_fn is not None and values[0].is_Float:
        # SymPy's log1p of a Float converts it to an exact Rational first: a value of
        # 1e-400000 (log_ndtr(s*x) at s = 1e8) took its LaTeX past 250 s
        with mpmath.workdps(_DIGITS):
            value = sp.Float(mp_fn(mpmath.mpf(values[0]._mpf_)), _DIGITS)
    else:
        value = sp.N(e.func(*values), _DIGITS)
    return None if _too_large(value) else value


__all__ = ["fold_equal_branches"]
