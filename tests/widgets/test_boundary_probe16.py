"""Boundary uses of the Playground found by the sixteenth probe.

``Playground.train(n)`` is the call scripts and executed notebooks use. When the
setup could not be built (an activation name with a typo in the config, a formula
that fails), it returned at once without a word: no epoch trained, no model, and
the script went on as if it had trained. It now raises a ``ValueError`` that names
the build error and the fix; the widget keeps showing the error as before."""

from __future__ import annotations

import pytest

from symnb.widgets import Playground


@pytest.mark.parametrize(
    ("activations", "words"),
    [
        (["tanhh", "tanh"], ["tanhh", "did you mean 'tanh'"]),
        (["x*(", "tanh"], ["x*("]),
    ],
)
def test_train_without_a_network_is_an_error_naming_why(activations, words):
    pg = Playground({"activations": activations, "backend": "numpy"})
    try:
        assert pg.wait_for_build(60)
        assert pg.model is None and pg.errors  # the widget shows the build error
        with pytest.raises(ValueError, match="no network to train") as info:
            pg.train(3)
        for word in words:
            assert word in str(info.value)
        assert "set_config" in str(info.value)
        assert pg.epoch == 0 and pg.history["train"] == []
        pg.train(0)  # nothing asked, nothing to refuse
    finally:
        pg.close()


def test_train_after_the_setup_is_fixed_trains():
    pg = Playground({"activations": ["tanhh", "tanh"], "backend": "numpy"})
    try:
        assert pg.wait_for_build(60)
        with pytest.raises(ValueError):
            pg.train(1)
        pg.set_config(dict(pg.config, activations=["tanh", "tanh"]))
        assert pg.wait_for_build(60)
        pg.train(2)
        assert pg.epoch == 2 and len(pg.history["train"]) == 2
    finally:
        pg.close()


@pytest.mark.parametrize(
    "call",
    [
        lambda p: p.reset(),
        lambda p: p.regenerate(),
        lambda p: p.set_config({"hidden": [3], "activations": ["relu"]}),
        lambda p: p.add_layer(),
        lambda p: p.remove_layer(),
        lambda p: p.add_neuron(0),
        lambda p: p.remove_neuron(0),
        lambda p: p.set_activation("relu"),
        lambda p: p.set_weight(0, 0, 0, 0.5),
    ],
    ids=[
        "reset",
        "regenerate",
        "set_config",
        "add_layer",
        "remove_layer",
        "add_neuron",
        "remove_neuron",
        "set_activation",
        "set_weight",
    ],
)
def test_a_closed_playground_refuses_changes(call):
    """After close(), these built new networks (in background threads) for a widget
    nobody sees, as train() did before it was refused; the setup is kept readable."""
    pg = Playground(
        {"hidden": [2, 2], "activations": ["tanh", "tanh"], "backend": "numpy"}
    )
    assert pg.wait_for_build(60)
    before = pg.config
    model = pg.model
    pg.close()
    with pytest.raises(ValueError, match="this Playground is closed"):
        call(pg)
    assert pg.config == before and pg.model is model
    assert pg.snapshot() is not None
