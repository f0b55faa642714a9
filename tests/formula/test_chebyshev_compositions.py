"""cos(k*acos(u)) typed out (SphereFace's margin cos(2 acos(p)), the multiplicative
angular margins): acos' is -1/sqrt(1 - u^2), infinite at u = +-1, so f' was NaN or
+-inf at p = +-1 where cos(2 acos(p)) = 2p^2 - 1 has f' = +-4. The composition is the
Chebyshev polynomial T_k(u) (cos(k*asin(u)) for even k is (-1)**(k/2) T_k(u)).
References: mpmath at 50 digits (f, and f' by one-sided mpmath.diff of the same
formula at the ends of [-1, 1]), independent of symnb's rewrite and derivative."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from symnb.backends import status

CASES = [
    ("cos(2*acos(x))", lambda x: mpmath.cos(2 * mpmath.acos(x))),
    ("cos(3*acos(x))", lambda x: mpmath.cos(3 * mpmath.acos(x))),
    ("cos(4*acos(x))", lambda x: mpmath.cos(4 * mpmath.acos(x))),
    ("cos(-2*acos(x))", lambda x: mpmath.cos(-2 * mpmath.acos(x))),
    ("1 - cos(2*asin(x))", lambda x: 1 - mpmath.cos(2 * mpmath.asin(x))),
    ("cos(4*asin(x/2))", lambda x: mpmath.cos(4 * mpmath.asin(x / 2))),
]

POINTS = [-1.0, -0.9999999, -0.7, -0.1, 0.0, 0.3, 0.99, 0.9999999, 1.0]


def _reference(fn, xs):
    f, d = [], []
    with mpmath.workdps(50):
        for v in xs:
            q = mpmath.mpf(float(v))
            f.append(float(mpmath.re(fn(q))))
            # one-sided at the ends, inside the domain
            side = -1 if v >= 1 else (1 if v <= -1 else 0)
            d.append(float(mpmath.re(mpmath.diff(fn, q, direction=side))))
    return np.array(f), np.array(d)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text, fn", CASES, ids=[c[0] for c in CASES])
def test_cos_of_a_multiple_of_acos_is_finite_at_the_ends(text, fn, dtype, backend):
    if backend == "cpp" and not status("cpp").usable:
        pytest.skip("cpp backend not usable here")
    act = symnb.Activation(text)
    x = np.array(POINTS, dtype=dtype)
    f_ref, d_ref = _reference(fn, x)
    tol = 1e-5 if dtype == "float32" else 1e-12
    kernel = act.compile(backend=backend, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    y, dy = np.asarray(y, np.float64), np.asarray(dy, np.float64)
    assert np.all(np.isfinite(y)) and np.all(np.isfinite(dy)), (x, y, dy)
    np.testing.assert_allclose(y, f_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(dy, d_ref, rtol=tol, atol=tol)


def test_the_rewrite_is_noted():
    notes = symnb.Activation("cos(2*acos(x))").notes
    assert any("Chebyshev" in n for n in notes), notes
