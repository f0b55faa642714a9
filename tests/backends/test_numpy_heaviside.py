"""Heaviside(u, h0) on the numpy backend takes the value h0 at u = 0.

The numpy printer printed ``heaviside0(u)`` and dropped the second argument, so
``heaviside(x, 1)`` was 0 at x = 0 on numpy and 1 on cpp (a silent wrong number).
References: the definition (1 for u > 0, h0 at u = 0, 0 for u < 0) written here, and
the cpp backend where it is usable.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.backends import status

DTYPES = ["float32", "float64"]

#: (formula, shift s and value h0 of its step H(x - s, h0))
STEPS = [
    ("heaviside(x, 1)", 0.0, 1.0),
    ("Heaviside(x, 0.5)", 0.0, 0.5),
    ("heaviside(x - 1, 1)", 1.0, 1.0),
    ("heaviside(x, 0)", 0.0, 0.0),
    ("heaviside(x)", 0.0, 0.0),  # symnb's Heaviside(u) is Heaviside(u, 0)
]

POINTS = [-2.0, -1.0, -1e-30, -0.0, 0.0, 1e-30, 0.5, 1.0, 1.5, 3.0]


def _step(u: np.ndarray, h0: float) -> np.ndarray:
    return np.where(u > 0, 1.0, np.where(u == 0, h0, 0.0))


def _cpp_or_skip():
    st = status("cpp")
    if not st.usable:
        pytest.skip(f"cpp backend: {st.reason}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("text", "shift", "h0"), STEPS)
def test_numpy_step_takes_h0_at_zero(text, shift, h0, dtype) -> None:
    x = np.array(POINTS, dtype=dtype)
    y = symnb.Activation(text).compile(backend="numpy", dtype=dtype).forward(x)
    assert y.dtype == np.dtype(dtype)
    want = _step(x.astype(np.float64) - shift, h0)
    np.testing.assert_array_equal(y.astype(np.float64), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "text",
    [
        "heaviside(x, 1)",
        "Heaviside(x, 0.5)",
        "heaviside(x - 1, 1)",
        "x*heaviside(x, 1)",
        "exp(x)*heaviside(-x, 1)",
        "heaviside(x, 1) + 0.25*heaviside(x - 1, 0.5)",
    ],
)
def test_numpy_matches_cpp_with_steps(text, dtype) -> None:
    """f bit for bit at the steps; f' (the surrogate or exact derivative) to rounding."""
    _cpp_or_skip()
    act = symnb.Activation(text)
    x = np.array(POINTS + [np.nan, 40.0, -40.0], dtype=dtype)
    g = np.ones_like(x)
    kn = act.compile(backend="numpy", dtype=dtype)
    kc = act.compile(backend="cpp", dtype=dtype)
    yn, yc = kn.forward(x), kc.forward(x)
    at = np.isin(x, [-0.0, 0.0, 1.0])  # the steps: exact values
    np.testing.assert_array_equal(yn[at], yc[at])
    np.testing.assert_allclose(yn, yc, rtol=1e-6, atol=0, equal_nan=True)
    dn, dc = kn.backward(x, g), kc.backward(x, g)
    np.testing.assert_allclose(dn, dc, rtol=1e-6, atol=1e-30, equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_step_value_in_a_sum(dtype) -> None:
    """heaviside(x, 1) + 0.25*heaviside(x - 1, 0.5) at 0 and 1: 1 and 1.125."""
    act = symnb.Activation("heaviside(x, 1) + 0.25*heaviside(x - 1, 0.5)")
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0], dtype=dtype)
    y = act.compile(backend="numpy", dtype=dtype).forward(x)
    xs = x.astype(np.float64)
    want = _step(xs, 1.0) + 0.25 * _step(xs - 1.0, 0.5)
    np.testing.assert_array_equal(y.astype(np.float64), want)


def test_numpy_derivative_of_ramp_with_step() -> None:
    """x*heaviside(x, 1): f is continuous, f' the exact derivative H(x, 0) (0 at the
    kink, the left derivative, as relu'(0)), the same on numpy and by definition."""
    act = symnb.Activation("x*heaviside(x, 1)")
    x = np.array([-1.0, -0.0, 0.0, 1e-30, 2.0])
    k = act.compile(backend="numpy", dtype="float64")
    np.testing.assert_array_equal(k.forward(x), x * _step(x, 1.0))
    np.testing.assert_array_equal(k.backward(x, np.ones_like(x)), _step(x, 0.0))
