"""The fused (f, f') kernel computes what f and f' compute alone.

The robustness engine measures f and f' one at a time; training calls the fused
``forward_with_derivative`` / ``forward_and_backward``. Lowered together, CSE regrouped
``x*exp(x)/expm1(x)`` as ``x*(exp(x)/expm1(x))`` (the quotient f' uses), and the fused f
was inf at x = 1e-41 where f alone is 1. Each result of the fused function is now lowered
as if alone (:func:`symnb.codegen.printer.lower`'s ``groups``), so both paths agree (to
the last bits of libm's vector and scalar calls); the values are checked against mpmath too.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

BERNOULLI = "exp(x)*x/(exp(x) - 1)"

#: formulas whose f and f' share subexpressions that CSE could regroup
FORMULAS = (
    BERNOULLI,
    "x/(exp(x) - 1)",
    "sin(x)/x",
    "x*exp(x)/(1 + exp(x))",
    "x*tanh(log(1 + exp(x)))",
    "log(1 + exp(x))/x",
    "(exp(x) - 1)/x",
    "x*erf(x) + exp(-x**2)",
)


def _same(a: np.ndarray, b: np.ndarray, ulps: int = 4) -> np.ndarray:
    """Equal, or both NaN, or within a few ulps (the vector and scalar libm calls of
    one loop, e.g. sinf, may round differently; an overflow is never "close")."""
    with np.errstate(invalid="ignore", over="ignore"):
        spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
        close = np.isfinite(a) & np.isfinite(b) & (np.abs(a - b) <= ulps * spacing)
    return (a == b) | (np.isnan(a) & np.isnan(b)) | close


def _points(dtype: str) -> np.ndarray:
    info = np.finfo(dtype)
    tiny = [float(info.smallest_subnormal), 1e-41 if dtype == "float32" else 1e-310]
    tiny += [float(info.tiny), 1e-30, 1e-12, 1e-7, 1e-3]
    ordinary = [0.3, 1.0, 2.5, 20.0, 42.0, 80.0, 89.0, 100.0, 700.0, 710.0, 1e4]
    huge = [1e20, 1e30, float(info.max)]
    mags = np.array(tiny + ordinary + huge, dtype=np.float64)
    with np.errstate(over="ignore"):
        pts = np.concatenate([mags, -mags, [0.0, -0.0]]).astype(dtype)
    return pts


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("formula", FORMULAS)
def test_fused_f_and_derivative_equal_the_separate_kernels(formula, dtype, backend):
    kernel = symnb.Activation(formula).compile(backend, dtype=dtype)
    x = _points(dtype)
    if backend == "cuda":
        x = kernel.xp.asarray(x)
    y, dy = kernel.forward_with_derivative(x)
    f = kernel.forward(x)
    df = kernel.backward(x, kernel.xp.ones_like(x))
    y2, dx = kernel.forward_and_backward(x, kernel.xp.ones_like(x))
    to_np = kernel.xp.asnumpy if backend == "cuda" else np.asarray
    y, dy, f, df, y2, dx, xs = map(to_np, (y, dy, f, df, y2, dx, x))
    for got, alone in ((y, f), (dy, df)):
        bad = ~_same(got, alone)
        assert not bad.any(), (xs[bad], got[bad], alone[bad])
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(dx, dy)


def _bernoulli_reference(v: float) -> tuple[float, float]:
    """x e^x / (e^x - 1) = x/(1 - e^-x) and its derivative, with mpmath at 60 digits
    more than the cancellation in f' costs at tiny x."""
    if v == 0:
        return 1.0, 0.5
    with mpmath.workdps(60 + max(0, -math.frexp(v)[1]) // 3):
        t = mpmath.mpf(v)
        d = -mpmath.expm1(-t)  # f = t/d, d = 1 - e^-t
        f = t / d
        df = (d - t * mpmath.exp(-t)) / d**2
        return float(f), float(df)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_bernoulli_kernel_is_right_at_tiny_and_huge_x(dtype, backend):
    """f(1e-41) = 1, f'(1e-41) = 1/2 (the fused f was inf in C++); also at
    subnormal, zero, ordinary and huge x, both signs, against mpmath."""
    kernel = symnb.Activation(BERNOULLI).compile(backend, dtype=dtype)
    x = _points(dtype)
    x = x[np.isfinite(x)]
    xin = kernel.xp.asarray(x) if backend == "cuda" else x
    y, dy = kernel.forward_with_derivative(xin)
    if backend == "cuda":
        y, dy = kernel.xp.asnumpy(y), kernel.xp.asnumpy(dy)
    rtol = 2e-5 if dtype == "float32" else 1e-9
    for v, got_f, got_df in zip(x.tolist(), y.tolist(), dy.tolist()):
        ref_f, ref_df = _bernoulli_reference(v)
        with np.errstate(over="ignore", under="ignore"):
            ref_f = float(np.asarray(ref_f, dtype=dtype))
            ref_df = float(np.asarray(ref_df, dtype=dtype))
        assert got_f == pytest.approx(ref_f, rel=rtol, abs=1e-30), (v, got_f, ref_f)
        assert got_df == pytest.approx(ref_df, rel=rtol, abs=1e-30), (v, got_df, ref_df)
