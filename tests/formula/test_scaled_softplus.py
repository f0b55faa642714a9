"""softplus(beta*x)/beta stays finite where its value is, for beta moved by training.

beta*x overflowed first: with beta = 1e30 in float32, f was inf from x = 1e11 (it is
x) and d/dbeta NaN (it is 0); beta = -2 gave f = -inf at x = -3.4e38; beta = 1e10
and 1e-10 had inf/NaN gradients at the float maximum. symnb.formula.scaled_softplus
rewrites it as (x + sign(beta)|x|)/2 + softplus(-|beta x|)/beta. Judged against
mpmath at 60 digits with the accuracy rule (inf of the right sign past the range).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus_reference import violations

XS = [-3.4e38, -1e11, -30.0, -1.0, 0.0, 1e-30, 1.0, 30.0, 1e11, 3.4e38]


def _reference(x: float, b: float) -> tuple[float, float, float]:
    """(f, f', d/dbeta) of log(1 + exp(b x))/b at x."""
    with mpmath.workdps(60):
        x, b = mpmath.mpf(x), mpmath.mpf(b)
        softplus = mpmath.log1p(mpmath.exp(b * x))
        s = 1 / (1 + mpmath.exp(-b * x))
        return float(softplus / b), float(s), float(x * s / b - softplus / b**2)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("beta", [1.0, 1e30, -2.0, 1e10, 1e-10])
def test_scaled_softplus_with_moved_beta(beta, dtype, backend):
    kernel = symnb.Activation("softplus(beta*x)/beta", beta=1.0).compile(
        backend, dtype=dtype
    )
    kernel.set_constants(beta=beta)
    x = np.array(XS, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
        grads = [
            kernel.constant_gradient(x[i : i + 1], np.ones(1, dtype))
            for i in range(x.size)
        ]
    got = {"f": y, "f'": dy, "d/dbeta": np.array([g["beta"] for g in grads])}
    ref = np.array([_reference(float(v), beta) for v in x])
    scale = np.maximum(1.0, np.abs(x.astype(np.float64)))
    for j, name in enumerate(got):
        bad = violations(got[name], ref[:, j], scale, dtype)
        assert not bad.any(), (name, list(zip(x[bad], got[name][bad], ref[bad, j])))


def test_derivative_at_zero_is_one_half():
    """The kinks of |x| cancel: f'(0) = sigmoid(0) = 1/2 (not a one-sided slope)."""
    kernel = symnb.Activation("softplus(beta*x)/beta", beta=1.5).compile("numpy")
    _, dy = kernel.forward_with_derivative(np.zeros(1, np.float32))
    assert dy[0] == 0.5


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", ["softplus(beta*x)/beta", "log(1 + exp(beta*x))/beta"])
def test_beta_moved_to_zero_gives_the_slope_one_half(text, dtype, backend):
    """beta = 0 (a learnable beta passing through it): f' = sigmoid(beta*x) is 1/2 at
    every x (sigmoid(0) from mpmath). The
    rewrite's sign(beta) was -1 there, and f' was 1 for x < 0 and 0 for x > 0."""
    kernel = symnb.Activation(text, beta=1.0).compile(backend, dtype=dtype)
    kernel.set_constants(beta=0.0)
    xs = [-1e30, -30.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 30.0, 1e30]
    with mpmath.workdps(30):  # d/dx log(1 + exp(b*x))/b = sigmoid(b*x), at b = 0
        b = mpmath.mpf(0)
        exact = [float(1 / (1 + mpmath.exp(-b * mpmath.mpf(x)))) for x in xs]
    d = kernel.forward_with_derivative(np.array(xs, dtype=dtype))[1]
    np.testing.assert_array_equal(d, np.array(exact, dtype=dtype))
