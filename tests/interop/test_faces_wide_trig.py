"""to_jax and to_numba of sin/cos/tan of a product that overflows (symnb.robust.widen).

The lowered form of ``sin(a*x)`` holds ``wide_sin(a, x)``; both faces raised
PrintMethodNotImplementedError on it (Snake, SIREN, sinc, Morlet could not be
exported). The reference is mpmath's sin/cos of the exact product.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb

TEXT = "x + sin(a*x)**2/a"  # f' = 1 + sin(2*a*x): the product 2*a*x overflows first
A = 3.0


def _exact(x: float) -> tuple[float, float]:
    """f and f' of TEXT at x with the products a*x, 2*a*x exact."""
    with mpmath.workprec(4000):
        X = mpmath.mpf(x)
        s = mpmath.sin(A * X)
        return float(X + s**2 / A), float(1 + 2 * s * mpmath.cos(A * X))


# |x| where a*x (or 2*a*x in f') overflows, and points where the products are exact
FLOAT64_X = [0.5, -2.0, 1e10, 7e307, 1e308, -1.5e308, 1.7976931348623157e308]
FLOAT32_X = [0.5, -2.0, 4096.0, 1.2e38, 3e38, -3.4028234663852886e38]


def test_numba_prints_wide_trig_with_its_meaning():
    pytest.importorskip("numba")
    fns = symnb.Activation(TEXT, a=A).to_numba()
    for x in FLOAT64_X:
        f, df = _exact(x)
        assert fns.f(x) == pytest.approx(f, rel=1e-15)
        # the wide path's angle doublings cost a few ulps of the angle (a = 3: e = 2)
        assert fns.df(x) == pytest.approx(df, rel=1e-13, abs=1e-13), x


def test_numba_cuda_device_functions_of_wide_trig_compile():
    pytest.importorskip("numba")
    try:
        from numba import cuda

        cuda.compile_ptx(lambda x: x + 1.0, "(float64,)", device=True, cc=(8, 0))
    except Exception as exc:  # noqa: BLE001 - any failure: cannot compile here
        pytest.skip(f"numba-cuda cannot compile PTX here: {exc}")
    fns = symnb.Activation(TEXT, a=A).to_numba(target="cuda")
    for fn in (fns.f, fns.df, *fns.dconstants):
        ptx, _ = cuda.compile_ptx(
            fn.py_func, "(float64, float64)", device=True, cc=(8, 0)
        )
        assert ".func" in ptx


@pytest.mark.parametrize("x64", [False, True])
def test_jax_float32_wide_trig(x64):
    jax = pytest.importorskip("jax")
    f = symnb.Activation(TEXT, a=A).to_jax()
    xs = np.array(FLOAT32_X, np.float32)
    with jax.enable_x64(x64):
        y = np.asarray(f(jax.numpy.asarray(xs)))
        dy = np.asarray(f.derivative(jax.numpy.asarray(xs)))
        g = np.asarray(jax.jit(jax.vmap(jax.grad(f)))(jax.numpy.asarray(xs)))
    ref = np.array([_exact(float(x)) for x in xs])
    np.testing.assert_allclose(y, ref[:, 0], rtol=2e-7)
    # float32 angle doublings (x64 off): a few float32 ulps of the angle
    np.testing.assert_allclose(dy, ref[:, 1], rtol=0, atol=2e-6)
    np.testing.assert_allclose(g, dy, rtol=1e-6)  # jit fuses: an ulp apart


def test_jax_float64_wide_trig():
    jax = pytest.importorskip("jax")
    f = symnb.Activation(TEXT, a=A).to_jax()
    with jax.enable_x64(True):
        xs = jax.numpy.asarray(np.array(FLOAT64_X))
        y = np.asarray(f(xs))
        dy = np.asarray(f.derivative(xs))
    ref = np.array([_exact(x) for x in FLOAT64_X])
    np.testing.assert_allclose(y, ref[:, 0], rtol=1e-15)
    np.testing.assert_allclose(dy, ref[:, 1], rtol=0, atol=1e-13)


@pytest.mark.parametrize("face", ["jax", "numba"])
def test_snake_exports_and_matches_float64(face):
    """Snake x + sin(a*x)**2/a with a learnable: f, f' and df/da in the ordinary
    range against float64 NumPy of the definition."""
    act = symnb.Activation("x + sin(a*x)**2/a", a=0.5)
    x = np.linspace(-6, 6, 25)
    a = 0.5
    want_f = x + np.sin(a * x) ** 2 / a
    want_df = 1 + np.sin(2 * a * x)
    if face == "numba":
        pytest.importorskip("numba")
        fns = act.to_numba()
        got_f = np.array([fns.f(v) for v in x])
        got_df = np.array([fns.df(v) for v in x])
    else:
        jax = pytest.importorskip("jax")
        f = act.to_jax()
        with jax.enable_x64(True):
            got_f = np.asarray(f(jax.numpy.asarray(x)))
            got_df = np.asarray(f.derivative(jax.numpy.asarray(x)))
    np.testing.assert_allclose(got_f, want_f, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got_df, want_df, rtol=1e-13, atol=1e-14)
