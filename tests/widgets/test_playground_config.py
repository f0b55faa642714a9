"""Playground setups with a wrong value: one clear error naming the setting (issue 9,
item 10), never an OverflowError, TraitError or AttributeError, and nothing printed by
``Widget.__del__`` for a refused playground."""

from __future__ import annotations

import pytest

from symnb.widgets.playground_config import PlaygroundConfigError, normalize_config

from .conftest import refused_quietly

BAD = [
    # (config, words the message must contain)
    ({"learning_rate": "abc"}, ["learning_rate", "'abc'", "number"]),
    ({"learning_rate": float("inf")}, ["learning_rate", "finite"]),
    ({"learning_rate": float("nan")}, ["learning_rate", "finite"]),
    ({"learning_rate": 0}, ["learning_rate", "> 0"]),
    ({"learning_rate": 1e6}, ["learning_rate", "<= 100"]),
    ({"regularization_rate": float("nan")}, ["regularization_rate", "finite"]),
    ({"regularization_rate": -0.1}, ["regularization_rate", ">= 0"]),
    ({"data_seed": -1}, ["data_seed", "between 0 and"]),
    ({"seed": float("inf")}, ["seed", "finite"]),
    ({"seed": 1.5}, ["seed", "whole number"]),
    ({"seed": 2**40}, ["seed", "between 0 and"]),
    ({"seed": True}, ["seed", "number"]),
    ({"noise": "5"}, ["noise", "number"]),
    ({"noise": 80}, ["noise", "between 0 and 50"]),
    ({"batch_size": 0}, ["batch_size", "between 1 and 30"]),
    ({"hidden": 3}, ["hidden", "list of layer widths"]),
    ({"hidden": [9]}, ["hidden", "between 1 and 8"]),
    ({"hidden": ["a"]}, ["hidden", "number"]),
    ({"hidden": [2] * 7}, ["hidden", "at most 6"]),
    ({"activations": 3}, ["activations"]),
    ({"activations": [["relu", 5], "tanh"], "hidden": [2, 2]}, ["activations"]),
    ({"features": "x1"}, ["features"]),
    ({"features": []}, ["features"]),
    ({"features": ["x3"]}, ["features"]),
    ({"dataset": "moons"}, ["dataset", "circle"]),
    ({"dataset": ["circle"]}, ["dataset"]),
    ({"problem": "ranking"}, ["problem"]),
    ({"problem": "regression", "dataset": "xor"}, ["dataset", "not a regression"]),
    ({"optimizer": "lbfgs"}, ["optimizer", "adam"]),
    ({"regularization": "L3"}, ["regularization"]),
    ({"show_test": "yes"}, ["show_test", "True or False"]),
    ({"speed": 0}, ["speed", "> 0"]),
    ({"speed": float("inf")}, ["speed", "finite"]),
    ({"device": -1}, ["device"]),
    ({"backend": 3}, ["backend"]),
    ({"lerning_rate": 0.1}, ["unknown playground setting", "lerning_rate"]),
    ({1: 2}, ["unknown playground setting"]),
    ({"dataset": "formula"}, ["data_formula", "needs a formula"]),
    ({"custom_activations": []}, ["custom_activations"]),
    (
        {
            "custom_activations": {
                "bump": {"formula": "exp(-x**2/w)", "constants": {"w": "abc"}}
            }
        },
        ["custom activation 'bump'", "constant 'w'", "'abc'", "number"],
    ),
    (
        {"custom_activations": {"bump": {"formula": 3}}},
        ["custom activation 'bump'", "formula"],
    ),
    (
        {
            "custom_activations": {
                "b": {"formula": "x", "constants": {"w": float("nan")}}
            }
        },
        ["constant 'w'", "finite"],
    ),
    # 1e300 and 1e-50 were kept: every build then failed ("does not fit the
    # kernel's float32") and the Playground had no network
    (
        {"custom_activations": {"b": {"formula": "w*x", "constants": {"w": 1e300}}}},
        ["custom activation 'b'", "constant 'w'=1e+300", "does not fit", "float32"],
    ),
    (
        {"custom_activations": {"b": {"formula": "w*x", "constants": {"w": 1e-50}}}},
        ["constant 'w'=1e-50", "does not fit the network's float32"],
    ),
]


@pytest.mark.parametrize("config, words", BAD, ids=[str(c)[:50] for c, _ in BAD])
def test_bad_setting_is_named(config, words) -> None:
    with pytest.raises(PlaygroundConfigError) as info:
        normalize_config(config)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    # one error class, both a ValueError and a TypeError; no stray OverflowError etc.
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    assert info.value.__cause__ is None or isinstance(
        info.value.__cause__, (ValueError, TypeError)
    )


@pytest.mark.parametrize("config", [[("dataset", "xor")], "circle", 3, ("a",)])
def test_a_config_that_is_not_a_dict(config) -> None:
    with pytest.raises(PlaygroundConfigError, match="config is a dict"):
        normalize_config(config)


def test_good_values_are_normalised() -> None:
    cfg = normalize_config(
        {"seed": 3.0, "noise": 10.0, "hidden": [2.0, 3], "learning_rate": 1, "speed": 5}
    )
    assert cfg["seed"] == 3 and isinstance(cfg["seed"], int)
    assert cfg["hidden"] == [2, 3] and cfg["noise"] == 10
    assert cfg["learning_rate"] == 1.0 and cfg["speed"] == 5.0
    assert normalize_config(None) == normalize_config({})


@pytest.mark.parametrize(
    "config, words",
    [
        ({"learning_rate": "abc"}, ["learning_rate"]),
        ({"hidden": 3}, ["hidden"]),
        ({"regularization_rate": float("nan")}, ["regularization_rate"]),
        ([1, 2], ["dict"]),
        (
            {"custom_activations": {"bad": {"formula": "x*(1+", "constants": {}}}},
            ["custom_activations", "'bad'", "never closed"],
        ),
    ],
)
def test_refused_playground_prints_nothing_from_del(fake_nn, config, words) -> None:
    from symnb.widgets import Playground

    message = refused_quietly(PlaygroundConfigError, lambda: Playground(config=config))
    for word in words:
        assert word in message


def test_set_config_and_speed_refuse_bad_values(fake_nn) -> None:
    from symnb.widgets import Playground

    pg = Playground()
    before = pg.config
    with pytest.raises(PlaygroundConfigError, match="learning_rate"):
        pg.config = {"learning_rate": float("inf")}
    assert pg.config == before  # nothing half-applied
    with pytest.raises(PlaygroundConfigError, match="speed"):
        pg.speed = -1
    with pytest.raises(PlaygroundConfigError, match="speed"):
        pg.speed = "fast"
    pg.speed = 7
    assert pg.speed == 7.0 and pg.speed_slider.value == 7.0
    pg.speed = None
    assert pg.speed is None


@pytest.mark.parametrize(
    "activations, error, words",
    [
        ({"a": "nope"}, ValueError, ["activations['a'] = 'nope'", "no library"]),
        ({"a": 3}, TypeError, ["activations['a']", "symnb.Activation", "int"]),
        (["relu"], TypeError, ["activations must be a dict", "list"]),
    ],
)
def test_refused_activations_say_why_at_construction(activations, error, words):
    """Playground(activations={'a': 'nope'}) was accepted; the name failed only when
    a model was built with it."""
    from symnb.widgets import Playground

    message = refused_quietly(error, lambda: Playground(activations=activations))
    for word in words:
        assert word in message


def test_add_activation_refuses_an_unknown_name(fake_nn) -> None:
    from symnb.widgets import Playground

    pg = Playground(activations={"mine": "relu"})
    assert "mine" in pg.activation_names()
    with pytest.raises(ValueError, match="'nope' is no library activation"):
        pg.add_activation("nope", name="other")
    assert "other" not in pg.activation_names()
    pg.close()
