"""A root of x**2 plus a named constant is a hypot where the constant is not negative.

Squareplus ``(x + sqrt(x**2 + b))/2`` with b = 0 (a ReLU, Barron 2021) had f' ``1/2 +
x/(2 sqrt(x**2 + b))`` = -inf (or NaN) for tiny negative x where it is 0: x**2
underflowed to 0 (float64 |x| < 1e-162, float32 |x| < 1e-23; found by the eleventh
corpus, ``squareplus_b_zero``). ``hypot.root_of_squares_as_hypot`` now reads a named
constant b as sqrt(b)**2 where b >= 0 (training may move b below 0: there the root
stays). Against the published derivative (1 + sign(x))/2 of b = 0, at normal floats
(subnormal x is still off: the rederived quotient of the cancellation-free f
underflows there).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

_POINTS = {
    "float32": [-1e-37, -1e-30, -1e-25, -1e-20, 1e-30, 1e-20],
    "float64": [-1e-300, -1e-250, -1e-200, -1e-170, 1e-250, 1e-170],
}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_squareplus_with_b_zero_has_the_relu_slope_at_tiny_x(dtype, backend):
    act = symnb.Activation("(x + np.sqrt(x*x + b))/2", b=0.0)
    xs = np.array(_POINTS[dtype], dtype=dtype)
    y, dy = act.compile(backend=backend, dtype=dtype).forward_with_derivative(xs)
    np.testing.assert_array_equal(dy, (1 + np.sign(xs)) / 2)
    # f within issue 8's rule (S = 1 here): x/2 for tiny x > 0 is inside it
    atol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y, np.maximum(xs, 0), rtol=0, atol=atol)
