"""``symnb.widgets.register_activation`` kept anything: ``register_activation(3)``
and ``register_activation(None)`` returned 'custom' and every Playground of the
session then offered an entry that failed when chosen. It now takes what
``Playground(activations=...)`` takes (a symnb.Activation or a library name),
with one check for both, and refuses a bad name."""

from __future__ import annotations

import pytest

import symnb
from symnb.widgets import _common, register_activation


@pytest.fixture
def registry():
    before = dict(_common._REGISTRY)
    yield _common._REGISTRY
    _common._REGISTRY.clear()
    _common._REGISTRY.update(before)


@pytest.mark.parametrize(
    ("activation", "name", "error", "match"),
    [
        (3, None, TypeError, "must be a symnb.Activation or a library name"),
        (None, None, TypeError, "got NoneType"),
        ("no_such_act", None, ValueError, "is no library activation"),
        ("relu", "", TypeError, "name must be a non-empty string"),
        ("relu", 5, TypeError, "name must be a non-empty string"),
        ("relu", "n" * 101, symnb.FormulaError, "101 characters"),
    ],
)
def test_bad_registrations_are_refused(
    registry, activation, name, error, match
) -> None:
    before = dict(registry)
    with pytest.raises(error, match=match):
        register_activation(activation, name)
    assert registry == before


def test_good_registrations_are_kept(registry) -> None:
    act = symnb.Activation("x*tanh(x)", name="xt_reg")
    assert register_activation(act) == "xt_reg"
    assert register_activation("relu", "my_relu") == "my_relu"
    assert registry["xt_reg"] is act and registry["my_relu"] == "relu"


def test_playground_keeps_its_own_wording() -> None:
    from symnb.widgets import Playground

    with pytest.raises(TypeError, match=r"Playground: activations\['a'\] must be"):
        Playground(activations={"a": 3})
    with pytest.raises(ValueError, match=r"activations\['b'\] = 'nope' is no library"):
        Playground(activations={"b": "nope"})
