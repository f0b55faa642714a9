"""Playground.add_layer past MAX_LAYERS (and add_neuron past MAX_NEURONS, removing the
last neuron or a layer that is not there) returned without a word: a script's seventh
add_layer() left a 6-layer network and no hint. Now each is a ValueError naming the
limit and what to do; a click from the view past a limit (the button not yet
disabled) shows the same message in the status line, not a traceback."""

from __future__ import annotations

import pytest

from symnb.widgets import Playground
from symnb.widgets.playground import MAX_LAYERS, MAX_NEURONS


@pytest.fixture
def pg(fake_nn):
    p = Playground(frame_interval=0.0)
    yield p
    p.pause()


def test_add_layer_past_the_limit_is_a_clear_error(pg) -> None:
    while len(pg.view.hidden) < MAX_LAYERS:
        pg.add_layer()
    with pytest.raises(ValueError, match=rf"at most {MAX_LAYERS} hidden layers"):
        pg.add_layer()
    pg.wait_for_build()
    assert len(pg.model.sizes) == MAX_LAYERS + 2  # inputs, hidden, output


def test_remove_layer_with_none_left_is_a_clear_error(pg) -> None:
    while pg.view.hidden:
        pg.remove_layer()
    with pytest.raises(ValueError, match="no hidden layer"):
        pg.remove_layer()


def test_neuron_limits_are_clear_errors(pg) -> None:
    while pg.view.hidden[1] < MAX_NEURONS:
        pg.add_neuron(1)
    with pytest.raises(ValueError, match=rf"layer 1 already has {MAX_NEURONS}"):
        pg.add_neuron(1)
    while pg.view.hidden[1] > 1:
        pg.remove_neuron(1)
    with pytest.raises(ValueError, match="remove_layer"):
        pg.remove_neuron(1)
    assert pg.view.hidden[1] == 1


def test_a_click_past_the_limit_shows_in_the_status_line(pg) -> None:
    while len(pg.view.hidden) < MAX_LAYERS:
        pg.add_layer()
    pg._sink.guard(pg._on_message)({"kind": "layers", "delta": 1, "seq": 1})
    assert "at most" in pg.status.value
    assert not pg.errors
    assert len(pg.view.hidden) == MAX_LAYERS
