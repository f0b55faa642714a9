"""sinh(u)/cosh(u) and cosh(u)/sinh(u) typed out (the Langevin function
cosh(x)/sinh(x) - 1/x, the Brillouin function): sinh and cosh overflow (float32 from
|u| = 89) long before their ratio reaches +-1, so the typed ratio was inf/inf = NaN
(f from |x| = 100, f' from |x| = 50 in float32; 1000 and 710 in float64). They are
computed through tanh. References: mpmath at 50 digits (f, and f' by mpmath.diff of
the same formula), independent of symnb's rewrite and derivative."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb

BACKENDS = ("numpy", "cpp")

CASES = [
    ("cosh(x)/sinh(x) - 1/x", lambda x: mpmath.cosh(x) / mpmath.sinh(x) - 1 / x),
    ("sinh(x)/cosh(x)", lambda x: mpmath.sinh(x) / mpmath.cosh(x)),
    (
        "2*cosh(2*x)/sinh(2*x) - cosh(x)/sinh(x)",
        lambda x: 2 * mpmath.cosh(2 * x) / mpmath.sinh(2 * x)
        - mpmath.cosh(x) / mpmath.sinh(x),
    ),
    (
        "x*sinh(x)**2/cosh(x)**2",
        lambda x: x * mpmath.sinh(x) ** 2 / mpmath.cosh(x) ** 2,
    ),
]

POINTS = [-1000.0, -100.0, -50.0, -3.0, -0.7, 0.2, 1.5, 20.0, 50.0, 89.5, 100.0, 710.0,
          1000.0]


def _reference(fn, xs):
    f, d = [], []
    with mpmath.workdps(50):
        for v in xs:
            q = mpmath.mpf(float(v))
            f.append(float(fn(q)))
            d.append(float(mpmath.diff(fn, q)))
    return np.array(f), np.array(d)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text, fn", CASES, ids=[c[0] for c in CASES])
def test_hyperbolic_ratio_is_finite_and_accurate(text, fn, dtype):
    act = symnb.Activation(text)
    x = np.array(POINTS, dtype=dtype)
    f_ref, d_ref = _reference(fn, x)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    atol = 1e-30
    for backend in BACKENDS:
        kernel = act.compile(backend=backend, dtype=dtype)
        with np.errstate(all="ignore"):
            y, dy = kernel.forward_with_derivative(x)
        y, dy = np.asarray(y, np.float64), np.asarray(dy, np.float64)
        assert np.all(np.isfinite(y)) and np.all(np.isfinite(dy)), (backend, x, y, dy)
        np.testing.assert_allclose(y, f_ref, rtol=rtol, atol=atol)
        # f' is tiny in the tails (4e-4 at x = 50): absolute tolerance below it
        np.testing.assert_allclose(dy, d_ref, rtol=rtol, atol=1e-6 * rtol)
