"""Constants reach a kernel checked: right length, finite, representable in its dtype,
and a clear message for a wrong ``out`` pair or neuron index (issue 9, items 2, 4, 13)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

SWISH = "x*sigmoid(beta*x)"


def _swish(x, beta):
    x = np.asarray(x, dtype=np.float64)
    return x / (1 + np.exp(-beta * x))


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@pytest.fixture(params=backend_params())
def backend(request):
    return request.param


def test_assigning_float64_params_converts_and_computes(backend):
    """cpp once read a float64 array as float32 bits: beta = 0, silently."""
    k = symnb.Activation(SWISH, beta=1.0).compile(backend=backend, strict=True)
    before = k.params
    k.params = np.array([2.0])  # float64 onto a float32 kernel
    assert k.params is before and k.params.dtype == np.float32
    assert k.constants == {"beta": 2.0}
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    np.testing.assert_allclose(
        _host(k.forward(k.xp.asarray(x))), _swish(x, 2.0), rtol=1e-6, atol=1e-7
    )


def test_assigning_params_is_checked(backend):
    k = symnb.Activation(SWISH, beta=1.0).compile(backend=backend, strict=True)
    with pytest.raises(ValueError, match=r"shape \(2,\).*\(1,\)"):
        k.params = np.array([1.0, 2.0])
    with pytest.raises(symnb.FormulaError, match="'beta'.*float32"):
        k.params = np.array([1e300])
    with pytest.raises(symnb.FormulaError, match="finite"):
        k.params = [float("nan")]
    with pytest.raises(TypeError, match="real numbers"):
        k.params = np.array([1 + 2j])
    assert k.constants == {"beta": 1.0}  # nothing was written by the refused ones


@pytest.mark.parametrize("value", [1e300, -1e39, 1e-50, 10**400])
def test_set_constants_refuses_a_value_float32_cannot_hold(backend, value):
    k = symnb.Activation(SWISH, beta=1.0).compile(backend=backend, strict=True)
    with pytest.raises(symnb.FormulaError, match=r"'beta'.*does not fit.*float32"):
        k.set_constants(beta=value)
    assert k.constants == {"beta": 1.0}


def test_float64_kernel_takes_what_float32_refuses():
    k = symnb.Activation(SWISH, beta=1.0).compile(
        backend="numpy", dtype="float64", strict=True
    )
    k.set_constants(beta=1e300)
    assert k.constants == {"beta": 1e300}


def test_unrepresentable_constant_is_refused_at_compile_time():
    act = symnb.Activation(SWISH, beta=1e300)
    with pytest.raises(symnb.FormulaError, match="does not fit.*float32"):
        act.compile(backend="numpy", strict=True)


def test_layer_constants_are_checked(backend):
    acts = [
        symnb.Activation(SWISH, beta=1.0),
        symnb.activation("tanh"),
        symnb.Activation(SWISH, beta=2.0),
    ]
    layer = symnb.compile_layer(acts, backend=backend, strict=True)
    with pytest.raises(symnb.FormulaError, match="'beta'.*float32"):
        layer.set_constants(neuron=2, beta=1e300)
    with pytest.raises(symnb.FormulaError, match=r"params\[1\].*'beta'.*neuron 2"):
        layer.params = np.array([1.0, 1e300])
    layer.params = np.array([0.5, 3.0])  # float64, converted
    assert _host(layer.params).tolist() == [0.5, 3.0]
    loss = symnb.loss("huber", delta=1.0).compile(backend=backend, strict=True)
    with pytest.raises(symnb.FormulaError, match="'delta'.*float32"):
        loss.set_constants(delta=-1e40)


def test_forward_with_derivative_out_must_be_a_pair():
    k = symnb.Activation(SWISH, beta=1.0).compile(backend="numpy", strict=True)
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match=r"out must be a pair \(y_out, dy_out\)"):
        k.forward_with_derivative(x, out=np.empty(4, np.float32))
    with pytest.raises(TypeError, match="pair.*length 3"):
        k.forward_with_derivative(x, out=(x, x, x))
    layer = symnb.compile_layer(["tanh", "relu"], backend="numpy", strict=True)
    with pytest.raises(TypeError, match="pair"):
        layer.forward_with_derivative(np.ones((2, 2), np.float32), out=np.empty(2))


@pytest.mark.parametrize("neuron", ["0", 1.0, True, [0, "1"]])
def test_layer_neuron_must_be_an_int_index(neuron):
    layer = symnb.compile_layer(
        [symnb.Activation(SWISH, beta=1.0)] * 2, backend="numpy", strict=True
    )
    with pytest.raises(
        TypeError, match=r"neuron must be an int index in range\(0, 2\)"
    ):
        layer.set_constants(neuron=neuron, beta=2.0)
    with pytest.raises(IndexError, match=r"range\(0, 2\)"):
        layer.set_constants(neuron=-1, beta=2.0)
    layer.set_constants(neuron=np.int64(1), beta=2.0)
    assert layer.params.tolist() == [1.0, 2.0]


def test_layer_neurons_given_as_a_range_are_set():
    """neuron=range(2) was refused ("got range(0, 2)") although the message asks for
    "a list of them"; a tuple or an array of indices was taken."""
    layer = symnb.compile_layer(
        [symnb.Activation(SWISH, beta=1.0)] * 4, backend="numpy", strict=True
    )
    layer.set_constants(neuron=range(1, 3), beta=2.0)
    assert layer.params.tolist() == [1.0, 2.0, 2.0, 1.0]
    with pytest.raises(IndexError, match=r"neuron 4 is out of range"):
        layer.set_constants(neuron=range(3, 5), beta=3.0)
    assert layer.params.tolist() == [1.0, 2.0, 2.0, 1.0]
