"""A power of x with a named exponent times an exponential is one exponential.

The Frechet CDF ``where(x > 0, exp(-x**(-a)), 0)`` has f' = a x**(-a - 1)
exp(-x**(-a)): at tiny x the power overflows while the exponential underflows, and
inf*0 was NaN (float32 from x = 1e-38 at a = 2, float64 from 1e-103; found by the
twelfth corpus's probe) where f' is 0. As exp((-a - 1) log x - exp(-a log x))
(``symnb.robust.rewrite.log_of`` of a named power of x) it is 0 there.
References: mpmath at 60 digits.
"""

from __future__ import annotations

import mpmath as mp
import pytest

from tests.conftest import backend_params
from tests.robust.kernel_values import assert_value, kernel_values

_POINTS = {
    "float32": [1e-45, 1e-38, 1e-20, 0.05, 0.3, 1.0, 7.0, 1e30],
    "float64": [5e-324, 1e-300, 1e-103, 1e-20, 0.05, 0.3, 1.0, 7.0, 1e300],
}


def _frechet(x: float, a: float) -> tuple[float, float]:
    """f and f' of the Frechet CDF exp(-x^-a) at x > 0."""
    with mp.workdps(60):
        x, a = mp.mpf(x), mp.mpf(a)
        f = mp.exp(-(x**-a))
        return float(f), float(a * x ** (-a - 1) * f)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frechet_cdf_slope_at_tiny_x_is_zero_not_nan(dtype, backend):
    a = 2.0
    text = "where(x > 0, exp(-x**(-a)), 0)"
    xs, y, dy = kernel_values(text, backend, dtype, _POINTS[dtype], a=a)
    rtol = 2e-5 if dtype == "float32" else 1e-9
    for x, got_f, got_df in zip(xs.tolist(), y.tolist(), dy.tolist()):
        want_f, want_df = _frechet(x, a)
        assert_value(got_f, want_f, dtype, x)
        assert got_df == pytest.approx(want_df, rel=rtol, abs=1e-30), x
