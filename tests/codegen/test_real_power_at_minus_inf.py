"""A non-integer power of a negative base is NaN in every backend, -inf included.

IEEE pow gives +inf or +0 at b = -inf whatever the exponent, where every other
negative base gives NaN (the real power is undefined there). The C kernels printed
``pow`` and the NumPy ones ``np.power`` for an exponent held by a constant: ``x**q``
at q = 0.5 was +inf at x = -inf (NaN at x = -2), and ``(x - 1)**q`` at q = 1.5 had f'
inf in C and NaN in NumPy there. An integer exponent keeps IEEE's values (x**q at
q = 3 is -inf at -inf).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params


@pytest.mark.parametrize("backend", backend_params()[:2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "text,q", [("x**q", 0.5), ("(x - 1)**q", 1.5), ("x**q", 1 / 3)]
)
def test_non_integer_power_is_nan_at_minus_inf(text, q, dtype, backend):
    kernel = symnb.Activation(text, q=q).compile(backend=backend, dtype=dtype)
    x = np.array([-np.inf, -2.0, 4.0], dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    assert np.isnan(y[:2]).all() and np.isnan(dy[1]), (y, dy)
    b = 4.0 - (1.0 if "x - 1" in text else 0.0)
    assert y[2] == pytest.approx(b**q, rel=1e-6)
    assert dy[2] == pytest.approx(q * b ** (q - 1), rel=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_power_derivative_at_minus_inf_is_the_same_in_c_and_numpy(dtype):
    """(x - 1)**1.5's f' at -inf: NaN in both (it was inf in C, NaN in NumPy)."""
    x = np.array([-np.inf], dtype=dtype)
    act = symnb.Activation("(x - 1)**q", q=1.5)
    with np.errstate(all="ignore"):
        got = [
            act.compile(backend=b, dtype=dtype).forward_with_derivative(x)[1][0]
            for b in ("numpy", "cpp")
        ]
    assert np.isnan(got).all(), got


@pytest.mark.parametrize("backend", backend_params()[:2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_integer_power_in_a_constant_keeps_ieee_values(dtype, backend):
    kernel = symnb.Activation("x**q", q=3.0).compile(backend=backend, dtype=dtype)
    y, dy = kernel.forward_with_derivative(np.array([-np.inf, -2.0], dtype=dtype))
    assert y[0] == -np.inf and dy[0] == np.inf and y[1] == -8.0 and dy[1] == 12.0
