"""The branch of a Piecewise that holds around a point (pure SymPy, no numerics)."""

from __future__ import annotations

import sympy as sp


def local_branches(
    expr: sp.Expr, var: sp.Symbol, x0: float, subs: dict | None = None
) -> sp.Expr:
    """expr with every Piecewise replaced by its branch that holds on both sides of x0.

    A Piecewise whose branch is not the same at x0 and just left and right of it, or
    whose conditions cannot be decided there (they use other symbols than ``subs``
    gives values for), stays. Limits and series of the result are those of expr at x0;
    SymPy's own expand every branch (the series of ``log(cosh(x))/x``'s stable form took
    40 s, its far branch having softplus and sigmoid, and its limit at 0 gave up).
    """
    d = 1e-30 * max(1.0, abs(x0))
    points = [{var: sp.Float(x0 + e, 30), **(subs or {})} for e in (-d, 0.0, d)]

    def pick(e: sp.Piecewise) -> sp.Expr:
        chosen = None
        for point in points:
            for k, pair in enumerate(e.args):
                held = pair.cond.xreplace(point)
                if held == sp.true:
                    break
                if held != sp.false:
                    return e
            else:
                return e
            if chosen not in (None, k):
                return e
            chosen = k
        return e.args[chosen].expr

    return expr.replace(lambda e: isinstance(e, sp.Piecewise), pick)
