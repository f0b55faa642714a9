"""Python-side arguments of the Playground and the ActivationEditor found by a hostile
sweep: each is refused with an error naming it (before, NaN intervals were taken, a
wrong ``data`` gave "from_arrays() takes 3 positional arguments", floats were truncated
to indices, ``train(-1)`` did nothing and traitlets' TraitError surfaced)."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.widgets import ActivationEditor, Playground
from symnb.widgets.playground_config import PlaygroundConfigError, normalize_config
from symnb.widgets.throttle import Debounce, Throttle

from .conftest import refused_quietly


@pytest.fixture
def pg(fake_nn):
    p = Playground(refresh_interval=0.1, frame_interval=0.05)
    p.wait_for_build(30)
    yield p
    p.pause()


@pytest.mark.parametrize(
    "data, words",
    [
        (np.zeros((3, 2)), "data must be a pair (X, y) of arrays, got ndarray"),
        ((np.zeros((8, 2)),), "got tuple of length 1"),
        ([np.zeros((8, 2)), np.zeros(8), 1], "got list of length 3"),
    ],
)
def test_data_that_is_no_pair_is_named(fake_nn, data, words):
    message = refused_quietly(TypeError, lambda: Playground(data=data))
    assert words in message


@pytest.mark.parametrize(
    "name", ["refresh_interval", "frame_interval", "plot_interval"]
)
@pytest.mark.parametrize(
    "value, error, words",
    [
        (float("nan"), ValueError, "finite number of seconds >= 0, got nan"),
        (-1, ValueError, ">= 0, got -1"),
        (float("inf"), ValueError, "got inf"),
        ("a", TypeError, "a number of seconds such as 0.25, got 'a'"),
        (True, TypeError, "got True"),
    ],
)
def test_bad_intervals_are_named(fake_nn, name, value, error, words):
    message = refused_quietly(error, lambda: Playground(**{name: value}))
    assert message.startswith(name) and words in message


def test_throttle_and_debounce_refuse_nan():
    with pytest.raises(ValueError, match="interval must be a finite"):
        Throttle(lambda: None, interval=float("nan"))
    with pytest.raises(ValueError, match="delay must be a finite"):
        Debounce(lambda: None, delay=-0.1)
    assert Throttle(lambda: None, interval=np.float32(0.5)).interval == 0.5


@pytest.mark.parametrize("epochs", [-1, 2.5, True, "3", None])
def test_train_needs_a_count_of_epochs(pg, epochs):
    message = f"train: epochs must be an integer >= 0, got {epochs!r}"
    with pytest.raises(ValueError, match=message):
        pg.train(epochs)
    assert pg.epoch == 0


@pytest.mark.parametrize("epochs", [0, -3, 1.5])
def test_play_needs_a_positive_count_or_none(pg, epochs):
    with pytest.raises(ValueError, match="play: epochs must be an integer >= 1"):
        pg.play(epochs)
    assert not pg.is_running and pg.epoch == 0


def test_train_zero_epochs_and_numpy_counts(pg):
    pg.train(0)
    assert pg.epoch == 0
    pg.train(np.int64(2))
    assert pg.epoch == 2


def test_set_weight_checks_value_and_indices(pg):
    with pytest.raises(TypeError, match="set_weight: value must be a number, not"):
        pg.set_weight(0, 0, 0, "abc")
    for args, what in (
        ((0.7, 0, 0), "layer"),
        ((0, True, 0), "source"),
        ((0, 0, "1"), "target"),
    ):
        with pytest.raises(TypeError, match=f"{what} must be an integer index"):
            pg.set_weight(*args, 1.0)
    with pytest.raises(IndexError, match="layer -1 does not exist"):
        pg.set_weight(-1, 0, 0, 1.0)
    with pytest.raises(IndexError, match=r"weight \(5, 0\) is outside layer 0"):
        pg.set_weight(0, 5, 0, 1.0)


@pytest.mark.parametrize("neuron", [1.5, True, "1"])
def test_set_activation_neuron_must_be_an_integer(pg, neuron):
    before = [list(row) for row in pg._neuron_acts]
    with pytest.raises(TypeError, match="neuron must be an integer index"):
        pg.set_activation("relu", layer=0, neuron=neuron)
    assert pg._neuron_acts == before
    with pytest.raises(IndexError, match="neuron 9 does not exist: layer 0 has"):
        pg.set_activation("relu", layer=0, neuron=9)


def test_unknown_backend_in_a_config_is_refused():
    # "gpu" became "auto" with a note: a typo passed for a machine without CUDA
    with pytest.raises(PlaygroundConfigError, match="'backend'='gpu': choose one of"):
        normalize_config({"backend": "gpu"})
    # a known backend this machine may lack stays (replaced with a note when applied)
    assert normalize_config({"backend": "cuda"})["backend"] == "cuda"


@pytest.mark.parametrize("what, value", [("formula", 5), ("name", 5), ("name", None)])
def test_editor_text_arguments_must_be_strings(what, value):
    message = refused_quietly(TypeError, lambda: ActivationEditor(**{what: value}))
    assert f"ActivationEditor: {what} must be a string, got" in message


@pytest.mark.parametrize("what", ["debounce", "plot_interval"])
def test_editor_intervals_are_checked(what):
    message = refused_quietly(
        ValueError, lambda: ActivationEditor(**{what: float("nan")})
    )
    assert message.startswith(f"ActivationEditor: {what} must be a finite")


def test_set_activation_of_a_neuron_needs_its_layer(pg):
    """neuron given without layer was ignored: every layer got the activation and
    every per-neuron choice was wiped, without a word."""
    pg.set_activation("tanh", layer=0, neuron=1)
    layers, neurons = list(pg._layer_acts), [list(row) for row in pg._neuron_acts]
    with pytest.raises(TypeError, match=r"neuron=0 needs its layer; give both"):
        pg.set_activation("relu", neuron=0)
    assert pg._layer_acts == layers and pg._neuron_acts == neurons
