"""Throttle and debounce: bounded rate, the last value always delivered."""

from __future__ import annotations

import time

from symnb.widgets.throttle import Debounce, Throttle


def test_throttle_bounds_the_rate_and_keeps_the_last_value() -> None:
    seen: list[int] = []
    th = Throttle(seen.append, interval=0.05)
    t0 = time.monotonic()
    for i in range(2000):
        th(i)
    elapsed = time.monotonic() - t0
    time.sleep(0.15)
    assert seen[0] == 0  # the first call goes through at once
    assert seen[-1] == 1999  # the trailing call delivers the final value
    assert len(seen) <= 2 + elapsed / 0.05 + 1


def test_throttle_flush_delivers_the_pending_call_now() -> None:
    seen: list[int] = []
    th = Throttle(seen.append, interval=10.0)
    th(1)
    th(2)
    th(3)
    assert seen == [1]
    assert th.pending
    th.flush()
    assert seen == [1, 3]
    assert not th.pending


def test_debounce_calls_once_after_quiet() -> None:
    calls: list[float] = []
    db = Debounce(lambda: calls.append(time.monotonic()), delay=0.05)
    for _ in range(20):
        db()
        time.sleep(0.005)
    assert calls == []
    time.sleep(0.2)
    assert len(calls) == 1


def test_debounce_flush_and_cancel() -> None:
    calls: list[int] = []
    db = Debounce(lambda: calls.append(1), delay=10.0)
    db()
    assert db.flush() is True
    assert calls == [1]
    assert db.flush() is False
    db()
    db.cancel()
    time.sleep(0.01)
    assert calls == [1]
