"""A deadline that really interrupts the analysis, in any thread.

It is the symbolic pipeline's own :class:`symnb.formula.budget.Budget` (a watchdog thread
that raises inside the working one); its ``FormulaError`` becomes :class:`OutOfTime`, so
an analysis that runs out of time, or fails inside SymPy, never stops a compile.
"""

from __future__ import annotations

from contextlib import contextmanager

from symnb.errors import FormulaError
from symnb.formula.budget import cpu_clock

__all__ = ["OutOfTime", "cpu_clock", "time_limit"]


class OutOfTime(Exception):
    """The analysis ran past its time budget (or SymPy failed inside it)."""


@contextmanager
def time_limit(seconds: float, what: str = "analyse the numerical accuracy"):
    """Raise :class:`OutOfTime` from the block after ``seconds`` of this thread's CPU
    time (:func:`cpu_clock`; deadlines passed around the analysis use the same clock)."""
    from symnb.formula.budget import Budget

    try:
        with Budget(what, max(seconds, 1e-3)):
            yield
    except FormulaError as exc:
        raise OutOfTime(str(exc).splitlines()[0]) from exc
