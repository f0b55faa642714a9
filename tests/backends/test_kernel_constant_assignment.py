"""``kernel.beta = 2.0`` made a plain attribute that the kernel never reads: it
kept computing with beta=1 without a word. It is now an AttributeError pointing to
``set_constants``."""

from __future__ import annotations

import numpy as np
import pytest

import symnb


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_assigning_a_constant_of_a_kernel_is_refused(backend) -> None:
    act = symnb.Activation("x*sigmoid(beta*x)", name="sw", beta=1.0, _register=False)
    kernel = act.compile(backend=backend, dtype="float64")
    with pytest.raises(AttributeError) as info:
        kernel.beta = 2.0
    message = str(info.value)
    assert "'beta' is a constant of activation 'sw'" in message
    assert "kernel.set_constants(beta=value)" in message
    kernel.set_constants(beta=2.0)
    x = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(kernel.forward(x), x / (1 + np.exp(-2 * x)), rtol=1e-12)


def test_assigning_a_constant_of_a_loss_kernel_is_refused() -> None:
    kernel = symnb.loss("huber", delta=1.0).compile(backend="numpy")
    with pytest.raises(AttributeError, match=r"constant of loss 'huber'"):
        kernel.delta = 0.5
    assert kernel.constants == {"delta": 1.0}


def test_constants_named_like_kernel_attributes() -> None:
    act = symnb.Activation("x*params + dtype", params=2.0, dtype=0.5, _register=False)
    kernel = act.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(kernel.forward(np.array([3.0])), [6.5], rtol=1e-12)
    kernel.params = np.array([1.0, 0.0])  # the parameter array, as before
    np.testing.assert_allclose(kernel.forward(np.array([3.0])), [3.0], rtol=1e-12)
