"""Taylor branches for expressions with sign/Abs that are smooth all the same.

Polya's GELU ``0.5*x*(1 + sign(x)*sqrt(1 - exp(-2*x**2/pi)))`` is analytic at 0 (the
sign times the root is ``x*sqrt(g(x**2)/x**2)``), but its f' divides by
``expm1(-2*x**2/pi)``: 0/0 = NaN where x**2 underflows (float32 from |x| ~ 1e-23, true
value 1/2). SymPy's series does not expand through ``sign``; the two one-sided series
(x = +-t, t > 0) agree, and that polynomial is the Taylor branch. Checked against
mpmath on every backend and dtype, tiny to huge x, both signs.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

POLYA = "0.5*x*(1 + sign(x)*sqrt(1 - exp(-2*x**2/pi)))"


def _polya(v: float) -> tuple[float, float]:
    """f and f' with mpmath at 50 digits (g = 1 - exp(-a x^2) via expm1: no
    cancellation at tiny x)."""
    if v == 0:
        return 0.0, 0.5
    with mpmath.workdps(50):
        t = mpmath.mpf(v)
        a = 2 / mpmath.pi
        s = mpmath.sign(t)
        g = -mpmath.expm1(-a * t**2)
        f = t * (1 + s * mpmath.sqrt(g)) / 2
        df = (1 + s * mpmath.sqrt(g)) / 2 + a * s * t**2 * mpmath.exp(-a * t**2) / (
            2 * mpmath.sqrt(g)
        )
        return float(f), float(df)


def _points(dtype: str) -> np.ndarray:
    info = np.finfo(dtype)
    mags = [float(info.smallest_subnormal), float(info.tiny), 1e-41, 1e-30, 1e-25]
    mags += [1e-20, 1e-12, 1e-8, 3e-5, 1e-3, 0.1, 0.7, 1.0, 2.0, 5.0, 30.0]
    mags += [1e19, 1e20, 1e30, float(info.max)]
    with np.errstate(over="ignore", under="ignore"):
        pts = np.concatenate([mags, np.negative(mags), [0.0]]).astype(dtype)
    return pts


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polya_gelu_derivative_is_right_where_x_squared_underflows(dtype, backend):
    kernel = symnb.Activation(POLYA).compile(backend, dtype=dtype)
    x = _points(dtype)
    xin = kernel.xp.asarray(x) if backend == "cuda" else x
    y, dy = kernel.forward_with_derivative(xin)
    dx = kernel.backward(xin, kernel.xp.ones_like(xin))
    if backend == "cuda":
        y, dy, dx = (kernel.xp.asnumpy(a) for a in (y, dy, dx))
    rel, scale = (2e-5, 1e-6) if dtype == "float32" else (1e-9, 1e-12)
    for v, got_f, got_df, got_dx in zip(
        x.tolist(), y.tolist(), dy.tolist(), dx.tolist()
    ):
        ref_f, ref_df = _polya(v)
        s = max(1.0, abs(v), abs(v * ref_df))
        assert got_f == pytest.approx(ref_f, rel=rel, abs=scale * s), (v, got_f, ref_f)
        for got in (got_df, got_dx):
            assert got == pytest.approx(ref_df, rel=rel, abs=scale * s), (
                v,
                got,
                ref_df,
            )
