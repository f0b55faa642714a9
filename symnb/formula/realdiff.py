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


_STAND_INS = {
    sp.Abs: _RealAbs,
    sp.sign: _RealSign,
    sp.floor: _RealFloor,
    sp.ceiling: _RealCeiling,
}
_BACK = {v: k for k, v in _STAND_INS.items()}

#: The note on a formula whose floor/ceiling depends on the variable.
STEP_NOTE = (
    "floor/ceiling have derivative 0 almost everywhere: weights before them will "
    "not learn"
)


def real_diff(expr: sp.Expr, var: sp.Symbol) -> tuple[sp.Expr, list[str]]:
    """d expr / d var with the real rules above, and notes for the user."""
    notes: list[str] = []
    steps = [e for e in expr.atoms(sp.floor, sp.ceiling) if var in e.free_symbols]
    if steps:
        notes.append(STEP_NOTE)
    if not expr.has(*_STAND_INS):
        return sp.diff(expr, var), notes
    stand_in = expr.replace(
        lambda e: type(e) in _STAND_INS, lambda e: _STAND_INS[type(e)](*e.args)
    )
    d = sp.diff(stand_in, var)
    return d.replace(
        lambda e: type(e) in _BACK, lambda e: _BACK[type(e)](*e.args)
    ), notes
