"""The gathering loop's wait for more finished runs (symnb.nn.sweep._wait_for_more)."""

from __future__ import annotations

import gc

import pytest

from symnb.nn import sweep


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


def _clients() -> int:
    return sum(
        type(o).__name__ == "Client" and type(o).__module__ == "distributed.client"
        for o in gc.get_objects()
    )


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1", "foo://bar"])
def test_a_failed_connection_leaves_no_half_built_client(address):
    """Its __del__, run by a later garbage collection inside the next Client's start,
    took Dask's non-reentrant LoopRunner lock a second time: the test process hung."""
    dask = pytest.importorskip("dask", reason="the dask extra is not installed")
    # distributed's defaults enter dask.config when it is imported: imported inside
    # the config.set below, they left with it (a later LocalCluster in this process
    # failed with KeyError: 'distributed')
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    gc.collect()
    before = _clients()
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises((OSError, ValueError), match=address),
    ):
        sweep.open_client(address)
    assert _clients() <= before
