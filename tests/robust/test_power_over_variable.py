"""A power of a linear function of x divided by x does not overflow before the quotient.

The focal loss of a probability ``-(1 - x)**g*log(x)`` has the term ``(1 - x)**g/x``
in f'. Computed as written, ``(1 - x)**2`` overflows from x = 1.9e19 in float32 (1.4e154
in float64) and f' was -inf where it is -1e25 (x = 1e23, float32): found by the ninth
corpus (``focal_probability``). ``rewrite.power_over_variable`` computes
``(1 - x)**(g - 1)/(x/(1 - x))``. Values against mpmath, both backends and dtypes.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

_POINTS = {
    "float32": [1e-3, 0.5, 2.0, 1e20, 1e23, 1e30],
    "float64": [1e-3, 0.5, 2.0, 1e20, 1e160, 1e200],
}


def _focal_df(x: float, g: float) -> float:
    """d/dx of -(1 - x)**g*log(x) (x > 1: (1 - x)**g for an integer g)."""
    with mp.workdps(50):
        x, g = mp.mpf(x), mp.mpf(g)
        u = 1 - x
        return float(g * u ** (g - 1) * mp.log(x) - u**g / x)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("g", [2.0, 3.0])
def test_focal_loss_of_a_probability_derivative_far_out(g, dtype, backend):
    act = symnb.Activation("-(1 - x)**g*log(x)", g=g)
    kernel = act.compile(backend=backend, dtype=dtype)
    xs = np.array(_POINTS[dtype], dtype=dtype)
    _, dy = kernel.forward_with_derivative(xs)
    big = float(np.finfo(dtype).max)
    rtol = 2e-5 if dtype == "float32" else 1e-9
    for x, got in zip(xs.tolist(), dy.tolist()):
        want = _focal_df(x, g)
        if abs(want) > big:
            assert np.isinf(got) and np.sign(got) == np.sign(want), x
        else:
            assert got == pytest.approx(want, rel=rtol), x
