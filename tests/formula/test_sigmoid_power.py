"""1 - sigmoid(u)**q typed out (the generalized cross entropy (1 - sigmoid(x)**q)/q
of Zhang & Sabuncu, 2018): sigmoid(x)**q rounds towards 1 and 1 - it cancels, 5% off
at x = 10 in float32 for q = 0.01 (4.77e-5 instead of 4.54e-5), 0 instead of 2e-9 at
x = 20. Computed as -expm1(q*logsigmoid(u)). References: mpmath at 200 digits, f' by
mpmath.diff of the same formula (independent of symnb's rewrite and derivative)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb

BACKENDS = ("numpy", "cpp")


def _sig(x):
    return 1 / (1 + mpmath.exp(-x))


CASES = [
    ("(1 - sigmoid(x)**q)/q", {"q": 0.01}, lambda x: (1 - _sig(x) ** 0.01) / 0.01),
    ("(1 - sigmoid(x)**q)/q", {"q": 0.7}, lambda x: (1 - _sig(x) ** 0.7) / 0.7),
    ("1 - sigmoid(x)**2", {}, lambda x: 1 - _sig(x) ** 2),
    ("3 - 3*sigmoid(-2*x)**q", {"q": 0.5}, lambda x: 3 - 3 * _sig(-2 * x) ** 0.5),
]

POINTS = [-80.0, -30.0, -5.0, -0.5, 0.0, 0.3, 3.0, 10.0, 15.0, 20.0, 30.0, 80.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "text, constants, fn", CASES, ids=[f"{c[0]} {c[1]}" for c in CASES]
)
def test_one_minus_sigmoid_power_is_accurate(text, constants, fn, dtype):
    act = symnb.Activation(text, **constants)
    x = np.array(POINTS, dtype=dtype)
    with mpmath.workdps(200):
        f_ref = np.array([float(fn(mpmath.mpf(float(v)))) for v in x])
        d_ref = np.array([float(mpmath.diff(fn, mpmath.mpf(float(v)))) for v in x])
    rtol = 2e-5 if dtype == "float32" else 1e-12
    for backend in BACKENDS:
        kernel = act.compile(backend=backend, dtype=dtype)
        y, dy = (np.asarray(a, np.float64) for a in kernel.forward_with_derivative(x))
        tiny = float(np.finfo(dtype).tiny)  # below it the dtype rounds to 0
        np.testing.assert_allclose(y, f_ref, rtol=rtol, atol=tiny)
        np.testing.assert_allclose(dy, d_ref, rtol=rtol, atol=tiny)
