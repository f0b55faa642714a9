"""``Kernel.forward_and_backward(x, grad)``: f(x) and grad * f'(x) in one pass.

Compared with ``forward`` and ``backward`` (separate passes, separately lowered) on
every backend and dtype, for library functions, a formula with constants and a
rational; with the outputs in place (either may be x or grad itself) and with the
argument errors of the other entry points.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.backends.test_inplace import _host, backend  # noqa: F401 - a fixture

PAU_22 = "(a0 + a1*x + a2*x**2) / (1 + Abs(b1*x) + Abs(b2*x**2))"


def _activation(name):
    if name == "swish-beta":
        return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.7)
    if name == "pau":
        return symnb.Activation(
            PAU_22, name="pau", a0=0.03, a1=0.6, a2=2.3, b1=1.1, b2=4.4
        )
    return symnb.activation(name)


def _inputs(xp, dtype, n=3001, seed=0):
    rng = np.random.default_rng(seed)
    x = np.concatenate(
        [rng.normal(0, 4, n - 7), [0.0, -0.0, 1e-30, -50.0, 50.0, np.inf, np.nan]]
    )
    g = rng.normal(size=n)
    return xp.asarray(x.astype(dtype)), xp.asarray(g.astype(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "name", ["relu", "gelu_tanh", "softplus", "mish", "elu", "swish-beta", "pau"]
)
def test_matches_forward_then_backward(backend, name, dtype):
    k = _activation(name).compile(backend=backend, dtype=dtype)
    x, g = _inputs(k.xp, dtype)
    y, dx = k.forward_and_backward(x, g)
    tol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(_host(y), _host(k.forward(x)), rtol=tol, atol=tol)
    np.testing.assert_allclose(_host(dx), _host(k.backward(x, g)), rtol=tol, atol=tol)
    # NaN in, NaN out (both results), as the separate passes
    assert np.isnan(_host(y)[-1]) and np.isnan(_host(dx)[-1])


def test_against_float64_finite_differences():
    """cpp/numpy float64 values and gradients of swish-beta against a central
    difference of float64 NumPy (an independent reference)."""
    beta = 1.7
    x = np.linspace(-6, 6, 241)
    g = np.sin(3 * x)

    def f(t):
        return t / (1 + np.exp(-beta * t))

    h = 1e-6
    ref = g * (f(x + h) - f(x - h)) / (2 * h)
    for backend in ("numpy", "cpp"):
        k = _activation("swish-beta").compile(backend=backend, dtype="float64")
        y, dx = k.forward_and_backward(x, g)
        np.testing.assert_allclose(y, f(x), rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(dx, ref, rtol=1e-8, atol=1e-9)


def test_outputs_may_be_the_inputs(backend):
    k = _activation("swish-beta").compile(backend=backend)
    xp = k.xp
    x0, g0 = _inputs(xp, "float32", n=517, seed=3)
    y_ref, dx_ref = k.forward_and_backward(x0, g0)

    def same(a, b):
        np.testing.assert_array_equal(_host(a), _host(b))

    for y_at, dx_at in (("x", "g"), ("g", "x"), ("x", None), (None, "x"), ("g", None)):
        x, g = x0.copy(), g0.copy()
        where = {"x": x, "g": g, None: None}
        out = (where[y_at], where[dx_at])
        y, dx = k.forward_and_backward(x, g, out=out)
        if y_at is not None:
            assert y is where[y_at]
        if dx_at is not None:
            assert dx is where[dx_at]
        same(y, y_ref)
        same(dx, dx_ref)
    x = x0.copy()  # x doubles as the incoming gradient
    y, dx = k.forward_and_backward(x, x, out=(None, x))
    same(dx, k.backward(x0, x0))


def test_bad_arguments_are_refused():
    k = _activation("swish-beta").compile(backend="numpy")
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    with pytest.raises(ValueError, match="grad has shape"):
        k.forward_and_backward(x, x[:4])
    with pytest.raises(TypeError, match=r"out must be a pair \(y_out, dx_out\)"):
        k.forward_and_backward(x, x, out=np.empty_like(x))
    with pytest.raises(ValueError, match="out\\[0\\] and out\\[1\\] overlap"):
        buf = np.empty_like(x)
        k.forward_and_backward(x, x.copy(), out=(buf, buf))
    with pytest.raises(ValueError, match="out\\[1\\] has shape"):
        k.forward_and_backward(x, x, out=(None, np.empty(3, np.float32)))
    with pytest.raises(TypeError, match="out\\[0\\] has dtype"):
        k.forward_and_backward(x, x, out=(np.empty(8), None))
    with pytest.raises(ValueError, match="partially overlaps"):
        z = np.zeros(16, np.float32)
        z[:8] = x
        k.forward_and_backward(z[:8], np.ones(8, np.float32), out=(z[4:12], None))
    empty = np.empty(0, np.float32)
    y, dx = k.forward_and_backward(empty, empty)
    assert y.shape == (0,) and dx.shape == (0,)


def _layer(backend, dtype="float32"):
    acts = [
        _activation("swish-beta"),
        symnb.activation("relu"),
        _activation("pau"),
        symnb.activation("gelu_tanh"),
        _activation("swish-beta").with_constants(beta=0.4),
    ]
    return symnb.compile_layer(acts, backend=backend, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_forward_then_backward(backend, dtype):
    layer = _layer(backend, dtype)
    xp = layer.xp
    rng = np.random.default_rng(4)
    x = xp.asarray(rng.normal(0, 3, (301, 5)).astype(dtype))
    g = xp.asarray(rng.normal(size=(301, 5)).astype(dtype))
    y, dx = layer.forward_and_backward(x, g)
    tol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(_host(y), _host(layer.forward(x)), rtol=tol, atol=tol)
    np.testing.assert_allclose(
        _host(dx), _host(layer.backward(x, g)), rtol=tol, atol=tol
    )
    for y_at, dx_at in (("x", "g"), ("g", "x"), ("g", None), (None, "g")):
        xc, gc = x.copy(), g.copy()
        where = {"x": xc, "g": gc, None: None}
        y2, dx2 = layer.forward_and_backward(xc, gc, out=(where[y_at], where[dx_at]))
        np.testing.assert_array_equal(_host(y2), _host(y))
        np.testing.assert_array_equal(_host(dx2), _host(dx))


def test_layer_grad_of_another_batch_size_is_refused():
    """grad with fewer rows than x was read out of bounds by the layer's backward
    (garbage in the rows beyond grad's); every entry point taking grad refuses it."""
    layer = _layer("cpp")
    x = np.ones((6, 5), np.float32)
    g = np.ones((2, 5), np.float32)
    for call in (
        lambda: layer.backward(x, g),
        lambda: layer.constant_gradient(x, g),
        lambda: layer.forward_and_backward(x, g),
    ):
        with pytest.raises(ValueError, match=r"grad has shape \(2, 5\); it must match"):
            call()
