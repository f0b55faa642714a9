"""A product divided by a small integer does not overflow before the quotient does.

The C printer writes ``c*x/q`` (q not a power of two) as a division, not a product
with the rounded 1/q; it divided the whole product, so hard swish
``x*min(max(x + 3, 0), 6)/6`` computed ``(x*6)/6`` and its C++ ``forward`` was inf
from x = 5.7e37 in float32 (and at the float64 maximum), where the value is x. One
factor is divided now. Against mpmath on every backend and dtype.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

HARD_SWISH = "x*min(max(x + 3, 0), 6)/6"


def _hard_swish(v: float) -> float:
    with mpmath.workdps(50):
        t = mpmath.mpf(v)
        return float(t * min(max(t + 3, 0), 6) / 6)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hard_swish_forward_is_x_up_to_the_largest_float(dtype, backend):
    kernel = symnb.Activation(HARD_SWISH).compile(backend, dtype=dtype)
    big = float(np.finfo(dtype).max)
    x = np.array([big, big / 2, 1e38, 6e37, 1e30, 3.0, 1.5, -2.5, -3.0, -1e30, -big])
    x = x.astype(dtype)
    xin = kernel.xp.asarray(x) if backend == "cuda" else x
    outs = {
        "forward": kernel.forward(xin),
        "pair": kernel.forward_with_derivative(xin)[0],
    }
    rel = 2e-5 if dtype == "float32" else 1e-9
    for name, y in outs.items():
        y = kernel.xp.asnumpy(y) if backend == "cuda" else np.asarray(y)
        for v, got in zip(x.tolist(), y.tolist()):
            want = _hard_swish(v)
            assert got == pytest.approx(want, rel=rel, abs=1e-30), (name, v, got, want)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hard_swish_derivative_is_exact_at_its_zero(dtype, backend):
    """f' = x*[x > -3]*[x < 3]/6 + min(max(x + 3, 0), 6)/6 is 0 at x = -1.5: the
    quotient divides x (-1.5/6 = -0.25 exactly), not a 0/1 step (x*(1/6) rounded made
    f'(-1.5) -7.45e-9 in float32); against mpmath's derivative on a grid of exactly
    representable points where x/6 and (x + 3)/6 are exact."""
    kernel = symnb.Activation(HARD_SWISH).compile(backend, dtype=dtype)
    x = np.array([-2.25, -1.5, -0.75, 0.0, 0.75, 1.5, 2.25], dtype=dtype)
    xin = kernel.xp.asarray(x) if backend == "cuda" else x
    got = kernel.backward(xin, kernel.xp.ones_like(xin))
    got = got.get() if hasattr(got, "get") else got
    with mpmath.workdps(50):
        want = [
            float(mpmath.diff(lambda t: t * (t + 3) / 6, mpmath.mpf(float(v))))
            for v in x
        ]
    np.testing.assert_array_equal(got, np.array(want, dtype=dtype))
