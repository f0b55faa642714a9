"""Rare far-|x| branches: computed only for the elements that need them.

The robustness engine (:mod:`symnb.robust.regimes`) adds branches such as "for
``x >= T`` use this large-|x| form": ``Piecewise((far, x >= T), (near, True))``. Printed
as a select, a SIMD loop computes ``far`` for every element, although ordinary inputs
never reach it: PAU 5/4's far forms with its constants as symbols (Horner in 1/x for f
and f', both signs) made its float32 kernels 9x (forward) and 17x (forward and
backward) slower at 1e5 elements.

A branch is **rare** when

* its condition compares the input with a number on the far side only: ``x >= T`` or
  ``x > T`` with ``T >= RARE_MIN_MAGNITUDE``, ``x <= T`` or ``x < T`` with
  ``T <= -RARE_MIN_MAGNITUDE`` (the thresholds of the engine's large-|x| tails:
  ``6.7e7`` for PAU 5/4 in float32, ``4.5e61`` in float64), and
* it costs at least ``RARE_MIN_OPERATIONS`` operations (SymPy's ``count_ops``): a
  constant or linear asymptote stays a select, which costs less than the flag.

:func:`split_rare` takes the rare branches out of every ``Piecewise`` of a group of
expressions (``near``, which equals the whole wherever no rare condition holds: a
Piecewise tries its branches in order, and a false condition passes to the next) and
returns the conditions. The kernels (:mod:`symnb.codegen.kernels`) compute ``near`` in
the SIMD loop, selected to 0 where a rare condition holds (the near form may be
inf/inf = NaN there, and a sum over elements then adds 0), OR-reduce a flag, and only
when it is set run a second, scalar pass over the flagged elements with the whole
expression. Where that cannot work (an output that is an input: the second pass would
need the inputs) and in layers and the fused training step, a run of elements is tested
first (its largest magnitude, as bits: one integer max per vector) and then the near or
the whole loop runs. CUDA branches per thread instead (a warp diverges only where one
of its elements is far; a host build of the CUDA text does so with
``-DSYMNB_RARE_BRANCH``, else it selects); NumPy evaluates the whole expression on the
far elements only. A NaN input satisfies no condition, so it takes the near form, as
the select did (the magnitude test counts NaN as far: the whole loop, same values).
"""

from __future__ import annotations

import functools

import sympy as sp

#: Smallest |threshold| of a rare branch's condition.
RARE_MIN_MAGNITUDE = 1e4
#: Fewest operations (``sympy.count_ops``) of a rare branch.
RARE_MIN_OPERATIONS = 8


def _rare_condition(cond, var: sp.Symbol) -> bool:
    if not isinstance(cond, (sp.GreaterThan, sp.StrictGreaterThan)) and not isinstance(
        cond, (sp.LessThan, sp.StrictLessThan)
    ):
        return False
    lhs, rhs = cond.lhs, cond.rhs
    if lhs == var and rhs.is_number:
        big, t = cond.rel_op in (">=", ">"), rhs
    elif rhs == var and lhs.is_number:
        big, t = cond.rel_op in ("<=", "<"), lhs
    else:
        return False
    try:
        t = float(t)
    except TypeError:
        return False
    return t >= RARE_MIN_MAGNITUDE if big else t <= -RARE_MIN_MAGNITUDE


def _without_rare(expr: sp.Expr, var: sp.Symbol, found: list) -> sp.Expr:
    if not expr.args or not expr.has(sp.Piecewise):
        return expr
    if isinstance(expr, sp.Piecewise):
        kept = []
        for e, c in expr.args:
            if (
                c != True
                and _rare_condition(c, var)
                and sp.count_ops(e) >= RARE_MIN_OPERATIONS
            ):
                if c not in found:
                    found.append(c)
                continue
            kept.append((_without_rare(e, var, found), c))
        if len(kept) == 1 and kept[0][1] == True:
            return kept[0][0]
        return sp.Piecewise(*kept)
    args = [_without_rare(a, var, found) for a in expr.args]
    return expr.func(*args)


@functools.lru_cache(maxsize=1024)
def split_rare(
    exprs: tuple[sp.Expr, ...], var: sp.Symbol
) -> tuple[tuple[sp.Expr, ...], tuple] | None:
    """``(near expressions, rare conditions)`` of ``exprs`` in the input ``var``, or
    None when they have no rare branch (see the module docstring)."""
    found: list = []
    near = tuple(_without_rare(e, var, found) for e in exprs)
    if not found:
        return None
    return near, tuple(found)


def far_magnitude(conditions: tuple) -> float:
    """The smallest ``|T|`` of the rare conditions: every element where one holds has
    ``|x| >= far_magnitude``."""
    return min(abs(float(c.rhs if c.rhs.is_number else c.lhs)) for c in conditions)


def rare_condition(conditions: tuple) -> sp.Basic:
    """One condition that holds where any of ``conditions`` does."""
    return sp.Or(*conditions) if len(conditions) > 1 else conditions[0]


__all__ = [
    "RARE_MIN_MAGNITUDE",
    "RARE_MIN_OPERATIONS",
    "far_magnitude",
    "rare_condition",
    "split_rare",
]
