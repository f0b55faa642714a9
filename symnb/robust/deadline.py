"""A deadline that really interrupts the analysis, in any thread.

It is the symbolic pipeline's own :class:`symnb.formula.budget.Budget` (a watchdog thread
that raises inside the working one); its ``FormulaError`` becomes :class:`OutOfTime`, so
an analysis that runs out of time, or fails inside SymPy, never stops a compile.
"""

from __future__ import annotations

from contextlib import contextmanager

from symnb.errors import FormulaError


class OutOfTime(Exception):
    """The analysis ran past its time budget (or SymPy failed inside it)."""


@contextmanager
def time_limit(seconds: float, what: str = "analyse the numerical accuracy"):
    """Raise :class:`OutOfTime` from the block after ``seconds``."""
    from symnb.formula.budget import Budget

    try:
        with Budget(what, max(seconds, 1e-3)):
            yield
    except FormulaError as exc:
        raise OutOfTime(str(exc).splitlines()[0]) from exc
