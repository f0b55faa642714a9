"""symnb's digamma and trigamma (no C library has them: symnb/codegen/gamma_c.py) in
ulps against mpmath, over the whole float range of both signs: the C++ kernels
(the same text CUDA compiles: tests/backends/test_cuda_compile.py) and the NumPy
backend's port of the same steps.

Points are drawn uniformly over bit patterns (every binade alike, subnormals to the
largest float). For x < 0 the error is measured against the larger of the
reflection's two terms, psi(1 - x) and pi/tan(pi x): near each negative root of
digamma they cancel, and a relative error there is not to be had from a float x
(tan(pi x) itself rounds); trigamma's terms never cancel (trigamma > 0), so its
negative side is measured in plain ulps.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

mpmath.mp.dps = 30

#: Largest error found (ulps) per (function, dtype, side), with a little room; the
#: numbers measured here are in the comments.
BOUNDS = {
    ("digamma", "float64", "positive"): 3,  # measured 1.75 (C++ and NumPy)
    ("digamma", "float64", "negative"): 4,  # 3.17, of the larger term
    ("digamma", "float32", "positive"): 3,  # C++ 2.30, NumPy 0.50 (double, rounded)
    ("digamma", "float32", "negative"): 7,  # C++ 5.77, NumPy 0.97, larger term
    ("trigamma", "float64", "positive"): 4,  # C++ 2.28, NumPy 2.69
    ("trigamma", "float64", "negative"): 4,  # 3.08
    ("trigamma", "float32", "positive"): 4,  # C++ 2.91, NumPy 0.50
    ("trigamma", "float32", "negative"): 4,  # C++ 2.94, NumPy 0.50
}


def _points(dtype: str, sign: int, n: int = 600) -> np.ndarray:
    """Finite nonzero floats of one sign, uniform over bit patterns, no poles."""
    rng = np.random.default_rng(7)
    if dtype == "float64":
        bits = rng.integers(1, 0x7FF0000000000000, n, dtype=np.int64)
        x = bits.view(np.float64)
    else:
        bits = rng.integers(1, 0x7F800000, n, dtype=np.int32)
        x = bits.view(np.float32)
    x = np.concatenate([x, np.linspace(0.01, 12.0, 200).astype(dtype)])
    x = sign * x
    return x[~((x < 0) & (x == np.floor(x)))]


def _reference(which: str, x: float) -> tuple[float, float]:
    """(value, the scale its error is measured against) in mpmath."""
    u = mpmath.mpf(x)
    if which == "digamma":
        if x > 0:
            v = mpmath.digamma(u)
            return v, abs(v)
        a = mpmath.digamma(1 - u)
        b = mpmath.pi * mpmath.cospi(u) / mpmath.sinpi(u)
        return a - b, max(abs(a), abs(b))
    if x > 0:
        v = mpmath.psi(1, u)
    else:
        v = (mpmath.pi / mpmath.sinpi(u)) ** 2 - mpmath.psi(1, 1 - u)
    return v, abs(v)


def _worst_ulps(which: str, x: np.ndarray, got: np.ndarray, dtype: str) -> float:
    worst = 0.0
    finfo = np.finfo(dtype)
    for xi, gi in zip(x.tolist(), got.tolist()):
        v, scale = _reference(which, xi)
        if abs(v) > finfo.max:  # overflows: inf of the right sign
            assert gi == (np.inf if v > 0 else -np.inf), (which, xi, gi)
            continue
        ulp = np.spacing(np.array(max(float(scale), finfo.smallest_subnormal), dtype))
        err = float(abs(mpmath.mpf(gi) - v) / mpmath.mpf(float(ulp)))
        worst = max(worst, err)
    return worst


@pytest.mark.parametrize("backend", [p for p in backend_params() if p.id != "cuda"])
@pytest.mark.parametrize("side", ["positive", "negative"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("which", ["digamma", "trigamma"])
def test_ulps_against_mpmath(which, dtype, side, backend):
    x = _points(dtype, 1 if side == "positive" else -1)
    # trigamma is digamma's derivative (not a formula function of its own)
    kernel = symnb.Activation("digamma(x)").compile(backend=backend, dtype=dtype)
    value, derivative = kernel.forward_with_derivative(x.copy())
    got = value if which == "digamma" else derivative
    worst = _worst_ulps(which, x, got, dtype)
    assert worst <= BOUNDS[(which, dtype, side)], f"{which} {dtype} {side}: {worst}"
