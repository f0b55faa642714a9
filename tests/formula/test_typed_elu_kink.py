"""ELU, CELU, SELU and leaky ReLU typed as max(0, x) + min(0, g(x)): differentiated part
by part, max and min both took their flat side at x = 0, so f'(0) was 0, neither
side's derivative (ELU and CELU are C1 there: f'(0) = 1). PyTorch's built-ins give the
left derivative: elu'(0) = alpha, celu'(0) = 1, selu'(0) = scale*alpha,
leaky_relu'(0) = slope. The sum is now one piecewise term (x above 0, g below), gated
on the constants where g's sign depends on them (alpha > 0). References: the
definitions in float64 (NumPy) and their derivatives written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

BACKENDS = ("numpy", "cpp")
SCALE, ALPHA = 1.0507009873554805, 1.6732632423543772


def _elu(a):
    f = lambda x: np.where(x > 0, x, a * np.expm1(x))  # noqa: E731
    d = lambda x: np.where(x > 0, 1.0, a * np.exp(x))  # noqa: E731
    return f, d


def _celu(a):
    f = lambda x: np.where(x > 0, x, a * np.expm1(x / a))  # noqa: E731
    d = lambda x: np.where(x > 0, 1.0, np.exp(x / a))  # noqa: E731
    return f, d


def _leaky(a):
    return (lambda x: np.where(x > 0, x, a * x)), (lambda x: np.where(x > 0, 1.0, a))


def _selu():
    f, d = _elu(ALPHA)
    return (lambda x: SCALE * f(x)), (lambda x: SCALE * d(x))


CASES = [
    ("max(0, x) + min(0, exp(x) - 1)", {}, *_elu(1.0)),
    ("max(0, x) + min(0, alpha*(exp(x) - 1))", {"alpha": 1.3}, *_elu(1.3)),
    ("max(x, 0) + min(alpha*expm1(x/alpha), 0)", {"alpha": 0.7}, *_celu(0.7)),
    ("lam*(max(0, x) + min(0, alpha*(exp(x) - 1)))", {"lam": SCALE, "alpha": ALPHA},
     *_selu()),
    ("max(0, x) + a*min(0, x)", {"a": 0.2}, *_leaky(0.2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "text, constants, f, d", CASES, ids=[f"{c[0]} {c[1]}" for c in CASES]
)
def test_typed_elu_family_derivative_at_zero_is_pytorchs(text, constants, f, d, dtype):
    act = symnb.Activation(text, **constants)
    x = np.array([-30.0, -2.0, -1e-3, -0.0, 0.0, 1e-3, 2.0, 1e30], dtype=dtype)
    xr = x.astype(np.float64)
    rtol = 1e-6 if dtype == "float32" else 1e-14
    for backend in BACKENDS:
        kernel = act.compile(backend=backend, dtype=dtype)
        y, dy = (np.asarray(a, np.float64) for a in kernel.forward_with_derivative(x))
        with np.errstate(over="ignore"):  # np.where computes both branches
            f_ref, d_ref = f(xr), d(xr)
        np.testing.assert_allclose(y, f_ref, rtol=rtol, atol=1e-30)
        np.testing.assert_allclose(dy, d_ref, rtol=rtol, atol=1e-30)
        nan = kernel.forward_with_derivative(np.array([np.nan], dtype=dtype))
        assert np.isnan(nan[0]).all() and np.isnan(nan[1]).all()


def test_typed_elu_with_negative_alpha_keeps_its_parts() -> None:
    """alpha < 0: min(0, alpha*(exp(x) - 1)) is 0 for x < 0 and alpha*(exp(x) - 1) for
    x > 0, so the sum is not ELU: the typed form is computed (values as typed)."""
    act = symnb.Activation("max(0, x) + min(0, alpha*(exp(x) - 1))", alpha=-1.0)
    x = np.array([-2.0, -1e-3, 0.0, 1e-3, 2.0])
    want = np.maximum(0, x) + np.minimum(0, -np.expm1(x))
    for backend in BACKENDS:
        y = act.compile(backend=backend, dtype="float64").forward(x)
        np.testing.assert_allclose(y, want, rtol=1e-14, atol=1e-300)
