"""A difference of two softplus terms a constant apart does not cancel.

The soft clipping activation (Klimek and Perelstein 2020)
``log((1 + exp(a x))/(1 + exp(a (x - 1))))/a`` at a = 1e-8 gave 0 for 0.4999975 at
x = -1000 in float32 (165 of 183 corpus points over the rule) and 0.49999751 for
0.49999750 in float64 (295 of 353): both softplus terms are about log 2 (found by the
fifteenth corpus's probe, ``soft_clip_a_1e8``). ``symnb.robust.softplus_difference``
computes softplus(u) - softplus(u - d) as log1p(expm1(d) sigmoid(u - d)). References:
mpmath of the published definition, 60 digits past the logs' cancellation.
"""

from __future__ import annotations

import mpmath as mp
import pytest

from tests.conftest import backend_params
from tests.robust.kernel_values import assert_value, kernel_values

_POINTS = {
    "float32": [-3e38, -1e9, -1000.0, -1.0, 0.0, 0.5, 1.0, 2.0, 1e6, 1e9, 3e38],
    "float64": [-1e300, -1e9, -1000.0, -1.0, 0.0, 0.5, 1.0, 2.0, 1e6, 1e9, 1e300],
}


def _soft_clip(x: float, a: float) -> float:
    """log((1 + e^(a x))/(1 + e^(a (x - 1))))/a at 60 digits more than |a x| has
    (both logs are about a x where it is large, and their difference about 1)."""
    digits = 60 + max(0, int(mp.log10(abs(mp.mpf(a) * mp.mpf(x)) + 1)))
    with mp.workdps(digits):
        x, a = mp.mpf(x), mp.mpf(a)
        return float((mp.log1p(mp.exp(a * x)) - mp.log1p(mp.exp(a * (x - 1)))) / a)


_SPELLINGS = [
    "torch.log((1 + torch.exp(a*x))/(1 + torch.exp(a*(x - 1))))/a",
    "(F.softplus(a*x) - F.softplus(a*(x - 1)))/a",
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", _SPELLINGS)
@pytest.mark.parametrize("a", [1e-8])
def test_soft_clipping_at_a_small_scale(a, text, dtype, backend):
    xs, y, _ = kernel_values(text, backend, dtype, _POINTS[dtype], a=a)
    for x, got in zip(xs.tolist(), y.tolist()):
        assert_value(got, _soft_clip(x, a), dtype, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_soft_clipping_with_a_gap_beyond_the_branch(dtype):
    # a = 100: the gap d = a is past the rewrite's 64, where the difference is kept as
    # written (nothing cancels there and expm1(100) overflows float32)
    xs, y, _ = kernel_values(_SPELLINGS[1], "numpy", dtype, _POINTS[dtype], a=100.0)
    for x, got in zip(xs.tolist(), y.tolist()):
        assert_value(got, _soft_clip(x, 100.0), dtype, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_soft_clipping_inside_a_branch(dtype):
    # the difference inside torch.where: the rewrite first stopped at the branch's
    # (expression, condition) pair, and f stayed 0 for 0.4999975 at x = -1000 in float32
    text = (
        "torch.where(x > 1e30, 0.5 + 0*x, (F.softplus(a*x) - F.softplus(a*(x - 1)))/a)"
    )
    points = [-1e9, -1000.0, -1.0, 0.0, 0.5, 2.0, 1e6, 1e9]
    xs, y, _ = kernel_values(text, "numpy", dtype, points, a=1e-8)
    for x, got in zip(xs.tolist(), y.tolist()):
        assert_value(got, _soft_clip(x, 1e-8), dtype, x)
