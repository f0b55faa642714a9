"""A chain of equal forms, ``f(x) = x\\sigma(x) = \\frac{x}{1 + e^{-x}}``: one function.

The LaTeX reader takes the last side of a definition chain. Papers write equal forms
so, but notes and chat answers also write an approximation with '='
(``x\\Phi(x) = 0.5x(1 + \\tanh(...))``), which would be read silently in the exact
form's place. :func:`refuse_unequal` reads every right-hand side and compares them at
a few points (constants at one shared value): sides that differ are refused naming
both; a side with no reading alone (``f(x)``, a text) is not compared, and the
last one's problem is left to the reader's own error.
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: The points sides are compared at (off the usual kinks 0 and +-1), and the value of
#: every constant there.
_POINTS = (-2.3, -0.7, 0.35, 1.2, 3.1)
_CONSTANT = 0.83
_TOLERANCE = 1e-9
#: The most sides compared (each is read as a formula of its own).
_MAX_SIDES = 8


class UnequalSides(ValueError):
    """Two sides of a chain of '=' that are different functions."""


def refuse_unequal(
    sides: list[str], declared: tuple[str, ...], read: Callable[[str], str]
) -> None:
    """Raise :class:`UnequalSides` where two of ``sides`` (LaTeX) differ; ``read``
    turns one side into formula text (the LaTeX reader)."""
    import sympy as sp

    from symnb.formula.parse import parse_formula

    if len(sides) > _MAX_SIDES:
        raise UnequalSides(
            f"a chain of {len(sides)} sides joined by '=' is more than {_MAX_SIDES} "
            "forms to compare: type the one meant alone"
        )
    read_sides = []
    for side in sides:
        try:
            read_sides.append((side, parse_formula(read(side), constants=declared)))
        except Exception:  # noqa: BLE001 - a side without a reading alone: not compared
            if side is sides[-1]:
                return
    *others, (_, last) = read_sides
    for side, expr in others:
        for x0 in _POINTS:
            a, b = (_value(e, x0, sp) for e in (expr, last))
            if a is None or b is None:
                continue
            if abs(a - b) > _TOLERANCE * max(1.0, abs(a), abs(b)):
                raise UnequalSides(
                    f"the sides '{side.strip()[:60]}' and '{sides[-1].strip()[:60]}' "
                    f"of '=' differ (at x = {x0}: {a:.6g} and {b:.6g}): type the one "
                    "meant alone (\\approx marks an approximation)"
                )


def _value(expr, x0: float, sp) -> float | None:
    """``expr`` at x = x0, every other symbol at _CONSTANT (None where not finite)."""
    values = {s: (x0 if s.name == "x" else _CONSTANT) for s in expr.free_symbols}
    try:
        value = complex(expr.subs(values).evalf(30))
    except Exception:  # noqa: BLE001 - not a number there: not compared
        return None
    if value.imag != 0 or not math.isfinite(value.real):
        return None
    return value.real
