"""A number plus a multiple of tanh(u)**2 keeps its digits where tanh(u)**2 rounds to 1.

SAC's tanh log-probability correction ``log(1 - tanh(x)**2 + 1e-6)`` reaches symnb as
``log(1.000001 - tanh(x)**2)`` (SymPy adds the two numbers). In float32 1.000001 is
1.00000095, so for |x| > 9 f was log(9.5e-7) = -13.863 instead of log(1e-6) = -13.816,
and f' was 6% off at x = -10 (the ninth corpus, ``sac_tanh_correction``).
``rewrite.tanh_square_as_sech`` computes ``(c - 1) + 1/cosh(x)**2``. Values against
mpmath at a few points, both backends and dtypes.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

_POINTS = [-1000.0, -10.0, -6.0, -0.5, 0.0, 2.0, 9.5, 50.0]


def _df(x):
    inner = 1 / mp.cosh(x) ** 2 + mp.mpf("1e-6")
    return -2 * mp.tanh(x) / mp.cosh(x) ** 2 / inner


def _reference(x: float) -> tuple[float, float, float]:
    """f, f' and the rule's scale S of f' (max(1, |x|, |x f''|))."""
    with mp.workdps(60):
        x = mp.mpf(x)
        f = mp.log(1 / mp.cosh(x) ** 2 + mp.mpf("1e-6"))
        s = max(1, abs(x), abs(x * mp.diff(_df, x)))
        return float(f), float(_df(x)), float(s)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sac_tanh_correction_far_out(dtype, backend):
    act = symnb.Activation("torch.log(1 - torch.tanh(x).pow(2) + 1e-6)")
    kernel = act.compile(backend=backend, dtype=dtype)
    y, dy = kernel.forward_with_derivative(np.array(_POINTS, dtype=dtype))
    rtol, stol = (2e-5, 1e-6) if dtype == "float32" else (1e-9, 1e-12)
    for x, got_f, got_df in zip(_POINTS, y.tolist(), dy.tolist()):
        want_f, want_df, scale_df = _reference(x)
        scale = max(1.0, abs(x))
        assert abs(got_f - want_f) <= rtol * abs(want_f) + stol * scale, x
        assert abs(got_df - want_df) <= rtol * abs(want_df) + stol * scale_df, x
