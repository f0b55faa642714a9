"""Ctrl-C during a serial compare stops it; the finished runs stay in the store and
the interrupted one is trained again on resume.

Before, ``fit`` took the Ctrl-C at a step boundary and returned, so compare recorded
the cut-short run as finished (status "ok", 1 epoch of 3), wrote it to the store (a
resumed compare kept it) and went on with the next run: Ctrl-C did not stop the
sweep, and the table held a silently wrong row. The reference is the same compare
left uninterrupted.
"""

from __future__ import annotations

import os
import signal
import threading
import warnings

import pytest

from symnb import nn

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="SIGINT reaches only the main thread",
)

ACTS = ["relu", "tanh", "sigmoid"]


def _compare(store, callbacks):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # fit's "interrupted" note
        return nn.compare(
            ACTS,
            "two_moons",
            hidden=4,
            epochs=3,
            seeds=[0],
            progress=False,
            store=store,
            callbacks=callbacks,
        )


class CtrlC(nn.Callback):
    """Sends SIGINT (as Ctrl-C does) at the ``at``-th epoch end of this process
    while ``armed``; it keeps its argument, so the store can key runs that use it
    (a rerun with the same store resumes)."""

    count = 0
    armed = True

    def __init__(self, at: int) -> None:
        self.at = at

    def on_epoch_end(self, epoch, logs):
        CtrlC.count += 1
        if CtrlC.armed and CtrlC.count == self.at:
            CtrlC.armed = False
            os.kill(os.getpid(), signal.SIGINT)


def test_ctrl_c_stops_the_sweep_and_resume_retrains_the_cut_run(
    tmp_path, monkeypatch, counted
):
    monkeypatch.setattr(CtrlC, "count", 0)
    monkeypatch.setattr(CtrlC, "armed", True)
    path = tmp_path / "runs.sqlite"
    callbacks = [CtrlC(at=4)]  # epoch 1 of the second run (tanh)
    with pytest.raises(KeyboardInterrupt, match=r"tanh on two_moons.*1 of 3 runs"):
        _compare(path, callbacks)
    with nn.RunStore(path) as store:
        assert len(store) == 1  # relu only; tanh was cut, sigmoid never began
    assert not CtrlC.armed
    before = len(counted)
    resumed = _compare(path, callbacks)
    assert len(counted) - before == 2  # tanh again, and sigmoid
    reference = _compare(None, callbacks)
    for got, want in zip(resumed.runs, reference.runs):
        assert got["activation"] == want["activation"]
        assert got["stop_reason"] == "completed"
        assert len(got["history"]) == 3
        assert got["final_loss"] == pytest.approx(want["final_loss"], rel=1e-6)


def test_ctrl_c_without_a_store_says_how_to_keep_runs():
    def ctrl_c(epoch, logs):
        os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt, match="pass store="):
        _compare(None, [ctrl_c])
