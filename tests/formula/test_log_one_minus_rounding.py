"""Logs whose argument rounds in floating point, read in forms that do not round
(``symnb.formula.stability``): ``log(1 - tanh(u)**2)`` (a normalizing flow's tanh
log-determinant), ``log1p(-exp(u))`` (log1mexp typed directly), the log of a quotient
of functions with the sign of one argument (``log(sinh(x)/x)``) and the softplus of a
power of a number (``log1p(2**x)``).

Before h91 these were -inf or inf where the value is finite: log(1 - tanh(x)**2) from
|x| = 9 in float32 (19 in float64), log1p(-exp(-x)) at x = 1e-8 in float32,
log(sinh(x)/x) from |x| = 89 in float32 (710 in float64), log1p(2**x) from x = 1024
in float64. References: mpmath at 60 digits (1000 where a value cancels).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb

CASES = {
    # text: (mpmath f, points)
    "log(1 - tanh(x)**2)": (
        lambda x: -2 * mp.log(mp.cosh(x)),
        [-300.0, -30.0, -9.5, -0.5, 1e-3, 2.0, 20.0, 88.0, 500.0],
    ),
    "torch.log1p(-x.tanh().pow(2))": (
        lambda x: -2 * mp.log(mp.cosh(x)),
        [-80.0, -12.0, 0.25, 15.0, 1e4],
    ),
    "np.log1p(-np.exp(-x))": (
        lambda x: mp.log(-mp.expm1(-x)),
        [1e-30, 1e-8, 1e-3, 0.5, 3.0, 40.0],
    ),
    "log(sinh(x)/x)": (
        lambda x: mp.log(mp.sinh(x) / x),
        [-1e30, -720.0, -100.0, -2.0, -1e-3, 0.5, 95.0, 800.0, 1e20],
    ),
    "log(x/tanh(x))": (
        lambda x: mp.log(x / mp.tanh(x)),
        [-1e30, -50.0, -0.75, 3.0, 1e6],
    ),
    "torch.log1p(torch.special.exp2(x))": (
        lambda x: mp.log1p(mp.mpf(2) ** x),
        [-2000.0, -5.0, 0.5, 30.0, 200.0, 2000.0, 1e30],
    ),
}

#: issue 8's accuracy rule: |got - ref| <= rtol*|ref| + stol*max(1, |x|)
RULE = {"float32": (2e-5, 1e-6), "float64": (1e-9, 1e-12)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", list(CASES))
def test_log_of_a_rounding_argument_is_finite_and_accurate(text, dtype):
    fn, points = CASES[text]
    big = float(np.finfo(dtype).max)
    xs = np.array([p for p in points if abs(p) <= big], dtype=dtype)
    kernel = symnb.Activation(text).compile(backend="numpy", dtype=dtype)
    got = kernel.forward(xs.copy()).astype(np.float64)
    rtol, stol = RULE[dtype]
    with mp.workdps(1000):
        ref = np.array([float(fn(mp.mpf(float(x)))) for x in xs])
    allowed = rtol * np.abs(ref) + stol * np.maximum(1.0, np.abs(xs))
    bad = ~(np.abs(got - ref) <= allowed)
    assert not bad.any(), (text, dtype, xs[bad], got[bad], ref[bad])
