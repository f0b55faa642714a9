"""Where a step's derivative is real: the surrogate rule.

Differentiating ``sign(u)`` or ``Heaviside(u)`` gives ``DiracDelta(u)``. In the derivative
``f' = A + g * DiracDelta(u)`` the delta term stands for a jump of f where u = 0, of size
g there. When g vanishes at every point where u = 0 (``sign(x)*log(1 + abs(x))``,
``x*heaviside(x)``), f is continuous: the delta term is exactly 0 and the exact derivative
A is used. Only where f really jumps (``sign(x)``, ``heaviside(x)``, ``x + sign(x)``) does
the delta become a surrogate gradient (see ``symnb.formula.formula.SURROGATES``).

g is evaluated at the solutions of u = 0 (``solveset`` over the reals; for periodic
solutions, five periods); where g itself has a step there, the mean of its one-sided limits
is used (that is the jump of f). Where u = 0 has no closed form and no constants are
involved, the solutions are found numerically in [-1e3, 1e3]. When the solutions cannot be
found (too many, constants without a closed form, out of time), the surrogate is kept.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from symnb.errors import FormulaError
from symnb.formula.budget import Budget

#: Seconds for finding the step locations and the jump at them, per step.
STEP_ANALYSIS_SECONDS = 2.0
#: Most solutions of u = 0 examined per step.
MAX_STEP_LOCATIONS = 8

#: Periods checked when the steps repeat (``sign(sin(x))``): n = -2 ... 2.
PERIODS = range(-2, 3)

# grid of the numeric search: +-10**e for e in -6 ... 3, 24 points per decade
_EXPONENTS = [k / 24 for k in range(-6 * 24, 3 * 24 + 1)]

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


def _jump_vanishes(g: sp.Expr, u: sp.Expr, var: sp.Symbol) -> bool | sp.Expr:
    """True when g is 0 at every real solution of u = 0 (so f does not jump there).

    When that depends on the constants (``sign(x)*max(abs(x) - l, 0)`` jumps at 0 only
    for l < 0), the condition on them under which f does jump (a relational); False
    when f jumps or it cannot be decided."""
    if not u.has(var):
        return False
    if not g.has(var) and not g.free_symbols:
        return _is_zero(g)
    roots = _locations(sp.solveset(u, var, domain=sp.S.Reals))
    if roots is None:
        return _jump_vanishes_numerically(g, u, var)
    jumps = [_value_at(g, var, r) for r in roots]
    if all(_is_zero(j) for j in jumps):
        return True
    undecided = [j for j in jumps if not j.is_number]
    if any(j.is_number and not _is_zero(j) for j in jumps) or not undecided:
        return False
    if any(j.has(var, sp.nan, sp.zoo, sp.oo, -sp.oo, sp.Limit) for j in undecided):
        return False
    return sp.Or(*[sp.Ne(j, 0) for j in undecided])


def _jump_vanishes_numerically(g: sp.Expr, u: sp.Expr, var: sp.Symbol) -> bool:
    """Where u = 0 has no closed form (``x + exp(x)``): find its sign changes on a grid
    over [-1e3, 1e3], refine each by bisection in 40 digits, and check that the mean of g
    just left and right of it is 0. Only without constants (the decision must hold for
    every constant value); otherwise, or when anything fails, False (surrogate kept)."""
    if (u.free_symbols | g.free_symbols) - {var}:
        return False
    try:
        fu = sp.lambdify(var, u.rewrite(sp.exp), modules="mpmath")
        fg = sp.lambdify(var, g.rewrite(sp.exp), modules="mpmath")
        with mpmath.workdps(40):
            grid = sorted({0.0, *(s * 10.0**e for s in (-1, 1) for e in _EXPONENTS)})
            values = [mpmath.mpf(fu(mpmath.mpf(t))) for t in grid]
            brackets = [
                (a, b)
                for (a, va), (b, vb) in zip(
                    zip(grid, values), zip(grid[1:], values[1:])
                )
                if va == 0 or va * vb < 0
            ]
            if not brackets or len(brackets) > MAX_STEP_LOCATIONS:
                return not brackets and all(v != 0 for v in values)
            for a, b in brackets:
                r = mpmath.findroot(fu, (a, b), solver="bisect") if fu(a) != 0 else a
                h = mpmath.mpf(10) ** -20 * (1 + abs(r))
                mean = (fg(r - h) + fg(r + h)) / 2
                if not abs(mean) <= 1e-12:
                    return False
    except Exception:  # noqa: BLE001 - any failure: undecided, keep the surrogate
        return False
    return True


def _locations(solutions: sp.Set) -> list[sp.Expr] | None:
    """Finitely many solutions, or a few periods of periodic ones; None when unknown."""
    if solutions is sp.S.EmptySet:
        return []  # the step never happens
    if isinstance(solutions, sp.FiniteSet):
        found = list(solutions)
        return found if len(found) <= MAX_STEP_LOCATIONS else None
    if isinstance(solutions, sp.ImageSet):
        if solutions.base_sets != (sp.S.Integers,):
            return None
        return [solutions.lamda(n) for n in PERIODS]
    if not isinstance(solutions, sp.Union):
        return None  # a ConditionSet, an interval...
    found = []
    for part in solutions.args:
        sub = _locations(part)
        if sub is None:
            return None
        found += sub
    return found if len(found) <= MAX_STEP_LOCATIONS * len(PERIODS) else None


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
        if isinstance(continuous, sp.Basic) and continuous not in (sp.true, sp.false):
            # the jump depends on the constants: the surrogate only where they make f
            # jump, the exact derivative (delta = 0) where f is continuous. The whole
            # term g*delta is the branch, so a g that overflows is not multiplied by 0
            rest = expr.xreplace({delta: sp.S.Zero})
            gated = sp.Piecewise((g * delta, continuous), (0, True))
            expr = rest + gated
            continue
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
