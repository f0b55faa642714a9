"""A constant times an integer power is multiplied in one factor at a time.

The contrastive loss of a dissimilar pair ``(1 - y)*x**2/2 + y*max(m - x, 0)**2/2``
(y = 1) was NaN from x = -1.8e19 in float32 (-1.3e154 in float64): x**2 overflowed
and (1 - y) = 0 times inf is NaN, where f is (m - x)**2/2 (inf beyond the range).
PolyReLU's ``a3*relu(x)**3`` with a3 = 1e-8 was inf from x = 7e12 in float32 where
it is finite up to 3e15. Both found by the eleventh corpus; fixed by
``symnb.robust.constant_into_power``. Values and slopes against mpmath, every backend
and dtype.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.kernel_values import assert_value

_FAR = {"float32": [-3e38, -1e30, -1e20, 1e12, 1e15, 3e15], "float64": [-1e300, -1e160]}


def _contrastive(x: float) -> tuple[float, float]:
    """f, f' of (m - x)**2/2 (y = 1, m = 1, x < m)."""
    with mp.workdps(50):
        u = 1 - mp.mpf(x)
        return float(u**2 / 2), float(-u)


def _polyrelu(x: float) -> tuple[float, float]:
    """f, f' of x + x**2/2 + 1e-8 x**3 for x > 0."""
    with mp.workdps(50):
        x, a = mp.mpf(x), mp.mpf(1e-8)
        return float(x + x**2 / 2 + a * x**3), float(1 + x + 3 * a * x**2)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_zero_label_does_not_make_an_overflowing_square_nan(dtype, backend):
    act = symnb.Activation(
        "(1 - y)*x**2/2 + y*torch.clamp(m - x, min=0)**2/2", y=1.0, m=1.0
    )
    xs = np.array([x for x in _FAR[dtype] if x < 0], dtype=dtype)
    y, dy = act.compile(backend=backend, dtype=dtype).forward_with_derivative(xs)
    for x, got_f, got_df in zip(xs.tolist(), y.tolist(), dy.tolist()):
        want_f, want_df = _contrastive(x)
        assert_value(got_f, want_f, dtype, x)
        assert_value(got_df, want_df, dtype, x)


@pytest.mark.parametrize("backend", backend_params())
def test_a_small_coefficient_brings_the_cube_down_first(backend):
    act = symnb.Activation(
        "a0 + a1*F.relu(x) + a2*F.relu(x)**2 + a3*F.relu(x)**3",
        a0=0.0,
        a1=1.0,
        a2=0.5,
        a3=1e-8,
    )
    xs = np.array([x for x in _FAR["float32"] if x > 0], dtype="float32")
    y, dy = act.compile(backend=backend, dtype="float32").forward_with_derivative(xs)
    for x, got_f, got_df in zip(xs.tolist(), y.tolist(), dy.tolist()):
        want_f, want_df = _polyrelu(x)
        assert_value(got_f, want_f, "float32", x)
        assert_value(got_df, want_df, "float32", x)
