"""The gathering loop's wait for more finished runs (symnb.nn.sweep._wait_for_more)."""

from __future__ import annotations

import symnb.nn.sweep as sweep


class _Future:
    def __init__(self, done_after: int | None) -> None:
        self.polls, self.done_after = 0, done_after

    def done(self) -> bool:
        self.polls += 1
        return self.done_after is not None and self.polls > self.done_after


def _fake_clock(monkeypatch):
    now = [0.0]
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(sweep.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(sweep.time, "sleep", sleep)
    return now, sleeps


def test_no_wait_once_every_task_has_finished(monkeypatch):
    now, sleeps = _fake_clock(monkeypatch)
    sweep._wait_for_more([_Future(0), _Future(0)])
    assert sleeps == [] and now[0] == 0.0


def test_the_wait_ends_when_the_last_task_finishes(monkeypatch):
    now, sleeps = _fake_clock(monkeypatch)
    sweep._wait_for_more([_Future(0), _Future(3)])  # done at the 4th look
    assert len(sleeps) == 3 and now[0] < sweep.GATHER_WAIT / 5


def test_the_wait_is_bounded_while_tasks_run(monkeypatch):
    now, _ = _fake_clock(monkeypatch)
    sweep._wait_for_more([_Future(None)])
    assert sweep.GATHER_WAIT <= now[0] < sweep.GATHER_WAIT + 0.01
