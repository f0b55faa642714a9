"""One time budget for the symbolic pipeline, in any thread, and size checks before
expensive SymPy calls.

SymPy has no cancellation, and ``SIGALRM`` only reaches the main thread, while widgets and
training run formulas in other threads. :class:`Budget` therefore uses a watchdog thread
that raises an exception *inside* the working thread (``PyThreadState_SetAsyncExc``, delivered
between Python bytecodes; SymPy is pure Python). The exception derives from
``BaseException`` so that SymPy's own ``except Exception`` blocks cannot swallow it; it
becomes a :class:`~symnb.errors.FormulaError` when the block exits.

Budgets nest: each has its own deadline, and an outer deadline that expires inside an
inner block is reported by the outer block.

Budgets count the working thread's CPU time (:func:`cpu_clock`), not the wall clock: on a
machine busy with other work (a training thread, a test run on every core) a wall-clock
budget ran out on formulas that take seconds, and the same formula was analysed or not,
got its limit at 0 or not, depending on the load. A wall-clock backstop of
:data:`WALL_FACTOR` times the budget still ends a block that waits instead of computing.

Checks before calls that a deadline cannot interrupt well (one huge C-level or quadratic
step): :func:`predicted_terms` (the number of terms ``expand`` would produce) and
:data:`MAX_MINMAX_ARGS` (``Max``/``Min`` compare all pairs of arguments, and their
derivative builds one ``Max`` per argument).
"""

from __future__ import annotations

import ctypes
import math
import os
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
MAX_EXPAND_TERMS = 200

_CAN_INTERRUPT = platform.python_implementation() == "CPython"
#: Seconds between the watchdog's checks while a budget runs, and when none does.
_POLL_SECONDS = 0.02
_IDLE_SECONDS = 0.2
#: Seconds between repeated interrupts of a block that swallowed one.
_REPEAT_SECONDS = 0.25
#: A block is interrupted after its budget of CPU time, or this many times its budget
#: of wall-clock time (a block that waits uses no CPU time).
WALL_FACTOR = 4.0


def cpu_clock() -> float:
    """This thread's CPU seconds: the clock of every symbolic and analysis deadline."""
    return time.thread_time()


def _thread_cpu_clock(thread_id: int) -> int | None:
    """The CPU-time clock id of thread ``thread_id``, None where there is none."""
    try:
        return time.pthread_getcpuclockid(thread_id)
    except (AttributeError, OSError, OverflowError):
        return None


def _cpu_used(budget: Budget) -> float:
    """CPU seconds ``budget``'s thread spent in the block (0 without a CPU clock)."""
    if budget._clock is None:
        return 0.0
    try:
        return time.clock_gettime(budget._clock) - budget._cpu0
    except OSError:  # the thread is gone
        return 0.0


_lock = threading.Lock()
_active: dict[int, Budget] = {}  # id(budget) -> running budget
_watchdog_started = False


class _Deadline(BaseException):
    """Raised inside the working thread when its budget runs out (one subclass per budget)."""


class _Dropped(BaseException):
    """Set in place of a pending interrupt and caught at once (see :func:`_drop_pending`)."""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    # exc None clears a pending exception (passed as NULL)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc is not None else None
    )


#: Backward jumps :func:`_drop_pending` waits for its own exception to land (one does).
_DROP_STEPS = 100_000


def _drop_pending() -> None:
    """Clear an interrupt pending for the calling thread.

    ``PyThreadState_SetAsyncExc(id, NULL)`` clears it but leaves the interpreter's eval
    breaker set (CPython 3.11): every later check then takes the slow path, and under a
    tracer (a debugger, coverage) the next Python call spun forever. So the pending
    interrupt is replaced by :class:`_Dropped`, which lands at the next backward jump
    and resets the breaker. Call it holding ``_lock`` (no other interrupt can come).
    """
    thread_id = threading.get_ident()
    try:
        _set_async_exc(thread_id, _Dropped)  # lands here (after the C call) ...
        for _ in range(_DROP_STEPS):  # ... or at a backward jump
            pass
    except _Dropped:
        return
    _set_async_exc(thread_id, None)  # not landed (not CPython's eval loop): clear it


def _watch() -> None:
    """The one watchdog thread: interrupts every running block past its deadline."""
    while True:
        time.sleep(_POLL_SECONDS if _active else _IDLE_SECONDS)
        now = time.monotonic()
        with _lock:
            for budget in list(_active.values()):
                cpu_out = not budget._fired and _cpu_used(budget) >= budget.seconds
                if now >= budget._next_interrupt or cpu_out:
                    if not budget._fired:
                        budget._by_wall = not cpu_out
                    budget._fired = True
                    _set_async_exc(budget._thread_id, budget._exc)
                    budget._next_interrupt = now + _REPEAT_SECONDS


def _ensure_watchdog() -> None:
    global _watchdog_started
    if _watchdog_started:
        return
    with _lock:
        if _watchdog_started:
            return
        _watchdog_started = True
    threading.Thread(target=_watch, name="symnb-budget", daemon=True).start()


def _after_fork_in_child() -> None:
    global _lock, _watchdog_started
    _lock = threading.Lock()
    _active.clear()
    _watchdog_started = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_wall_expiries = 0


def _count_wall_expiry() -> None:
    global _wall_expiries
    _wall_expiries += 1


def wall_expiries() -> int:
    """How many budgets of this process ran out on the wall-clock backstop before
    their CPU time: a busy machine, not the formula, cut that work short (the
    analysis cache does not keep a result made while one did)."""
    return _wall_expiries


class Budget:
    """``with Budget("differentiate f"):`` -- a deadline that really interrupts.

    Past ``seconds`` the block is interrupted and a ``FormulaError`` says what could not be
    done. Any other exception from SymPy (``RecursionError``, ``MemoryError`` included)
    also becomes a ``FormulaError``. Works in every thread (CPython). The working thread
    never starts, waits for or cancels a thread itself (an interrupt landing inside
    ``threading`` internals could leave a lock held): one watchdog thread does that.
    """

    def __init__(self, what: str, seconds: float = SYMBOLIC_TIME_BUDGET) -> None:
        self.what = what
        self.seconds = float(seconds)
        self._exc = type("SymbolicDeadline", (_Deadline,), {})
        self._fired = False
        self._by_wall = False  # fired by the wall-clock backstop, not the CPU budget
        self._thread_id = 0
        self._clock: int | None = None
        self._cpu0 = 0.0
        self._next_interrupt = math.inf  # the wall-clock backstop, then repeats

    def __enter__(self) -> Budget:  # noqa: PYI034
        self._thread_id = threading.get_ident()
        self._clock = _thread_cpu_clock(self._thread_id)
        self._cpu0 = (
            cpu_clock() if self._clock is None else time.clock_gettime(self._clock)
        )
        # without a CPU clock for the thread, the budget is wall-clock time
        factor = 1.0 if self._clock is None else WALL_FACTOR
        self._next_interrupt = time.monotonic() + factor * self.seconds
        if _CAN_INTERRUPT:
            _ensure_watchdog()  # before registering: nothing can interrupt this yet
            try:
                with _lock:
                    _active[id(self)] = self
            except BaseException:  # an outer budget's interrupt landed here
                self._unregister()
                raise
        return self

    def _unregister(self) -> BaseException | None:
        """Stop interrupting this block and drop an interrupt not yet delivered.

        Returns an outer budget's interrupt that landed meanwhile (to be raised)."""
        other = None
        while True:
            try:
                with _lock:
                    _active.pop(id(self), None)
                    if self._fired:
                        _drop_pending()
                return other
            except self._exc:  # ours, landing as the block ended: it finished
                continue
            except BaseException as exc:  # noqa: BLE001 - an outer one: keep it
                other = exc

    def __exit__(self, exc_type, exc, tb):
        self._next_interrupt = math.inf
        other = self._unregister() if _CAN_INTERRUPT else None
        if other is not None:
            raise other
        if exc_type is not None and issubclass(exc_type, self._exc):
            if self._by_wall:
                _count_wall_expiry()
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
    count) for an integer |k| >= 1 (the integer part of a rational k: expand also expands
    ``(a + b)**-3`` and ``(a + b)**(5/2)``). Other nodes count as one term (expand also expands
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
        elif isinstance(e, sp.Pow) and e.exp.is_Rational and abs(e.exp) >= 1:
            base = count(e.base)
            k = abs(int(e.exp))
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
