"""An analysis cut short by the wall clock is not kept in the disk cache.

The budgets of the analysis count this thread's CPU time, with a wall-clock backstop
of four times as long. On a busy machine the backstop fires first (h119 saw
``pau_5_4`` on numba NaN at x <= -1e280 from an analysis cached under load; a fresh
cache gave the right form), and the result depended on the load, not the formula:
such a result is used by the process that made it and made again by the next one.
A budget that runs out of CPU time is the formula's own: its result is kept.
"""

from __future__ import annotations

import time

import pytest

import symnb
from symnb.errors import FormulaError
from symnb.formula import budget
from symnb.robust import engine


def _sleep_past(seconds: float) -> None:
    """A block that uses almost no CPU: only the wall-clock backstop can end it."""
    with (
        pytest.raises(FormulaError, match="took longer than"),
        budget.Budget("wait", seconds),
    ):
        for _ in range(2000):
            time.sleep(0.005)


def _spin_past(seconds: float) -> None:
    """A block that uses CPU: its CPU budget ends it."""
    with (
        pytest.raises(FormulaError, match="took longer than"),
        budget.Budget("spin", seconds),
    ):
        while True:
            pass


def test_the_wall_clock_backstop_is_counted_and_the_cpu_budget_is_not():
    before = budget.wall_expiries()
    _spin_past(0.05)
    assert budget.wall_expiries() == before
    _sleep_past(0.05)
    assert budget.wall_expiries() == before + 1


@pytest.mark.parametrize("busy", [False, True], ids=["quiet", "busy"])
def test_a_result_made_while_the_wall_clock_cut_work_short_is_not_kept(
    busy, tmp_path, monkeypatch
):
    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "cache"))
    form = symnb.Activation("x*tanh(c*x)", c=0.75).internal
    key = {"robust": f"test-busy-machine {busy} {time.time_ns()}"}
    made = []

    def make():
        made.append(1)
        if busy:
            _sleep_past(0.02)
        return engine.analyse(form, "float32")

    first = engine._cached(form, key, make, None)
    second = engine._cached(form, key, make, None)
    assert first[1].analysed and second[1].analysed
    # quiet: the second comes from the disk; busy: made again
    assert len(made) == (2 if busy else 1)
