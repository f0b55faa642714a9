"""Playground.train(10**12) trained on the calling thread without end: the loss
history (one entry per epoch, copied by every frame) grew until memory ran out, and
play() left running did the same in the background. Now a Playground trains at most
MAX_EPOCHS epochs between resets: train/play asking for more raise a ValueError
naming the argument, the limit and the fix before any training, and play() without
a count pauses at the limit with a word in the status line."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.widgets import playground as playground_module
from symnb.widgets.playground import MAX_EPOCHS, Playground


@pytest.fixture
def pg(fake_nn):
    p = Playground(frame_interval=0.0)
    p.wait_for_build()
    yield p
    p.pause()


@pytest.mark.parametrize("epochs", [10**12, np.int64(2**62), MAX_EPOCHS + 1])
def test_train_past_the_limit_is_refused_before_training(pg, epochs) -> None:
    with pytest.raises(ValueError, match=r"train: epochs=.*MAX_EPOCHS.*reset\(\)"):
        pg.train(epochs)
    assert pg.epoch == 0
    assert pg.model.epochs == 0  # nothing trained


def test_play_past_the_limit_is_refused(pg) -> None:
    with pytest.raises(ValueError, match=r"play: epochs=.*MAX_EPOCHS"):
        pg.play(10**12)
    assert not pg.is_running
    assert pg.epoch == 0


def test_the_limit_counts_epochs_since_the_last_reset(pg, monkeypatch) -> None:
    monkeypatch.setattr(playground_module, "MAX_EPOCHS", 5)
    pg.train(3)
    with pytest.raises(ValueError, match=r"more than the 2 left.*3 trained so far"):
        pg.train(3)
    assert pg.epoch == 3
    pg.train(2)  # exactly up to the limit is fine
    assert pg.epoch == 5 and len(pg.history["train"]) == 5
    pg.reset()
    pg.wait_for_build()
    pg.train(5)
    assert pg.epoch == 5


def test_play_without_a_count_pauses_at_the_limit(pg, monkeypatch) -> None:
    monkeypatch.setattr(playground_module, "MAX_EPOCHS", 7)
    pg.play()
    assert pg.wait(timeout=60)
    assert pg.epoch == 7
    assert len(pg.history["train"]) == 7
    assert "MAX_EPOCHS" in pg.status.value
    pg.play()  # at the limit: does not start, says why
    assert not pg.is_running and pg.epoch == 7
    assert "Reset" in pg.status.value


def test_step_at_the_limit_is_refused(pg, monkeypatch) -> None:
    monkeypatch.setattr(playground_module, "MAX_EPOCHS", 2)
    pg.step()
    pg.step()
    with pytest.raises(ValueError, match=r"step: epochs=1 is more than the 0 left"):
        pg.step()
    assert pg.epoch == 2
