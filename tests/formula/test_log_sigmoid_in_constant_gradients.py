"""The gradient of a constant exponent of a sigmoid keeps log(sigmoid(u)) accurate.

d/dgamma of the focal loss -alpha*(1 - sigmoid(x))**gamma*log(sigmoid(x)) has
log(1 - sigmoid(x)) = log(sigmoid(-x)): where sigmoid(-x) rounds to 1 (x < -17 in
float32, x < -37 in float64) the log was 0, so the gradient was 0 for -2.8e-12 at
x = -30 in float32 (0 for -2.8e-4 once training took alpha to 1e8). Written as
logsigmoid(-x) it is exact. Judged against SymPy's derivative of the text in mpmath.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb

FOCAL = "-alpha*(1 - sigmoid(x))**gamma*log(sigmoid(x))"


def _reference(x: float, alpha: float, gamma: float) -> float:
    xs, a, g = sp.symbols("x alpha gamma", real=True)
    sig = 1 / (1 + sp.exp(-xs))
    d = sp.diff(-a * (1 - sig) ** g * sp.log(sig), g)
    fn = sp.lambdify((xs, a, g), d, modules="mpmath")
    with mpmath.workdps(60):
        return float(fn(mpmath.mpf(x), mpmath.mpf(alpha), mpmath.mpf(gamma)))


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize(
    "dtype,xs",
    [("float32", (-12.0, -20.0, -30.0, -60.0)), ("float64", (-30.0, -40.0, -80.0))],
)
def test_focal_loss_gamma_gradient_far_left(dtype, xs, backend):
    alpha, gamma = 0.25, 2.0
    kernel = symnb.Activation(FOCAL, alpha=alpha, gamma=gamma).compile(
        backend, dtype=dtype
    )
    rtol = {"float32": 2e-5, "float64": 1e-9}[dtype]
    for x in xs:
        got = kernel.constant_gradient(np.array([x], dtype), np.ones(1, dtype))["gamma"]
        ref = _reference(x, alpha, gamma)
        assert abs(got - ref) <= rtol * abs(ref), (x, got, ref)
