"""Rate limits for widget updates: a throttle (at most one call per interval, the last
call always delivered) and a debounce (one call after the input has been quiet).

Unthrottled updates from a loop flood the comm channel (tens of thousands of messages
make the browser fall behind); typing re-parses a formula on every key stroke unless
debounced.
"""

from __future__ import annotations

import math
import numbers
import threading
import time
from collections.abc import Callable
from typing import Any

#: Longest interval or delay accepted, in seconds (an hour).
MAX_SECONDS = 3600.0


def check_seconds(value: Any, what: str) -> float:
    """``value`` as a finite number of seconds from 0 to :data:`MAX_SECONDS`, else
    an error naming ``what`` (a NaN interval made every wait NaN: updates stalled or
    were lost; a debounce of 1e308 s raised OverflowError in the timer thread, so
    the editor never parsed again and the error only reached the kernel's log)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{what} must be a number of seconds such as 0.25, got {value!r}"
        )
    seconds = float(value)
    if not (seconds >= 0 and math.isfinite(seconds)):
        raise ValueError(
            f"{what} must be a finite number of seconds >= 0, got {value!r}"
        )
    if seconds > MAX_SECONDS:
        raise ValueError(
            f"{what} must be a finite number of seconds >= 0 and at most "
            f"{MAX_SECONDS:g} (an hour), got {value!r}"
        )
    return seconds


class Throttle:
    """Call ``fn`` at most once per ``interval`` seconds; never drop the last call.

    The first call runs at once. Calls that arrive sooner are merged: only the newest
    arguments are kept and delivered by a timer when the interval has passed (the
    "trailing" call), so the final value always reaches the browser. ``flush()``
    delivers a pending call synchronously (tests, and the end of a training run).

    Parameters
    ----------
    fn:
        The function to call.
    interval:
        Minimum number of seconds between two calls of ``fn``.
    """

    def __init__(self, fn: Callable[..., Any], interval: float = 0.1) -> None:
        self._fn = fn
        self.interval = check_seconds(interval, "interval")
        self._last = float("-inf")
        self._pending: tuple[tuple, dict] | None = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._run_lock = threading.RLock()
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        with self._lock:
            now = time.monotonic()
            wait = self._last + self.interval - now
            if wait <= 0 and self._timer is None:
                self._last = now
                run_now = True
            else:
                self._pending = (args, kwargs)
                run_now = False
                if self._timer is None:
                    self._timer = threading.Timer(max(wait, 0.0), self._fire)
                    self._timer.daemon = True
                    self._timer.start()
        if run_now:
            self._run(args, kwargs)

    def _run(self, args: tuple, kwargs: dict) -> None:
        with self._run_lock:
            self.calls += 1
            self._fn(*args, **kwargs)

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
            pending, self._pending = self._pending, None
            self._last = time.monotonic()
        if pending is not None:
            self._run(*pending)

    @property
    def pending(self) -> bool:
        """Whether a call is waiting for its turn."""
        return self._pending is not None

    def flush(self) -> None:
        """Deliver the pending call (if any) now, in the calling thread."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            pending, self._pending = self._pending, None
            if pending is not None:
                self._last = time.monotonic()
        if pending is not None:
            self._run(*pending)

    def cancel(self) -> None:
        """Drop the pending call."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._pending = None


class Debounce:
    """Call ``fn`` once, ``delay`` seconds after the last of a burst of calls.

    ``flush()`` runs a pending call at once (what ``refresh()`` methods use so tests and
    scripts need not sleep).
    """

    def __init__(self, fn: Callable[[], Any], delay: float = 0.3) -> None:
        self._fn = fn
        self.delay = check_seconds(delay, "delay")
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def __call__(self, *_: Any) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
        self._fn()

    @property
    def pending(self) -> bool:
        """Whether a call is scheduled."""
        return self._timer is not None

    def flush(self) -> bool:
        """Run the scheduled call now; returns whether there was one."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is None:
            return False
        timer.cancel()
        self._fn()
        return True

    def cancel(self) -> None:
        """Forget the scheduled call."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
