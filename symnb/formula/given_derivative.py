"""Whether a derivative given with ``derivative=...`` is the formula's own derivative.

A slip in a hand-written derivative (``derivative="3*x**2 + 1"`` for ``x**3``) trained
silently with wrong gradients. The given derivative is still used as given (a surrogate
is a legitimate choice), but the user is told where it differs from d/dx f: with a
warning when f has no step or kink (a mistake is then the likely reason), with a note
only when it has one (a straight-through or smooth surrogate is the usual reason).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.realdiff import real_diff
from symnb.robust.deadline import time_limit

#: Where the two derivatives are compared (a few on each side, some inside (0, 1) for
#: losses of probabilities); a point where either is not a finite real is skipped.
POINTS = (-2.3, -0.7, 0.15, 0.4, 0.85, 1.3, 2.9)
#: The value of every further input (a loss's y_true) at the comparison.
OTHER_INPUT = 0.7
#: Relative difference above which the derivatives differ.
TOLERANCE = 1e-7
#: CPU seconds the comparison may take: past it nothing is said.
SECONDS = 2.0

_KINKS = (
    sp.Heaviside,
    sp.sign,
    sp.floor,
    sp.ceiling,
    sp.Piecewise,
    sp.Abs,
    sp.Max,
    sp.Min,
    sp.DiracDelta,
)


def differs_note(
    f: sp.Expr,
    given: sp.Expr,
    var: sp.Symbol,
    values: dict[sp.Symbol, float],
    others: tuple[sp.Symbol, ...],
    show: str,
) -> tuple[str | None, bool]:
    """(a note saying where ``given`` differs from d``f``/d``var``, or None; whether
    to warn). ``values`` are the constants' values, ``others`` the further inputs,
    ``show`` the variable's name as the user typed it."""
    try:
        with time_limit(SECONDS, "compare the given derivative with f's own"):
            exact = real_diff(f, var)[0].replace(sp.DiracDelta, lambda *a: sp.S.Zero)
            at = {**values, **{o: OTHER_INPUT for o in others}}
            exact, given = exact.xreplace(at), given.xreplace(at)
            for p in POINTS:
                mine = _value(exact, var, p)
                theirs = _value(given, var, p)
                if mine is None or theirs is None:
                    continue
                if abs(mine - theirs) > TOLERANCE * max(1.0, abs(mine), abs(theirs)):
                    kinked = f.has(*_KINKS)
                    return (
                        f"the given derivative differs from d/d{show} of the formula "
                        f"(at {show} = {p:g}: given {theirs:.6g}, exact {mine:.6g}); it "
                        "is used as given"
                        + ("" if kinked else ", check it for a slip"),
                        not kinked,
                    )
    except Exception:  # noqa: BLE001 - no verdict is better than a crash or a hang
        return None, False
    return None, False


def _value(e: sp.Expr, var: sp.Symbol, p: float) -> float | None:
    v = sp.N(e.xreplace({var: sp.Float(p, 30)}), 20)
    if not v.is_number or not v.is_real or not v.is_finite:
        return None
    return float(v)
