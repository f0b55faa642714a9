"""One time budget for the symbolic pipeline, in any thread, and size checks before
expensive SymPy calls.

SymPy has no cancellation, and ``SIGALRM`` only reaches the main thread, while widgets and
training run formulas in other threads. :class:`Budget` therefore uses a watchdog timer that
raises an exception *inside* the working thread (``PyThreadState_SetAsyncExc``, delivered
between Python bytecodes; SymPy is pure Python). The exception derives from
``BaseException`` so that SymPy's own ``except Exception`` blocks cannot swallow it; it
becomes a :class:`~symnb.errors.FormulaError` when the block exits.

Budgets nest: an inner budget never outlives the outer one, and an outer deadline that
expires inside an inner block is reported by the outer block.

Checks before calls that a deadline cannot interrupt well (one huge C-level or quadratic
step): :func:`predicted_terms` (the number of terms ``expand`` would produce) and
:data:`MAX_MINMAX_ARGS` (``Max``/``Min`` compare all pairs of arguments, and their
derivative builds one ``Max`` per argument).
"""

from __future__ import annotations

import ctypes
import math
import platform
import threading
import time

import sympy as sp

from symnb.errors import FormulaError

#: Seconds the whole symbolic stage of one formula may take (parse, rewrite, diff, limits).
SYMBOLIC_TIME_BUDGET = 10.0
#: Most arguments of one ``max``/``min`` (after nested ones are merged). SymPy compares all
#: pairs when building it and differentiates it into one ``Max`` per argument: 16 arguments
#: took 3.5 s to differentiate here, 32 over 10 s.
MAX_MINMAX_ARGS = 12
#: Most terms an ``expand`` may produce before symnb refuses to call it.
MAX_EXPAND_TERMS = 2000

_CAN_INTERRUPT = platform.python_implementation() == "CPython"
_local = threading.local()


class _Deadline(BaseException):
    """Raised inside the working thread when its budget runs out (one subclass per budget)."""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    # exc None clears a pending exception (passed as NULL)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc is not None else None
    )


class Budget:
    """``with Budget("differentiate f"):`` -- a deadline that really interrupts.

    Past ``seconds`` the block is interrupted and a ``FormulaError`` says what could not be
    done. Any other exception from SymPy (``RecursionError``, ``MemoryError`` included)
    also becomes a ``FormulaError``. Works in every thread (CPython).
    """

    def __init__(self, what: str, seconds: float = SYMBOLIC_TIME_BUDGET) -> None:
        self.what = what
        self.seconds = float(seconds)
        self._exc = type("SymbolicDeadline", (_Deadline,), {})
        self._lock = threading.Lock()
        self._active = False
        self._fired = False
        self._timer: threading.Timer | None = None
        self._thread_id = 0

    # -- timer ---------------------------------------------------------------------

    def _fire(self) -> None:
        with self._lock:
            if not self._active:
                return
            self._fired = True
            _set_async_exc(self._thread_id, self._exc)
            # fire again if something swallowed it (a bare except somewhere in SymPy)
            self._timer = threading.Timer(0.25, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def remaining(self) -> float:
        """Seconds left (inf when the budget is not running)."""
        end = getattr(self, "_end", None)
        return math.inf if end is None else max(0.0, end - time.monotonic())

    def __enter__(self) -> Budget:  # noqa: PYI034
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        outer = stack[-1].remaining() if stack else math.inf
        seconds = min(self.seconds, outer)
        self._end = time.monotonic() + seconds
        stack.append(self)
        if _CAN_INTERRUPT:
            self._thread_id = threading.get_ident()
            self._timer = threading.Timer(seconds, self._fire)
            self._timer.daemon = True
            try:
                with self._lock:  # no interrupt before the block has started
                    self._active = True
                    self._timer.start()
            except self._exc:  # pragma: no cover - a budget of (almost) 0 s
                self.__exit__(self._exc, None, None)
        return self

    def _stop(self) -> None:
        with self._lock:
            self._active = False
            if self._timer is not None:
                self._timer.cancel()
            if self._fired:
                _set_async_exc(self._thread_id, None)  # not delivered yet: drop it

    def __exit__(self, exc_type, exc, tb):
        while True:
            try:
                self._stop()
                break
            except self._exc:  # fired just as the block ended: it finished, stop again
                continue
        stack = _local.stack
        if stack and stack[-1] is self:
            stack.pop()
        if exc_type is not None and issubclass(exc_type, self._exc):
            raise FormulaError(
                f"could not {self.what}: the symbolic stage took longer than "
                f"{self.seconds:g} s",
                suggestion="simplify the formula or give its derivative explicitly "
                "(derivative=...)",
            ) from None
        if (
            exc_type is not None
            and issubclass(exc_type, Exception)
            and not issubclass(exc_type, FormulaError)
        ):
            # any SymPy failure (RecursionError and MemoryError included) -> FormulaError
            raise FormulaError(
                f"could not {self.what}: {exc_type.__name__}: {exc}"
            ) from exc
        return False


def predicted_terms(expr: sp.Basic) -> int:
    """An upper bound of the number of terms ``sp.expand(expr)`` gives, without expanding.

    A sum adds, a product multiplies, ``(a1+...+an)**k`` gives C(n+k-1, k) (the multinomial
    count) for a positive integer k. Other nodes count as one term (expand also expands
    inside function arguments, which is bounded separately by the same rule).
    """
    cache: dict[sp.Basic, int] = {}

    def count(e: sp.Basic) -> int:
        if e in cache:
            return cache[e]
        if isinstance(e, sp.Add):
            n = sum(count(a) for a in e.args)
        elif isinstance(e, sp.Mul):
            n = 1
            for a in e.args:
                n *= count(a)
                if n > 10**12:
                    break
        elif isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            base = count(e.base)
            k = int(e.exp)
            n = 1 if base == 1 else math.comb(base + k - 1, min(k, base - 1))
        else:
            n = 1
            for a in e.args:  # expand works inside functions too
                if isinstance(a, sp.Basic):
                    n = max(n, count(a))
        n = min(n, 10**12)
        cache[e] = n
        return n

    return count(expr)


def bounded_expand(expr: sp.Expr, max_terms: int = MAX_EXPAND_TERMS) -> sp.Expr | None:
    """``sp.expand(expr)``, or None when it would produce more than ``max_terms`` terms."""
    if predicted_terms(expr) > max_terms:
        return None
    return sp.expand(expr)


def check_minmax_arity(fn: type, args: tuple, where: str = "") -> None:
    """Refuse a ``Max``/``Min`` whose merged argument count passes :data:`MAX_MINMAX_ARGS`."""
    n = sum(len(a.args) if isinstance(a, fn) else 1 for a in args)
    if n > MAX_MINMAX_ARGS:
        name = "max" if fn is sp.Max else "min"
        raise FormulaError(
            f"{name}(...) has {n} arguments{where}, at most {MAX_MINMAX_ARGS}: SymPy "
            "compares every pair and its derivative grows with the square",
            suggestion="use fewer arguments (nested max/min are merged into one)",
        )


__all__ = [
    "MAX_EXPAND_TERMS",
    "MAX_MINMAX_ARGS",
    "SYMBOLIC_TIME_BUDGET",
    "Budget",
    "bounded_expand",
    "check_minmax_arity",
    "predicted_terms",
]
