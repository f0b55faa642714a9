"""asinh of c*x^2 + r where x^2 overflows.

``asinh(x**2)`` was inf from |x| = 1.8e19 in float32 (x**2 overflows; the value is
only about 2 log|x| + log 2, under 180). The stability rewrite takes it as
``sign(q) (2 log|x| + log|q| + log(1 + sqrt(1 + 1/u^2)))`` with ``q = c + r/x^2`` for
|x| > 1e4 (:func:`symnb.robust.rewrite.square_in_root`). Against mpmath, tiny to huge
x, both signs, every backend and dtype.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

CASES = {
    "asinh(x**2)": (
        lambda t: mpmath.asinh(t**2),
        lambda t: 2 * t / mpmath.sqrt(t**4 + 1),
    ),
    "asinh(2*x**2 - 3)": (
        lambda t: mpmath.asinh(2 * t**2 - 3),
        lambda t: 4 * t / mpmath.sqrt((2 * t**2 - 3) ** 2 + 1),
    ),
}


def _points(dtype: str) -> np.ndarray:
    info = np.finfo(dtype)
    mags = [float(info.smallest_subnormal), 1e-30, 1e-3, 0.5, 1.0, 1.2, 3.0, 50.0]
    mags += [9999.0, 10001.0, 1e6, 1e18, 1.9e19, 1e20, 1e30, 1e38, float(info.max)]
    if dtype == "float64":
        mags += [1e154, 1e160, 1e300]
    return np.concatenate([mags, np.negative(mags), [0.0]]).astype(dtype)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", sorted(CASES))
def test_asinh_of_a_square_is_finite_and_right_at_huge_x(text, dtype, backend):
    kernel = symnb.Activation(text).compile(backend, dtype=dtype)
    x = _points(dtype)
    xin = kernel.xp.asarray(x) if backend == "cuda" else x
    y, dy = kernel.forward_with_derivative(xin)
    f = kernel.forward(xin)
    if backend == "cuda":
        y, dy, f = (kernel.xp.asnumpy(a) for a in (y, dy, f))
    ref_f, ref_df = CASES[text]
    rel, scale = (2e-5, 1e-6) if dtype == "float32" else (1e-9, 1e-12)
    for v, got, alone, got_d in zip(x.tolist(), y.tolist(), f.tolist(), dy.tolist()):
        with mpmath.workdps(50):
            want = float(ref_f(mpmath.mpf(v)))
            want_d = float(ref_df(mpmath.mpf(v)))
        s = max(1.0, abs(v), abs(v * want_d))
        assert got == pytest.approx(want, rel=rel, abs=scale * s), (v, got, want)
        assert alone == pytest.approx(want, rel=rel, abs=scale * s), (v, alone, want)
        assert got_d == pytest.approx(want_d, rel=rel, abs=scale * s), (
            v,
            got_d,
            want_d,
        )
