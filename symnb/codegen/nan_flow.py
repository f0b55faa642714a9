"""Does NaN in an input reach the result on its own? (skips the kernels' NaN select)

Every generated form function returns NaN where an input is NaN. Most formulas do that
by themselves: NaN + y, NaN * 0, exp(NaN), NaN / y are NaN, and a comparison with NaN
is false, so a regime's condition on x falls through to its last branch. There the
``x != x ? x : (...)`` select the kernels wrap around every result is a compare and a
blend per vector for nothing (PAU 5/4 forward at 1e6, one thread: 309-351 -> 263 us).

:func:`carries_nan` answers conservatively: True only when the printed C gives NaN for a
NaN ``var`` whatever the other inputs and the constants are; anything it does not know
(Max/Min, Heaviside, floor, powers with a symbolic exponent, conditions that do not
compare ``var``) keeps the select.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.gamma import GAMMA_FUNCTIONS

#: Functions whose C implementation (libm or symnb's helpers) is NaN for a NaN argument.
_PASS_THROUGH = frozenset(
    {
        "exp",
        "log",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sinh",
        "cosh",
        "asinh",
        "atan",
        "erf",
        "erfc",
        "erfcx",
        "ierfcx",
        "Abs",
        "sign",
        "sigmoid",
        "softplus",
        "logsigmoid",
        "expm1",
        "log1p",
        "tanh_softplus",
        "sech2_softplus",
        "sigmoid_mul",
    }
) | frozenset(GAMMA_FUNCTIONS)  # the gamma family: NaN in, NaN out

_ORDERED = (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)


def carries_nan(expr: sp.Basic, var: sp.Symbol) -> bool:
    """True if ``expr`` is NaN whenever ``var`` is NaN (see the module docstring)."""
    if expr == var:
        return True
    if not expr.has(var):
        return False
    if isinstance(expr, (sp.Add, sp.Mul)):
        return any(carries_nan(a, var) for a in expr.args)
    if isinstance(expr, sp.Pow):
        base, exp = expr.args
        # pow(NaN, 0) is 1 in C: only a known non-zero exponent passes NaN on
        return bool(exp.is_Number and exp != 0 and carries_nan(base, var))
    if isinstance(expr, sp.Piecewise):
        return _piecewise_carries(expr, var)
    if isinstance(expr, sp.Function) and type(expr).__name__ in _PASS_THROUGH:
        return len(expr.args) == 1 and carries_nan(expr.args[0], var)
    return False


def _false_at_nan(cond: sp.Basic, var: sp.Symbol) -> bool:
    """True if ``cond`` is false when ``var`` is NaN (an ordered comparison of it)."""
    if isinstance(cond, (*_ORDERED, sp.Equality)):
        return carries_nan(cond.lhs, var) or carries_nan(cond.rhs, var)
    if isinstance(cond, sp.And):
        return any(_false_at_nan(c, var) for c in cond.args)
    if isinstance(cond, sp.Or):
        return all(_false_at_nan(c, var) for c in cond.args)
    return False


def _piecewise_carries(expr: sp.Piecewise, var: sp.Symbol) -> bool:
    """Every branch NaN may take carries it (a condition on the constants alone, such
    as the analysed-constants guard of a regime, may go either way)."""
    for branch, cond in expr.args:
        if _false_at_nan(cond, var):
            continue
        if not carries_nan(branch, var):
            return False
        if cond == sp.true:
            return True
    return True  # no branch applies: the printer's SYMNB_NAN


def carries_nan_from_all(exprs, inputs) -> bool:
    """True if every expression carries NaN from every input (no select needed)."""
    return all(carries_nan(e, s) for e in exprs for s in inputs)


__all__ = ["carries_nan", "carries_nan_from_all"]
