"""Boundary inputs found by the twelfth probe of the kernels: a kernel whose
``params`` were changed in place to NaN or out of a library formula's domain pickled
without a word, and the pickle then failed to load (the work saved with it was lost).
Pickling and copying now refuse it as the kernel's next call does. A layer's
``set_constants(neuron=np.array(1))`` raised NumPy's "iteration over a 0-d array"."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError

X = np.array([-3.0, -0.5, 0.0, 0.5, 3.0])


def softplus_reference(x: np.ndarray, beta: float) -> np.ndarray:
    """PyTorch's Softplus below its threshold: log(1 + exp(beta x)) / beta."""
    return np.logaddexp(0.0, beta * x) / beta


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize(
    "value, message",
    [(np.nan, "changed in place to nan"), (0.0, "beta must not be 0")],
)
def test_pickling_refuses_constants_changed_in_place(backend, value, message):
    kernel = symnb.activation("softplus", beta=2.0).compile(
        backend=backend, dtype="float64"
    )
    kernel.params[0] = value
    with pytest.raises(FormulaError, match=message):
        pickle.dumps(kernel)
    kernel.params[0] = 1.5  # a valid value again: the pickle loads and computes
    again = pickle.loads(pickle.dumps(kernel))
    np.testing.assert_allclose(again.forward(X), softplus_reference(X, 1.5), rtol=1e-13)


def test_copying_a_layer_refuses_a_constant_changed_in_place():
    import copy

    layer = symnb.compile_layer(
        [symnb.activation("softplus", beta=2.0), "relu"], backend="numpy"
    )
    layer.params[0] = np.inf
    with pytest.raises(FormulaError, match="changed in place to inf"):
        copy.deepcopy(layer)


def test_layer_set_constants_reads_a_0d_array_as_one_neuron():
    swish = symnb.Activation("x*sigmoid(beta*x)", beta=1.5)
    layer = symnb.compile_layer([swish, swish], backend="numpy", dtype="float64")
    # was NumPy's "iteration over a 0-d array", naming neither neuron nor the fix
    layer.set_constants(neuron=np.array(1), beta=3.0)
    assert layer.params.tolist() == [1.5, 3.0]
    x = np.array([[0.5, 0.5]])
    expected = 0.5 / (1 + np.exp(-np.array([1.5, 3.0]) * 0.5))
    np.testing.assert_allclose(layer.forward(x)[0], expected, rtol=1e-13)
    with pytest.raises(TypeError, match="neuron must be an int index"):
        layer.set_constants(neuron=np.array(1.0), beta=3.0)
