"""Square roots at x = -0.0 (a hostile-input probe, 2026-12-06).

C's ``sqrt(-0.0)`` is ``-0.0``, so the compiled ``1/sqrt(x)`` and the derivative of
``sqrt(x)``, ``0.5/sqrt(x)``, were ``-inf`` at ``x = -0.0`` on the cpp and cuda
backends, where the numpy backend (NumPy's power) gives ``+inf``, as IEEE 754's
``pow(-0, -1/2)`` does. ``-0.0`` is an ordinary input: ``-relu(x)``, ``x*0`` for
negative x. The reference here is IEEE ``pow`` (NumPy's ``np.power``).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

X = np.array([-0.0, 0.0, 0.25, 4.0])


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    ("text", "f", "df"),
    [
        ("sqrt(x)", lambda x: np.power(x, 0.5), lambda x: 0.5 * np.power(x, -0.5)),
        ("1/sqrt(x)", lambda x: np.power(x, -0.5), lambda x: -0.5 * np.power(x, -1.5)),
        ("x**(-1.5)", lambda x: np.power(x, -1.5), lambda x: -1.5 * np.power(x, -2.5)),
    ],
)
def test_roots_at_negative_zero_follow_ieee_pow(backend, dtype, text, f, df):
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    x = X.astype(dtype)
    y, dy = kernel.forward_with_derivative(x)
    with np.errstate(divide="ignore"):
        ref_y, ref_dy = f(x.astype(np.float64)), df(x.astype(np.float64))
    np.testing.assert_allclose(y, ref_y, rtol=1e-6)
    np.testing.assert_allclose(dy, ref_dy, rtol=1e-6)
    # the sign of a zero or infinite result too (assert_allclose accepts -0.0 == 0.0)
    np.testing.assert_array_equal(np.signbit(y), np.signbit(ref_y))
    np.testing.assert_array_equal(np.signbit(dy), np.signbit(ref_dy))
