"""Terms that share a reciprocal power of x are added before the division.

The log-normal likelihood of an observation, ``log(x) + log(s) + (log(x) - mu)**2/
(2*s**2)`` (mu = 0, s = 1e-3), has f' ``1/x + (log(x) - mu)/(s**2*x)``: at subnormal
x both terms overflow, with opposite signs, and f' was inf - inf = NaN where it is
-inf (float64 x < 1e-310, float32 x < 1e-38; found by the eleventh corpus,
``lognormal_nll_observation``). ``rewrite.factor_common_power`` takes the common
1/x out: ``(1 + (log(x) - mu)/s**2)/x``. Against mpmath, every backend and dtype.
"""

from __future__ import annotations

import mpmath as mp
import pytest

from tests.conftest import backend_params
from tests.robust.kernel_values import assert_value, kernel_values

MU, S = 0.0, 1e-3
_POINTS = {
    "float32": [1e-45, 1e-40, 1e-38, 1e-30, 1e-3, 1.0, 1e30],
    "float64": [5e-324, 1e-315, 1e-310, 1e-290, 1e-3, 1.0, 1e300],
}


def _slope(x: float) -> float:
    with mp.workdps(50):
        x = mp.mpf(x)
        return float((1 + (mp.log(x) - MU) / S**2) / x)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_normal_likelihood_slope_at_subnormal_x(dtype, backend):
    text = "torch.log(x) + math.log(s) + (torch.log(x) - mu)**2/(2*s**2)"
    xs, _, dy = kernel_values(text, backend, dtype, _POINTS[dtype], mu=MU, s=S)
    for x, got in zip(xs.tolist(), dy.tolist()):
        assert_value(got, _slope(x), dtype, x)
