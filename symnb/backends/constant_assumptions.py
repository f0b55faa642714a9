"""What a compiled program assumes of its constants, and whether new values keep it.

A program is lowered (``robust.engine``) and, in float32, has its cancelling
constant-only parts hoisted (``codegen.constant_parts``) at the constants it is
compiled with. Constants then change without a recompile (``set_constants``,
``params``, ``write_params``, sliders, training, ``to_torch``), and some forms are
only right for constants like the compiled ones:

- the sign of each constant: rewrites chosen for c != 0 divide by c or multiply
  ``inf*0`` at c = 0 (``x*exp(-c*x**2)`` compiled at c = 1 was NaN at c = 0 from
  |x| = 1e20 in float32, where it is x; ``log(1 + c*x**2)`` gave -inf), and forms
  analysed at c = 0 or c > 0 do not hold their accuracy for c < 0;
- its scale, to within a factor of about 1000 (:func:`scale_class`): forms
  analysed at lambda = 2 lose what is left at 1e-8 (``1 - (1 + l*exp(x))**(-1/l)``
  gave 0 at x = 0 in float32 where it is 0.632), and their regime branches for
  large |x| hold for the analysed constants only (``log(1 + b*max(0, x))`` was inf
  at x = 3e38 with b moved from 1 to 1e8, where it is 107);
- float32 parts left in the kernel because they did not cancel at the compiled
  constants: ``(exp((1 - t)*x) - 1)/(1 - t)`` compiled at t = 0.5 computed
  ``1 - t`` in float32 and was NaN at t = 0.99999999.

:func:`of` records these (:class:`Assumptions`) for a program; ``backends.kernel``
asks :meth:`Assumptions.broken` at each change of the constants (a few
microseconds) and, where one breaks, runs a program built for the new constants
(``backends.select.rebuild``: through the in-process and disk caches), keeping
the programs it built, so a slider that crosses 0 back and forth compiles once per
side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import sympy as sp

from symnb.codegen import constant_parts
from symnb.formula.internal import param_symbol


@dataclass(frozen=True)
class Assumptions:
    """``classes[k]``: the :func:`scale_class` (sign and decade band) of constant k
    the forms were lowered at;
    ``watched``: constant-only parts computed in the kernel's dtype that did not
    cancel there (they are hoisted, into float64, where they cancel)."""

    classes: tuple[int, ...]
    watched: tuple[sp.Expr, ...] = ()

    def broken(self, values: Any) -> str | None:
        """Why the forms do not hold at ``values`` (the formula's constants as
        given, float64), or None where they do (about 2 us, plus about 10 us per
        watched part)."""
        vals = [float(v) for v in values[: len(self.classes)]]
        classes = tuple(scale_class(v) for v in vals)
        if classes != self.classes:
            return f"constant sign or scale {self.classes} -> {classes}"
        if self.watched:
            wide = [np.float64(v) for v in vals]
            narrow = [np.float32(v) for v in vals]
            with np.errstate(all="ignore"):
                for part, fn in zip(self.watched, self._evaluators):
                    if _cancels(fn, wide, narrow):
                        return f"{part} cancels in float32"
        return None

    @cached_property
    def _evaluators(self) -> tuple:
        """The watched parts as the numpy backend evaluates them."""
        from symnb.backends.numpy_ import _lambdify

        args = tuple(param_symbol(k) for k in range(len(self.classes)))
        return tuple(_lambdify(part, args) for part in self.watched)


#: where the scale classes start (10**1.5 = 31.6: the values a slider or training
#: usually gives a constant, 0.05 to 20, share one class)
_SCALE_OFFSET = 1.5
#: decades per scale class
_SCALE_DECADES = 3.0


def scale_class(value: float) -> int:
    """0 for 0, else the sign of ``value`` times its decade band (1 + the number
    of bands of :data:`_SCALE_DECADES` decades above 1e-330): constants in one
    class share the forms lowered at any of them."""
    return int(scale_classes(np.array([value], dtype=np.float64))[0])


def scale_classes(values: np.ndarray) -> np.ndarray:
    """:func:`scale_class` of each entry (int64)."""
    a = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        band = np.floor((np.log10(a) + _SCALE_OFFSET) / _SCALE_DECADES) + 200
    return np.where(a == 0, 0, np.sign(values) * np.where(a == 0, 0, band)).astype(
        np.int64
    )


def _cancels(fn: Any, wide: list, narrow: list) -> bool:
    """``constant_parts._cancels`` with the evaluator at hand."""
    try:
        exact, got = fn(*wide), fn(*narrow)
        if np.ndim(exact) or np.iscomplexobj(exact) or np.iscomplexobj(got):
            return False
        exact, got = float(exact), float(got)
    except Exception:  # noqa: BLE001 - not computable: the part stays as it is
        return False
    return constant_parts.lost(exact, got)


def of(forms: tuple, lowered: tuple, dtype: str) -> Assumptions:
    """The assumptions of a program of one form: ``forms[0]`` as given (its
    constants), ``lowered`` the forms compiled (hoisted and analysed)."""
    form = forms[0]
    n = len(form.params)
    classes = tuple(scale_class(float(v)) for v in form.param_values)
    watched: dict[sp.Expr, None] = {}
    if dtype in constant_parts.DTYPES and n:
        own = frozenset(form.params)
        for low in lowered:
            for e in (low.f, low.df, *low.dparams):
                _watch(e, own, watched)
    return Assumptions(classes, tuple(watched))


def _watch(e: sp.Basic, own: frozenset, found: dict) -> None:
    """The largest parts of ``e`` in the constants ``own`` alone that could
    cancel in float32 (``constant_parts._sensitive``)."""
    if (
        isinstance(e, sp.Expr)
        and not e.is_Atom
        and constant_parts._constant_only(e, own)
        and not (e.is_Pow and e.exp.is_Number and e.exp < 0)
        and constant_parts._sensitive(e)
    ):
        found.setdefault(e, None)
        return
    for a in e.args:
        if isinstance(a, sp.Basic):
            _watch(a, own, found)
