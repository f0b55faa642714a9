"""Interop boundary inputs from a hostile sweep: big-endian NumPy arrays to the JAX
function (refused with "pass x.real or abs(x)"), and the error for an unknown
learnable name of a layer (it read "activation 'this layer' has no constant")."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError

X = np.linspace(-5, 5, 41)


def test_jax_takes_big_endian_arrays_and_constants():
    pytest.importorskip("jax")
    f = symnb.Activation("x*sigmoid(beta*x)", beta=1.5).to_jax()
    for dtype in ("f4", "f8"):
        little = X.astype("<" + dtype)
        big = X.astype(">" + dtype)
        assert np.array_equal(np.asarray(f(big)), np.asarray(f(little)))
        assert np.array_equal(
            np.asarray(f.derivative(big)), np.asarray(f.derivative(little))
        )
    beta = np.array([1.5, 2.0]).reshape(2, 1)
    got = np.asarray(f(X.astype("f4"), beta=beta.astype(">f8")))
    want = np.asarray(f(X.astype("f4"), beta=beta))
    assert got.shape == (2, 41) and np.array_equal(got, want)


def test_layer_unknown_learnable_names_the_layer():
    pytest.importorskip("torch")
    with pytest.raises(FormulaError) as info:
        symnb.to_torch_layer(["relu", "elu"], learnable=["zz"])
    message = str(info.value)
    assert "the layer of 2 activations has no constant 'zz'" in message
    assert "its constants are: alpha" in message
    with pytest.raises(FormulaError, match="activation 'elu' has no constant 'zz'"):
        symnb.activation("elu").to_torch(learnable=["zz"])
