"""``out`` may be any input of any entry point, on every backend (issue 9, item 1).

Each in-place call is compared with the same call writing into a fresh array.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

SWISH = "x*sigmoid(beta*x)"


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@pytest.fixture(params=backend_params())
def backend(request):
    return request.param


def _data(xp, shape, seed):
    rng = np.random.default_rng(seed)
    return xp.asarray(rng.uniform(-3, 3, size=shape).astype(np.float32))


def _check(expected, got, out_array):
    assert got is out_array
    np.testing.assert_allclose(_host(got), _host(expected), rtol=1e-6, atol=1e-7)


def test_kernel_every_out_may_be_an_input(backend):
    k = symnb.Activation(SWISH, beta=1.3).compile(backend=backend, strict=True)
    xp = k.xp
    x0, g0 = _data(xp, (257,), 1), _data(xp, (257,), 2)
    y_ref = k.forward(x0)
    dx_ref = k.backward(x0, g0)
    pair_ref = k.forward_with_derivative(x0)

    x = x0.copy()
    _check(y_ref, k.forward(x, out=x), x)

    x, g = x0.copy(), g0.copy()
    _check(dx_ref, k.backward(x, g, out=x), x)
    x, g = x0.copy(), g0.copy()
    _check(dx_ref, k.backward(x, g, out=g), g)  # was f' * f' on numpy
    x = x0.copy()  # x doubles as the incoming gradient, written in place
    _check(k.backward(x0, x0), k.backward(x, x, out=x), x)

    x, other = x0.copy(), xp.empty_like(x0)
    y, dy = k.forward_with_derivative(x, out=(x, other))
    _check(pair_ref[0], y, x)
    _check(pair_ref[1], dy, other)
    x, other = x0.copy(), xp.empty_like(x0)
    y, dy = k.forward_with_derivative(x, out=(other, x))  # f' into x itself
    _check(pair_ref[0], y, other)
    _check(pair_ref[1], dy, x)


def test_in_place_through_a_second_view_of_the_input(backend):
    """A different array object over the same memory is as much "the input"."""
    k = symnb.Activation(SWISH, beta=0.7).compile(backend=backend, strict=True)
    x0, g0 = _data(k.xp, (64,), 3), _data(k.xp, (64,), 4)
    ref = k.forward_with_derivative(x0)
    x = x0.copy()
    view = x[:]
    y, dy = k.forward_with_derivative(x, out=(view, k.xp.empty_like(x)))
    _check(ref[0], y, view)
    _check(ref[1], dy, dy)
    g = g0.copy()
    got = k.backward(x0, g, out=g[:])
    np.testing.assert_allclose(_host(got), _host(k.backward(x0, g0)), rtol=1e-6)


def test_overlapping_pair_outputs_are_refused(backend):
    k = symnb.Activation(SWISH, beta=1.0).compile(backend=backend, strict=True)
    x = _data(k.xp, (8,), 5)
    buf = k.xp.empty_like(x)
    with pytest.raises(ValueError, match="separate arrays"):
        k.forward_with_derivative(x, out=(buf, buf[:]))


def test_layer_every_out_may_be_an_input(backend):
    acts = [
        symnb.Activation(SWISH, beta=1.5),
        symnb.activation("tanh"),
        symnb.Activation(SWISH, beta=0.5),
        symnb.activation("softplus"),
        symnb.activation("tanh"),
    ]
    layer = symnb.compile_layer(acts, backend=backend, strict=True)
    xp = layer.xp
    x0, g0 = _data(xp, (33, 5), 6), _data(xp, (33, 5), 7)
    y_ref = layer.forward(x0)
    dx_ref = layer.backward(x0, g0)
    y2, dy2 = layer.forward_with_derivative(x0)

    x = x0.copy()
    _check(y_ref, layer.forward(x, out=x), x)
    x, g = x0.copy(), g0.copy()
    _check(dx_ref, layer.backward(x, g, out=x), x)
    x, g = x0.copy(), g0.copy()
    _check(dx_ref, layer.backward(x, g, out=g), g)
    x, other = x0.copy(), xp.empty_like(x0)
    y, dy = layer.forward_with_derivative(x, out=(x, other))
    _check(y2, y, x)
    _check(dy2, dy, other)
    x, other = x0.copy(), xp.empty_like(x0)
    y, dy = layer.forward_with_derivative(x, out=(other, x))
    _check(y2, y, other)
    _check(dy2, dy, x)


@pytest.mark.parametrize("which", ["y_pred", "y_true"])
def test_loss_gradient_into_either_input(backend, which):
    lk = symnb.loss("huber", delta=0.5).compile(backend=backend, strict=True)
    p0, t0 = _data(lk.xp, (100,), 8), _data(lk.xp, (100,), 9)
    ref = lk.gradient(p0, t0)
    p, t = p0.copy(), t0.copy()
    target = p if which == "y_pred" else t
    _check(ref, lk.gradient(p, t, out=target), target)


def test_partial_overlap_is_refused_and_owners_are_accepted(backend):
    """Views that overlap partly are refused for every input slot; arrays that each
    own their memory (the quick path that skips the overlap search) and a view that
    is exactly the input are computed right."""
    k = symnb.Activation(SWISH, beta=1.2).compile(backend=backend, strict=True)
    xp = k.xp
    buf = _data(xp, (64,), 8)
    with pytest.raises(ValueError, match="partially overlaps"):
        k.forward(buf[:32], out=buf[16:48])
    with pytest.raises(ValueError, match="partially overlaps"):
        k.backward(xp.ones(32, dtype=xp.float32), buf[8:40], out=buf[:32])
    x = _host(buf).astype(np.float64)
    expected = x / (1 + np.exp(-1.2 * x))
    separate = xp.empty(64, dtype=xp.float32)
    np.testing.assert_allclose(_host(k.forward(buf, out=separate)), expected, rtol=1e-5)
    same = buf.copy()
    got = k.forward(same, out=same[:])
    np.testing.assert_allclose(_host(got), expected, rtol=1e-5)


def test_integers_that_do_not_fit_the_float_are_named():
    """int64 input beyond 2**24 is rounded by a float32 kernel: one warning saying so
    (integers that fit convert exactly, silently)."""
    k = symnb.activation("relu").compile(backend="cpp")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(
            k.forward(np.arange(-5, 5)), np.maximum(np.arange(-5, 5), 0)
        )
    big = np.array([2**24 + 1, 3], dtype=np.int64)
    with pytest.warns(UserWarning, match=r"integers beyond 2\*\*24 \(dtype int64\)"):
        y = k.forward(big)
    assert int(y[0]) == 2**24  # rounded, as the warning says
    k64 = symnb.activation("relu").compile(backend="cpp", dtype="float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert k64.forward(big)[0] == 2**24 + 1
