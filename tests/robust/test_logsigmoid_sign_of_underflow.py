"""logsigmoid(u) is negative for every u, also where it underflows: -0.0, not 0.0.

Found with ``torch.log(torch.sigmoid(x))/torch.log(torch.sigmoid(-x))`` (a ratio of
Gumbel log-probabilities): at x = -800 in float64 (x = -100 in float32) its value is
+2.7e345 (+2.7e45), past the dtype's range, and the kernel gave -inf:
logsigmoid(800) = min(800, 0) - log1p(exp(-800)) = 0 - 0 = +0.0, and -800/+0.0 is -inf.
The references are mpmath's.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params


def _log_sigmoid(u: float) -> mp.mpf:
    return -mp.log1p(mp.exp(-mp.mpf(u)))


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsigmoid_is_negative_where_it_underflows(backend, dtype):
    kernel = symnb.Activation("logsigmoid(x)").compile(backend=backend, dtype=dtype)
    u = np.array([800.0, 1e30], dtype=dtype)  # exp(-u) underflows in both
    y = kernel.forward(u)
    assert all(_log_sigmoid(float(v)) < 0 for v in u)  # the reference's sign
    assert (y == 0).all() and np.signbit(y).all(), y


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(("dtype", "x"), [("float32", -100.0), ("float64", -800.0)])
def test_ratio_past_the_range_is_inf_of_the_right_sign(backend, dtype, x):
    text = "torch.log(torch.sigmoid(x))/torch.log(torch.sigmoid(-x))"
    ref = _log_sigmoid(x) / _log_sigmoid(-x)
    assert ref > np.finfo(dtype).max
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    with np.errstate(all="ignore"):
        y = kernel.forward(np.array([x], dtype=dtype))
    assert y[0] == np.inf
