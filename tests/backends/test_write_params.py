"""Kernel.write_params: the checked in-place write of constants that training loops and
the PyTorch face use every step (all entries or some positions; a value the kernel's
dtype cannot hold is refused naming the constant, and nothing is written)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.nn.layers import LayerActivation
from tests.conftest import backend_params

BACKENDS = backend_params()


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_params_all_and_at_positions(backend):
    act = symnb.Activation("a*x + b*tanh(c*x)", a=1.0, b=2.0, c=3.0)
    k = act.compile(backend=backend, strict=True)
    before = k.params
    k.write_params(k.xp.asarray(np.array([0.5, 0.25, 4.0])))
    assert k.params is before and k.constants == {"a": 0.5, "b": 0.25, "c": 4.0}
    k.write_params(k.xp.asarray([7.0]), k.xp.asarray(np.array([1])))
    assert k.constants == {"a": 0.5, "b": 7.0, "c": 4.0}
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    want = 0.5 * x + 7.0 * np.tanh(4.0 * x.astype(np.float64))
    y = k.forward(k.xp.asarray(x))
    np.testing.assert_allclose(y.get() if k.xp is not np else y, want, rtol=1e-6)


@pytest.mark.parametrize("value", [1e300, -1e39, 1e-50])
@pytest.mark.parametrize("backend", BACKENDS)
def test_write_params_refuses_what_float32_cannot_hold(backend, value):
    act = symnb.Activation("a*x + b*tanh(x)", a=1.0, b=2.0)
    k = act.compile(backend=backend, strict=True)
    with pytest.raises(symnb.FormulaError, match=r"'b'.*does not fit.*float32"):
        k.write_params(k.xp.asarray([value]), k.xp.asarray(np.array([1])))
    with pytest.raises(symnb.FormulaError, match=r"'b'.*does not fit"):
        k.write_params(k.xp.asarray([3.0, value]))
    with pytest.raises(symnb.FormulaError, match="finite"):
        k.write_params(k.xp.asarray([np.nan, 1.0]))
    assert k.constants == {"a": 1.0, "b": 2.0}  # nothing written


@pytest.mark.parametrize("backend", BACKENDS)
def test_layer_learnable_constant_that_does_not_fit_is_refused(backend):
    """symnb.nn layers write learned constants every step through the checked path."""
    act = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_l", beta=symnb.learnable(0.8)
    )
    la = LayerActivation([act] * 3, backend=backend, strict=True)
    la.set_values(la.xp.asarray(np.array([1.5])))
    assert la.kernel.constants == {"beta": 1.5}
    with pytest.raises(symnb.FormulaError, match=r"'beta'.*does not fit.*float32"):
        la.set_values(la.xp.asarray(np.array([1e300])))
    assert la.kernel.constants == {"beta": 1.5}


def test_write_params_shapes_and_positions_are_checked():
    """A values array of the wrong length used to broadcast (one value written to
    every constant) or fail with NumPy's message; positions out of range, of a
    float dtype or of another shape than values are refused, and nothing is
    written."""
    k = symnb.Activation("a*x + b*x**2 + c", name="quad", a=1.0, b=2.0, c=3.0).compile(
        backend="numpy"
    )
    before = np.array(k.params, copy=True)
    cases = [
        (
            ValueError,
            (
                r"values has shape \(1,\); it must hold one value per constant, "
                r"shape \(3,\)"
            ),
            (np.array([9.0]), None),
        ),
        (ValueError, r"values has shape \(2, 3\)", (np.ones((2, 3)), None)),
        (
            IndexError,
            r"positions must be in \[0, 3\)",
            (np.array([9.0]), np.array([3])),
        ),
        (
            IndexError,
            r"positions must be in \[0, 3\)",
            (np.array([9.0]), np.array([-1])),
        ),
        (TypeError, r"positions has dtype float64", (np.array([9.0]), np.array([1.0]))),
        (
            ValueError,
            r"positions has shape \(2,\) and values \(1,\)",
            (np.array([9.0]), np.array([0, 1])),
        ),
    ]
    for error, message, (values, positions) in cases:
        with pytest.raises(error, match=message):
            k.write_params(values, positions)
        np.testing.assert_array_equal(k.params, before)
    k.write_params(np.array([5.0, 6.0]), np.array([2, 0]))
    np.testing.assert_array_equal(k.params, [6.0, 2.0, 5.0])


@pytest.mark.parametrize(
    "values, words",
    [
        (np.array(["a"]), r"values has dtype <U1.*real numbers.*astype\(float\)"),
        (np.array([3 + 4j]), r"values has dtype complex128.*real numbers.*\.real"),
    ],
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_write_params_refuses_strings_and_complex(backend, values, words):
    """A string failed in astype ('could not convert string to float'); a complex
    value was stored as its real part (3+4j -> 3.0) with only a ComplexWarning."""
    k = symnb.activation("leaky_relu").compile(backend=backend, strict=True)
    before = k.constants
    with pytest.raises(TypeError, match=words):
        k.write_params(values)
    with pytest.raises(TypeError, match=words):
        k.write_params(values, np.array([0]))
    assert k.constants == before  # nothing written


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_params_of_no_positions_writes_nothing(backend):
    """write_params([], positions=[]) (nothing to write, e.g. a layer whose learnable
    set is empty) was refused as "positions has dtype float64": NumPy reads an empty
    list as float64."""
    k = symnb.Activation("a*x + b", a=1.0, b=2.0).compile(backend=backend)
    k.write_params([], positions=[])
    k.write_params(np.zeros(0), positions=())
    assert k.constants == {"a": 1.0, "b": 2.0}
    with pytest.raises(TypeError, match="positions has dtype float64"):
        k.write_params([1.0], positions=[0.0])
