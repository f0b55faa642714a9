"""``LayerKernel.forward/backward/constant_gradient(..., axis=k)``: the features on any
axis of an N-d array (per-channel activations of NCHW batches). C++ layers compute it
plane by plane without a transposed copy; other backends transpose. Checked against
float64 formulas written by hand, on every CPU backend, for every axis position."""

from __future__ import annotations

import numpy as np
import pytest

import symnb


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


BETAS = [0.5, 0.9, 1.3, 1.7, 2.1]


def _acts():
    acts = [symnb.Activation("x*sigmoid(beta*x)", beta=b) for b in BETAS]
    return acts + [symnb.activation("relu"), symnb.activation("tanh")]


def _reference(x, g, ax):
    """f, g*f', and the betas' gradients for the features on axis ``ax``."""
    xm, gm = np.moveaxis(x, ax, -1), np.moveaxis(g, ax, -1)
    y, d, dc = np.empty_like(xm), np.empty_like(xm), []
    for j, b in enumerate(BETAS):
        s = _sig(b * xm[..., j])
        y[..., j] = xm[..., j] * s
        d[..., j] = gm[..., j] * (s + b * xm[..., j] * s * (1 - s))
        dc.append(np.sum(gm[..., j] * xm[..., j] ** 2 * s * (1 - s)))
    y[..., 5] = np.maximum(xm[..., 5], 0)
    d[..., 5] = gm[..., 5] * (xm[..., 5] > 0)
    y[..., 6] = np.tanh(xm[..., 6])
    d[..., 6] = gm[..., 6] / np.cosh(xm[..., 6]) ** 2
    return np.moveaxis(y, -1, ax), np.moveaxis(d, -1, ax), np.array(dc)


@pytest.mark.parametrize("backend", ["cpp", "numpy"])
@pytest.mark.parametrize(
    "shape,axis",
    [
        ((3, 7, 4, 5), 1),
        ((7, 9), 0),
        ((2, 3, 7), -1),
        ((7, 130, 129), 0),
        ((2, 7, 1), 1),
    ],
)
def test_features_on_any_axis_match_float64(backend, shape, axis):
    layer = symnb.compile_layer(_acts(), backend=backend, dtype="float64")
    rng = np.random.default_rng(len(shape) + axis)
    x = rng.uniform(-5, 5, shape)
    g = rng.uniform(-1, 1, shape)
    y_ref, d_ref, c_ref = _reference(x, g, axis % x.ndim)
    np.testing.assert_allclose(
        layer.forward(x, axis=axis), y_ref, rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(
        layer.backward(x, g, axis=axis), d_ref, rtol=1e-11, atol=1e-13
    )
    got = layer.constant_gradient(x, g, axis=axis)
    scale = np.sum(np.abs(g)) * 25 + 1
    np.testing.assert_allclose(got, c_ref, rtol=0, atol=1e-13 * scale)


def test_cpp_planes_equal_the_row_kernel_in_float32_and_in_place():
    layer = symnb.compile_layer(_acts(), backend="cpp")
    assert layer._program.has_planes
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, (5, 7, 33, 17)).astype(np.float32)
    g = rng.uniform(-1, 1, x.shape).astype(np.float32)
    rows = np.ascontiguousarray(np.moveaxis(x, 1, -1)).reshape(-1, 7)
    g_rows = np.ascontiguousarray(np.moveaxis(g, 1, -1)).reshape(-1, 7)

    def back(r):
        return np.moveaxis(r.reshape(5, 33, 17, 7), -1, 1)

    np.testing.assert_array_equal(layer.forward(x, axis=1), back(layer.forward(rows)))
    np.testing.assert_allclose(
        layer.backward(x, g, axis=1), back(layer.backward(rows, g_rows)), rtol=1e-6
    )
    np.testing.assert_allclose(
        layer.constant_gradient(x, g, axis=1),
        layer.constant_gradient(rows, g_rows),
        rtol=1e-5,
    )
    expected = layer.forward(x, axis=1)
    same = x.copy()
    assert layer.forward(same, out=same, axis=1) is same
    np.testing.assert_array_equal(same, expected)
    nan = x.copy()
    nan[2, 3, 4, 5] = np.nan  # a swish neuron: its beta's sum is NaN, only that one
    c = layer.constant_gradient(nan, g, axis=1)
    assert np.isnan(c[3]) and np.isfinite(np.delete(c, 3)).all()
    empty = np.empty((0, 7, 3), np.float32)
    assert layer.forward(empty, axis=1).shape == (0, 7, 3)
    assert layer.constant_gradient(empty, empty, axis=1).tolist() == [0.0] * 5


@pytest.mark.parametrize(
    "axis,kind,match",
    [
        (2, ValueError, "axis 2 has 4 entries; a layer of 7 neurons needs 7"),
        (5, ValueError, "has no axis 5"),
        (1.0, TypeError, "axis must be an int"),
        (True, TypeError, "axis must be an int"),
    ],
)
def test_bad_axis_is_named(axis, kind, match):
    layer = symnb.compile_layer(_acts(), backend="cpp")
    x = np.zeros((2, 7, 4), np.float32)
    with pytest.raises(kind, match=match):
        layer.forward(x, axis=axis)
    with pytest.raises(kind, match=match):
        layer.constant_gradient(x, x, axis=axis)


@pytest.mark.parametrize("backend", ["cpp", "numpy"])
@pytest.mark.parametrize(
    "shape,axis", [((3, 7, 4, 5), 1), ((2, 3, 7), -1), ((7, 6), 0)]
)
def test_pair_entry_points_take_axis(backend, shape, axis):
    layer = symnb.compile_layer(_acts(), backend=backend, dtype="float64")
    rng = np.random.default_rng(11)
    x = rng.uniform(-5, 5, shape)
    g = rng.uniform(-1, 1, shape)
    y_ref, d_ref, _ = _reference(x, g, axis % x.ndim)
    _, f1_ref, _ = _reference(x, np.ones_like(g), axis % x.ndim)
    y, dy = layer.forward_with_derivative(x, axis=axis)
    np.testing.assert_allclose(y, y_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dy, f1_ref, rtol=1e-11, atol=1e-13)
    y2, dx = layer.forward_and_backward(x, g, axis=axis)
    np.testing.assert_allclose(y2, y_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dx, d_ref, rtol=1e-11, atol=1e-13)
    xi, gi = x.copy(), g.copy()  # outputs may be the inputs themselves
    layer.forward_and_backward(xi, gi, out=(xi, gi), axis=axis)
    np.testing.assert_allclose(xi, y_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gi, d_ref, rtol=1e-11, atol=1e-13)
    with pytest.raises(ValueError, match="a layer of 7 neurons needs 7"):
        layer.forward_with_derivative(np.zeros((2, 5)), axis=1)
