"""``act.beta = 2.0`` on an Activation or Loss made a plain attribute that no kernel
reads: compiled kernels, LaTeX and training kept beta=1 without a word. It is now
an AttributeError pointing to ``with_constants`` (a formula does not change in
place) and to ``set_constants`` on a kernel."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import symnb


def test_assigning_a_constant_of_an_activation_is_refused() -> None:
    swish = symnb.Activation("x*sigmoid(beta*x)", name="sw", beta=1.0, _register=False)
    with pytest.raises(AttributeError) as info:
        swish.beta = 2.0
    message = str(info.value)
    assert "'beta' is a constant of activation 'sw'" in message
    assert "activation.with_constants(beta=value)" in message
    assert swish.constants == {"beta": 1.0}
    for clone in (copy.deepcopy(swish), pickle.loads(pickle.dumps(swish))):
        with pytest.raises(AttributeError, match="with_constants"):
            clone.beta = 2.0


def test_assigning_a_constant_of_a_loss_is_refused() -> None:
    huber = symnb.loss("huber", delta=1.0)
    with pytest.raises(AttributeError, match=r"loss\.with_constants\(delta=value\)"):
        huber.delta = 0.5


def test_with_constants_is_the_way_and_gives_the_value() -> None:
    swish = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    kernel = swish.with_constants(beta=2.0).compile(backend="numpy", dtype="float64")
    x = np.array([-2.0, 0.5, 3.0])
    expected = x / (1.0 + np.exp(-2.0 * x))
    np.testing.assert_allclose(kernel.forward(x), expected, rtol=1e-12)


def test_constants_named_like_attributes_are_built_and_kept() -> None:
    """A constant may share a name with an attribute the object sets itself."""
    act = symnb.Activation("x*kernel + text", kernel=2.0, text=0.5, _register=False)
    assert act.text == "x*kernel + text" and act.constants["kernel"] == 2.0
    act.kernel = None  # the attribute the notebook faces set, not the constant
    got = act.compile(backend="numpy", dtype="float64").forward(np.array([3.0]))
    np.testing.assert_allclose(got, [6.5], rtol=1e-12)
