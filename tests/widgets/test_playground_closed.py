"""A closed Playground refuses to train.

Before, ``close()`` and then ``play()`` started a background thread that trained the
hidden network until ``pause()`` (the CPU busy without a word, nothing drawn);
``train(3)`` and ``step()`` trained it too (epoch 0 -> 3). Expected, as for a closed
file: an error naming the call and the fix, and no thread, no epoch.
"""

from __future__ import annotations

import pytest

from symnb.widgets import Playground


@pytest.fixture
def closed():
    playground = Playground()
    assert playground.wait_for_build(60)
    playground.close()
    yield playground
    playground.pause()


@pytest.mark.parametrize(
    "call",
    [lambda p: p.play(), lambda p: p.play(2), lambda p: p.train(3), lambda p: p.step()],
    ids=["play", "play_epochs", "train", "step"],
)
def test_a_closed_playground_refuses_to_train(closed, call):
    with pytest.raises(
        ValueError, match=r"this Playground is closed; create a new one"
    ):
        call(closed)
    assert not closed.is_running
    assert closed.epoch == 0


def test_close_twice_and_pause_after_close_are_fine(closed):
    closed.close()
    assert closed.pause() is True
    assert closed.snapshot() is not None
