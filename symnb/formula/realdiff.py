"""Differentiation for real-valued formulas: |u|' = sign(u) u', steps' derivatives 0.

SymPy differentiates ``Abs(u)`` and ``sign(u)`` for a complex ``u`` unless it can prove
``u`` real, which it cannot for ``log(x)``, ``asin(x)``, ``x**beta`` or ``sqrt(x)``:
``abs(log1p(x))`` and ``sign(asin(x))`` were refused ("the result contains re(...)") and
``abs(log(x))``'s derivative was shown as ``log(x/sign(x))*sign(x)**2*sign(log(x))/(x*log(x))``.
And ``floor(2*x)`` left an unevaluated ``Subs`` (refused) where ``floor(x)`` gave 0.
symnb's formulas are real functions of real inputs (NaN outside their domain), so the
real rules hold wherever the derivative exists: ``sign(u) u'``, ``2 DiracDelta(u) u'``
(the kink machinery turns it into 0 or a surrogate) and 0 for floor and ceiling.
"""

from __future__ import annotations

import sympy as sp


class _RealAbs(sp.Function):
    """``Abs`` of a real argument, while differentiating."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.sign(self.args[0])


class _RealSign(sp.Function):
    """``sign`` of a real argument, while differentiating."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return 2 * sp.DiracDelta(self.args[0])


class _RealFloor(sp.Function):
    """``floor``, while differentiating: a step function, derivative 0 between steps."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.Integer(0)


class _RealCeiling(_RealFloor):
    """``ceiling``, while differentiating."""


#: Below float32's smallest normal number: a tie of max/min sides there at x > 0 is
#: the rounding of two sides that meet at 0 (see :class:`_RealMax2`).
SUBNORMAL_TIES = sp.Float(1.1754943508222875e-38, 17)


def _tie(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """1 where a = b, 0 elsewhere (and at NaN 1, where the derivative is NaN anyway),
    from ``Heaviside(., 0)`` only: the step every backend prints."""
    return 1 - sp.Heaviside(a - b, 0) - sp.Heaviside(b - a, 0)


class _RealMax2(sp.Function):
    """``Max(a, b)`` of two arguments that both vary, while differentiating (the first
    argument is the variable, so that the derivative knows it).

    SymPy's rule gives ``H(a - b) a' + H(b - a) b'``, and with symnb's H(0) = 0 a tie
    gave 0: ``max(asinh(x), x)`` had f' = 0 for |x| < 1e-8, where asinh(x) rounds to x,
    ``max(x*sigmoid(x), x)`` from x = 20 on (float32), and ``max(x, 0.01*x)``'(0) was 0,
    not PyTorch's leaky relu slope. A tie now gives the derivative from the left,
    ``min(a', b')`` (``max(a', b')`` for Min): leaky relu's negative slope at its kink,
    as relu'(0) = 0 and elu'(0) = alpha, and where the sides only round to the same
    float it is their common derivative. A side that does not vary (relu's 0) keeps
    the H(0) = 0 convention."""

    nargs = 3
    original = sp.Max
    _tie_slope = sp.Min  # the left derivative at a crossing of max
    _right_slope = sp.Max  # the right derivative there
    _sign = 1  # max picks the larger side: H(a - b) for a

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        var, a, b = self.args
        if argindex == 1:  # the tie term, d/dvar of the variable slot
            da, db = sp.diff(a, var), sp.diff(b, var)
            # sides that meet at x = 0 round to the same float at subnormal x > 0
            # (0.75*x and expm1(x) at x = 1.4e-45), where the side larger in exact
            # arithmetic is the right derivative's, not the left's
            slope = sp.Piecewise(
                (self._right_slope(da, db), (var > 0) & (var < SUBNORMAL_TIES)),
                (self._tie_slope(da, db), True),
            )
            return _tie(a, b) * slope
        mine, other = (a, b) if argindex == 2 else (b, a)
        return sp.Heaviside(self._sign * (mine - other), 0)


class _RealMin2(_RealMax2):
    """``Min(a, b)`` of two varying arguments, while differentiating (see _RealMax2)."""

    original = sp.Min
    _tie_slope = sp.Max
    _right_slope = sp.Min
    _sign = -1


def _both_vary(e: sp.Expr, var: sp.Symbol) -> bool:
    return (
        isinstance(e, (sp.Max, sp.Min))
        and len(e.args) == 2
        and all(var in a.free_symbols for a in e.args)
    )


_STAND_INS = {
    sp.Abs: _RealAbs,
    sp.sign: _RealSign,
    sp.floor: _RealFloor,
    sp.ceiling: _RealCeiling,
}
_BACK = {v: k for k, v in _STAND_INS.items()}

#: The note on a formula whose floor/ceiling depends on the variable and whose
#: derivative is then 0 (``floor(x)``, ``ceiling(2*x)/2``).
STEP_NOTE = (
    "floor/ceiling have derivative 0 almost everywhere: weights before them will "
    "not learn"
)
#: The note when the rest of the formula still carries a derivative (``x - floor(x)``,
#: LaTeX's ``x \bmod 1``): the steps only add nothing to it, so training does learn.
STEP_PART_NOTE = (
    "floor/ceiling add 0 to the derivative almost everywhere (their jumps are not "
    "differentiated); f' comes from the rest of the formula"
)


def real_diff(expr: sp.Expr, var: sp.Symbol) -> tuple[sp.Expr, list[str]]:
    """d expr / d var with the real rules above, and notes for the user."""
    steps = [e for e in expr.atoms(sp.floor, sp.ceiling) if var in e.free_symbols]
    d = _diff(expr, var)
    if not steps:
        return d, []
    return d, [STEP_NOTE if d == 0 else STEP_PART_NOTE]


def _diff(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    ties = expr.find(lambda e: _both_vary(e, var))
    if not expr.has(*_STAND_INS) and not ties:
        return sp.diff(expr, var)
    stand_in = expr.replace(
        lambda e: _both_vary(e, var),
        lambda e: (_RealMax2 if isinstance(e, sp.Max) else _RealMin2)(var, *e.args),
    ).replace(lambda e: type(e) in _STAND_INS, lambda e: _STAND_INS[type(e)](*e.args))
    d = sp.diff(stand_in, var)
    d = d.replace(lambda e: isinstance(e, _RealMax2), lambda e: e.original(*e.args[1:]))
    return d.replace(lambda e: type(e) in _BACK, lambda e: _BACK[type(e)](*e.args))
