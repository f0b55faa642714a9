"""Every library activation and loss, on every backend here, against independent references.

References: the SymPy expression evaluated with 40-digit arithmetic (mpmath through evalf) at
the float32/float64 input value, and central finite differences of a float64 evaluation.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.reference import evaluate

GRID = [
    0.0,
    1e-8,
    -1e-8,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.5,
    -2.5,
    20.0,
    -20.0,
    88.0,
    -88.0,
    100.0,
    -100.0,
    1e4,
    -1e4,
    3.0,
    -3.0,
    6.0,
    0.01,
    -0.01,
]
TOL = {"float32": (2e-5, 1e-30), "float64": (1e-11, 1e-300)}


def _reference(form, expr, xs, extra=None):
    if form.kind == "activation":
        return evaluate(form, expr, xs)
    return evaluate(form, expr, xs, extra)


def _close(got, ref, dtype, what):
    rtol, atol = TOL[dtype]
    got = np.asarray(got, dtype=np.float64)
    assert np.all(np.isfinite(got) == np.isfinite(ref)), (
        f"{what}: finite mismatch {got} vs {ref}"
    )
    fin = np.isfinite(ref)
    err = np.abs(got[fin] - ref[fin])
    bound = rtol * np.abs(ref[fin]) + atol
    bad = err > bound
    assert not bad.any(), (
        f"{what}: max rel err {np.max(err / np.maximum(np.abs(ref[fin]), 1e-300))}; "
        f"first bad got={got[fin][bad][:3]} ref={ref[fin][bad][:3]}"
    )


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", symnb.library_activations())
def test_activation_matches_high_precision_reference(name, dtype, backend):
    act = symnb.activation(name)
    k = act.compile(backend=backend, dtype=dtype, strict=True)
    x = np.array(GRID, dtype=dtype)
    y, dy = k.forward_with_derivative(x)
    form = act.internal
    xs = x.astype(np.float64)
    _close(y, _reference(form, form.f, xs), dtype, f"{name} f")
    _close(dy, _reference(form, form.df, xs), dtype, f"{name} f'")
    # forward and backward agree with the fused kernel
    np.testing.assert_allclose(k.forward(x), y, rtol=TOL[dtype][0], atol=TOL[dtype][1])
    g = np.linspace(-2, 2, x.size).astype(dtype)
    np.testing.assert_allclose(k.backward(x, g), g * dy, rtol=TOL[dtype][0], atol=0)


def _kinks(name, consts):
    pts = {0.0, 3.0, -3.0, 6.0, 1.0, -1.0}
    for v in consts.values():
        pts |= {v, -v}
    if name == "softplus":
        pts.add(consts["threshold"] / consts["beta"])
    return sorted(pts)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "name", [n for n in symnb.library_activations() if n != "step"]
)
def test_activation_derivative_matches_finite_differences(name, backend):
    act = symnb.activation(name)
    k = act.compile(backend=backend, dtype="float64", strict=True)
    rng = np.random.default_rng(1)
    x = rng.uniform(-6, 6, 200)
    kinks = np.array(_kinks(name, act.constants))
    x = x[np.min(np.abs(x[:, None] - kinks[None, :]), axis=1) > 1e-3]
    h = 1e-6
    fd = (k.forward(x + h) - k.forward(x - h)) / (2 * h)
    _, dy = k.forward_with_derivative(x)
    np.testing.assert_allclose(dy, fd, rtol=1e-6, atol=1e-7)


def test_step_uses_atan_surrogate_gradient():
    k = symnb.activation("step").compile(backend="numpy", dtype="float64")
    x = np.array([-2.0, -0.1, 0.0, 0.3, 5.0])
    y, dy = k.forward_with_derivative(x)
    np.testing.assert_array_equal(y, (x > 0).astype(float))
    alpha = 2.0  # spikingjelly ATan default
    np.testing.assert_allclose(
        dy, alpha / 2 / (1 + (np.pi / 2 * alpha * x) ** 2), rtol=1e-12
    )


LOSS_INPUTS = {
    "bce": (
        np.array([0.01, 0.2, 0.5, 0.7, 0.99, 0.3]),
        np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.3]),
    ),
    "hinge": (
        np.array([-2.0, -0.5, 0.0, 0.5, 1.5, 3.0]),
        np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0]),
    ),
}
DEFAULT_LOSS_INPUT = (
    np.array([0.0, 1e-8, -1.0, 2.5, -20.0, 100.0, -100.0, 1e4, 0.3, 88.0]),
    np.array([0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", symnb.library_losses())
def test_loss_value_and_gradient_match_reference(name, dtype, backend):
    lo = symnb.loss(name)
    k = lo.compile(backend=backend, dtype=dtype, strict=True)
    p, t = LOSS_INPUTS.get(name, DEFAULT_LOSS_INPUT)
    p32, t32 = p.astype(dtype), t.astype(dtype)
    form = lo.internal
    ref_terms = _reference(form, form.f, p32.astype(float), t32.astype(float))
    value = k.value(p32, t32)
    assert np.isfinite(value)
    rtol = TOL[dtype][0] * 10
    assert abs(value - ref_terms.mean()) <= rtol * abs(ref_terms).mean() + 1e-30
    ref_grad = _reference(form, form.df, p32.astype(float), t32.astype(float)) / p.size
    _close(k.gradient(p32, t32), ref_grad, dtype, f"{name} gradient")


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("name", [n for n in symnb.library_losses()])
def test_loss_gradient_matches_finite_differences(name, backend):
    k = symnb.loss(name).compile(backend=backend, dtype="float64", strict=True)
    rng = np.random.default_rng(2)
    if name == "bce":
        p = rng.uniform(0.05, 0.95, 50)
        t = rng.uniform(0, 1, 50)
    elif name == "hinge":
        p = rng.uniform(-3, 3, 50)
        t = rng.choice([-1.0, 1.0], 50)
        keep = np.abs(1 - p * t) > 1e-3  # the hinge's kink
        p, t = p[keep], t[keep]
    else:
        p = rng.uniform(-4, 4, 50)
        t = rng.uniform(-1, 1, 50)
        keep = np.abs(np.abs(p - t) - 1.0) > 1e-3  # huber's kink at |d| = delta
        keep &= np.abs(p - t) > 1e-3  # mae's kink
        p, t = p[keep], t[keep]
    g = k.gradient(p, t)
    h = 1e-6
    fd = np.empty_like(p)
    for i in range(p.size):
        e = np.zeros_like(p)
        e[i] = h
        fd[i] = (k.value(p + e, t) - k.value(p - e, t)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-9)


def _torch_hardswish_grad(xs):
    """hardswish' from PyTorch's own backward (its documented 2.x values without torch)."""
    try:
        import torch
    except ImportError:  # torch 2.13 backward: 0 at -3, 1 at 3
        return [0.0 if x <= -3 else 1.0 if x >= 3 else x / 3 + 0.5 for x in xs]
    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.hardswish(t).sum().backward()
    return t.grad.tolist()


@pytest.mark.parametrize("backend", backend_params())
def test_pytorch_kink_conventions(backend):
    """relu'(0)=0, leaky'(0)=alpha, elu'(0)=alpha; hardswish' at -3 and 3 as torch's backward."""

    def d(name, xs, **c):
        k = symnb.activation(name, **c).compile(
            backend=backend, dtype="float64", strict=True
        )
        return k.forward_with_derivative(np.array(xs, dtype=np.float64))[1]

    np.testing.assert_array_equal(d("relu", [0.0]), [0.0])
    np.testing.assert_allclose(d("leaky_relu", [0.0], alpha=0.2), [0.2])
    np.testing.assert_allclose(d("elu", [0.0], alpha=0.7), [0.7])
    np.testing.assert_allclose(d("hardswish", [-3.0, 3.0]), _torch_hardswish_grad([-3.0, 3.0]))
    np.testing.assert_array_equal(d("hardtanh", [-1.0, 1.0]), [0.0, 0.0])
    np.testing.assert_array_equal(d("relu6", [6.0]), [0.0])


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("name", symnb.library_activations())
def test_nan_in_nan_out(name, backend):
    k = symnb.activation(name).compile(backend=backend, strict=True)
    y, dy = k.forward_with_derivative(np.array([np.nan, 1.0], dtype=np.float32))
    assert np.isnan(y[0]) and np.isnan(dy[0])
    assert np.isfinite(y[1])
