"""Where a step's derivative is real: the surrogate rule.

Differentiating ``sign(u)`` or ``Heaviside(u)`` gives ``DiracDelta(u)``. In the derivative
``f' = A + g * DiracDelta(u)`` the delta term stands for a jump of f where u = 0, of size
g there. When g vanishes at every point where u = 0 (``sign(x)*log(1 + abs(x))``,
``x*heaviside(x)``), f is continuous: the delta term is exactly 0 and the exact derivative
A is used. Only where f really jumps (``sign(x)``, ``heaviside(x)``, ``x + sign(x)``) does
the delta become a surrogate gradient (see ``symnb.formula.formula.SURROGATES``).

g is evaluated at the solutions of u = 0 (``solveset`` over the reals; for periodic
solutions, five periods); where g itself has a step there, the mean of its one-sided limits
is used (that is the jump of f). When the solutions cannot be found (too many, of unknown
form, or out of time), the surrogate is kept.
"""

from __future__ import annotations

import sympy as sp

from symnb.errors import FormulaError
from symnb.formula.budget import Budget

#: Seconds for finding the step locations and the jump at them, per step.
STEP_ANALYSIS_SECONDS = 2.0
#: Most solutions of u = 0 examined per step.
MAX_STEP_LOCATIONS = 8

#: Periods checked when the steps repeat (``sign(sin(x))``): n = -2 ... 2.
PERIODS = range(-2, 3)

_JUMPY = (sp.sign, sp.Heaviside, sp.Piecewise, sp.floor, sp.ceiling, sp.frac)


def _is_zero(v: sp.Expr) -> bool:
    if v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return False
    z = v.is_zero
    if z is None:
        z = sp.simplify(v).is_zero
    return bool(z)


def _value_at(g: sp.Expr, var: sp.Symbol, r: sp.Expr) -> sp.Expr:
    """g at var = r; the mean of the one-sided limits where g has a step of its own."""
    if not g.has(*_JUMPY):
        return g.subs(var, r)
    right = sp.limit(g, var, r, "+")
    left = sp.limit(g, var, r, "-")
    return (right + left) / 2


def _jump_vanishes(g: sp.Expr, u: sp.Expr, var: sp.Symbol) -> bool:
    """True when g is 0 at every real solution of u = 0 (so f does not jump there)."""
    if not u.has(var):
        return False
    if not g.has(var) and not g.free_symbols:
        return _is_zero(g)
    roots = _locations(sp.solveset(u, var, domain=sp.S.Reals))
    if roots is None:
        return False
    return all(_is_zero(_value_at(g, var, r)) for r in roots)


def _locations(solutions: sp.Set) -> list[sp.Expr] | None:
    """Finitely many solutions, or a few periods of periodic ones; None when unknown."""
    if solutions is sp.S.EmptySet:
        return []  # the step never happens
    if isinstance(solutions, sp.FiniteSet):
        found = list(solutions)
        return found if len(found) <= MAX_STEP_LOCATIONS else None
    parts = solutions.args if isinstance(solutions, sp.Union) else (solutions,)
    found = []
    for part in parts:
        sub = _locations(part) if not isinstance(part, sp.ImageSet) else None
        if isinstance(part, sp.ImageSet) and part.base_sets == (sp.S.Integers,):
            sub = [part.lamda(n) for n in PERIODS]
        if sub is None:
            return None
        found += sub
    return found


def drop_continuous_steps(
    expr: sp.Expr, var: sp.Symbol
) -> tuple[sp.Expr, list[sp.Expr]]:
    """Replace each ``DiracDelta(u)`` of ``expr`` (a derivative w.r.t. ``var``) by 0 where
    the function is continuous across u = 0. Returns the new expression and the u dropped.
    """
    dropped: list[sp.Expr] = []
    for delta in sorted(expr.atoms(sp.DiracDelta), key=sp.default_sort_key):
        if len(delta.args) > 1 and delta.args[1] != 0:
            continue
        u = delta.args[0]
        marker = sp.Dummy("delta")
        g = sp.diff(
            expr.xreplace({delta: marker}), marker
        )  # the derivative is linear in it
        try:
            with Budget("find where a step jumps", STEP_ANALYSIS_SECONDS):
                continuous = _jump_vanishes(g, u, var)
        except FormulaError:
            continuous = False  # undecided: keep the surrogate
        if continuous:
            expr = expr.xreplace({delta: sp.S.Zero})
            dropped.append(u)
    if dropped:
        at = set(dropped)
        # sign(u)**2 is 1 except at u = 0, where the (continuous) function's derivative is
        # the limit from either side: sign(x)*log(1 + |x|) has derivative 1 at 0, not 0
        expr = expr.replace(
            lambda e: (
                isinstance(e, sp.Pow)
                and isinstance(e.base, sp.sign)
                and e.base.args[0] in at
                and e.exp.is_even
                and e.exp.is_positive
            ),
            lambda e: sp.S.One,
        )
    return expr, dropped


__all__ = ["drop_continuous_steps"]
