"""Playground.set_weight with a value float32 cannot hold, and timeouts that are no
number of seconds.

``set_weight(0, 0, 0, 1e39)`` was accepted: the float32 network held inf and the
next epoch diverged. ``pause('1')``, ``wait(nan)`` and ``wait_for_build(-1)``
returned True while nothing ran, and raised from inside ``threading`` once a
training thread was there to join."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.widgets import Playground


@pytest.fixture
def playground():
    p = Playground()
    yield p
    p.close()


@pytest.mark.parametrize("value", [1e39, -1e39, 1e300])
def test_a_weight_float32_cannot_hold_is_refused(playground, value) -> None:
    before = playground.model.layers[0].weight.data.copy()
    with pytest.raises(ValueError) as info:
        playground.set_weight(0, 0, 0, value)
    assert "set_weight: a weight must be a finite number that float32 holds" in str(
        info.value
    )
    np.testing.assert_array_equal(playground.model.layers[0].weight.data, before)


def test_a_weight_float32_holds_is_written(playground) -> None:
    playground.set_weight(0, 1, 2, 3e38)
    assert playground.model.layers[0].weight.data[1, 2] == np.float32(3e38)


@pytest.mark.parametrize("method", ["pause", "wait", "wait_for_build"])
@pytest.mark.parametrize(
    ("timeout", "error"),
    [("1", TypeError), (True, TypeError), (math.nan, ValueError), (-1, ValueError)],
)
def test_a_timeout_that_is_no_number_of_seconds_is_refused(
    playground, method, timeout, error
) -> None:
    with pytest.raises(error, match=rf"^{method}: timeout must be"):
        getattr(playground, method)(timeout)


@pytest.mark.parametrize("method", ["pause", "wait", "wait_for_build"])
def test_good_timeouts_still_answer(playground, method) -> None:
    assert getattr(playground, method)(0.5) is True
    assert getattr(playground, method)(None) is True
