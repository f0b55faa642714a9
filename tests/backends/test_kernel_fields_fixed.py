"""A compiled kernel's dtype, backend, layer width... were plain attributes: after
``kernel.dtype = np.dtype("float64")`` the checks converted inputs to float64 for
code that reads float32, and relu of [1, 2, -3, 4] gave [1, 2, 9.9e177, 1.6e-06]
without a word; ``layer.n = 3000`` read the layer's neuron table past its end.
Reassigning what the compiled code was built for is now an AttributeError naming
it; constants still change through set_constants and params."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import symnb


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize(
    ("attr", "value"),
    [("dtype", np.dtype("float64")), ("backend", "numpy"), ("xp", None)],
)
def test_kernel_fields_are_fixed(backend, attr, value) -> None:
    k = symnb.activation("relu").compile(backend=backend)
    with pytest.raises(AttributeError, match=rf"Kernel\.{attr} is fixed"):
        setattr(k, attr, value)
    x = np.array([1.0, 2.0, -3.0, 4.0], np.float32)
    np.testing.assert_array_equal(k.forward(x), np.maximum(x, 0))


def test_layer_and_loss_fields_are_fixed() -> None:
    layer = symnb.compile_layer(["relu", "tanh", "elu"], backend="cpp")
    for attr, value in (("n", 3000), ("ids", np.zeros(3000, np.int32))):
        with pytest.raises(AttributeError, match=rf"LayerKernel\.{attr} is fixed"):
            setattr(layer, attr, value)
    loss = symnb.loss("mse").compile(backend="numpy")
    with pytest.raises(AttributeError, match=r"LossKernel\.loss is fixed"):
        loss.loss = symnb.loss("mae")


def test_constants_still_change_and_kernels_pickle() -> None:
    k = symnb.Activation("x*sigmoid(beta*x)", beta=1.0).compile(backend="cpp")
    k.set_constants(beta=2.0)
    k.params = np.array([3.0])
    assert k.constants == {"beta": 3.0}
    again = pickle.loads(pickle.dumps(k))
    x = np.linspace(-2, 2, 5, dtype=np.float32)
    np.testing.assert_array_equal(again.forward(x), k.forward(x))
