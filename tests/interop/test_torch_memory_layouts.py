"""Outputs keep the input's memory layout, as PyTorch's elementwise ops do.

``F.silu`` of a channels_last tensor is channels_last, of a transposed tensor
transposed, and of a strided or broadcast one dense in its dimensions' order
(``torch.empty_like``). symnb's modules returned C-contiguous tensors for all of
them, so a channels_last CNN switched layout at every symnb activation (and the next
convolution converted back). Values and gradients of every layout are checked
against composite PyTorch ops in float64.
"""

from __future__ import annotations

import pytest

import symnb

torch = pytest.importorskip("torch")
F = torch.nn.functional

SWISH = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3)


def _reference(x, beta):
    return x * torch.sigmoid(beta * x)


def _layout(t):
    """The strides that place elements (a dimension of size 1 places none)."""
    return tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)


def _layouts():
    base = torch.randn(
        2, 3, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0)
    )
    return {
        "channels_last": base.to(memory_format=torch.channels_last),
        "transposed": torch.randn(5, 7, dtype=torch.float64).t(),
        "stepped": torch.randn(6, 9, dtype=torch.float64)[::2, ::3],
        "broadcast": torch.randn(5, 1, dtype=torch.float64).expand(5, 4),
        "permuted": base.permute(2, 0, 3, 1),
        "zero_size": torch.randn(0, 3, dtype=torch.float64).t(),
        "scalar": torch.tensor(0.7, dtype=torch.float64),
        "size_one_dims": torch.randn(3, 1, 1, 4, dtype=torch.float64).to(
            memory_format=torch.channels_last
        ),
    }


@pytest.mark.parametrize("name", list(_layouts()))
@pytest.mark.parametrize("grad_enabled", [True, False])
def test_activation_keeps_layout_values_and_gradients(name, grad_enabled):
    x0 = _layouts()[name]
    module = SWISH.to_torch(learnable=True).double()
    expected_layout = _layout(F.silu(x0))
    with torch.set_grad_enabled(grad_enabled):
        y = module(x0)
    assert y.shape == x0.shape
    if x0.numel():  # an empty tensor's strides say nothing
        assert _layout(y) == expected_layout
    torch.testing.assert_close(y, _reference(x0, 1.3), rtol=1e-12, atol=1e-12)

    x = x0.detach().clone(memory_format=torch.preserve_format).requires_grad_()
    if x0.stride() != x.stride():  # clone of a broadcast tensor is dense
        x = x0.detach().requires_grad_()
    g = torch.randn_like(x0)
    y = module(x)
    (gx, gb) = torch.autograd.grad(y, (x, module.constants.beta), g)
    beta = torch.tensor(1.3, dtype=torch.float64, requires_grad=True)
    xr = x.detach().requires_grad_()
    gxr, gbr = torch.autograd.grad(_reference(xr, beta), (xr, beta), g)
    torch.testing.assert_close(gx, gxr, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gb, gbr, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "name", ["channels_last", "transposed", "stepped", "broadcast"]
)
def test_float32_and_half_keep_layout(name):
    x = _layouts()[name]
    module = SWISH.to_torch()
    for dtype in (torch.float32, torch.bfloat16):
        xd = x.to(dtype)
        y = module(xd)
        assert y.dtype == dtype
        assert _layout(y) == _layout(F.silu(xd))
        torch.testing.assert_close(
            y.double(), _reference(xd.double(), 1.3), rtol=1e-2, atol=1e-2
        )


def test_grad_of_other_layout_than_input():
    """Autograd may hand the backward a contiguous gradient for a channels_last x."""
    x = _layouts()["channels_last"].detach().requires_grad_()
    module = SWISH.to_torch().double()
    y = module(x)
    g = torch.randn(y.shape, dtype=torch.float64)  # contiguous
    (gx,) = torch.autograd.grad(y, x, g)
    xr = x.detach().requires_grad_()
    (gxr,) = torch.autograd.grad(_reference(xr, 1.3), xr, g)
    torch.testing.assert_close(gx, gxr, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", ["auto", "numpy"])
def test_layer_per_channel_channels_last(backend):
    """The layer's feature axis read through the permutation that makes x contiguous
    (cpp: its own kernels; numpy: the Kernel API on permuted NumPy views)."""
    acts = [SWISH, "tanh", symnb.Activation("a*x + x**2", a=0.5)]
    layer = symnb.to_torch_layer(acts, dim=1, learnable=True, backend=backend)
    layer = layer.double()
    x = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    x = x.to(memory_format=torch.channels_last).requires_grad_()
    y = layer(x)
    assert y.is_contiguous(memory_format=torch.channels_last)
    ref = torch.stack(
        [_reference(x[:, 0], 1.3), torch.tanh(x[:, 1]), 0.5 * x[:, 2] + x[:, 2] ** 2],
        1,
    )
    torch.testing.assert_close(y, ref, rtol=1e-12, atol=1e-12)
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(y, x, g)
    (gxr,) = torch.autograd.grad(ref, x, g)
    torch.testing.assert_close(gx, gxr, rtol=1e-12, atol=1e-12)
    # features along the last dimension of a transposed x: shape (2, 3), strides (1, 2)
    xt = torch.randn(3, 2, dtype=torch.float64).t()
    layer_last = symnb.to_torch_layer(acts, dim=-1, backend=backend).double()
    y = layer_last(xt)
    ref = torch.stack(
        [
            _reference(xt[:, 0], 1.3),
            torch.tanh(xt[:, 1]),
            0.5 * xt[:, 2] + xt[:, 2] ** 2,
        ],
        1,
    )
    assert y.stride() == xt.stride()
    torch.testing.assert_close(y, ref, rtol=1e-12, atol=1e-12)


def test_gradcheck_channels_last():
    module = SWISH.to_torch(learnable=True).double()
    x = torch.randn(2, 3, 2, 2, dtype=torch.float64).to(
        memory_format=torch.channels_last
    )
    x.requires_grad_()
    assert torch.autograd.gradcheck(module, (x,))


def test_compiled_channels_last_matches_eager():
    module = SWISH.to_torch(learnable=True)
    x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
    compiled = torch.compile(module, fullgraph=True, backend="aot_eager")
    y = compiled(x)
    assert y.is_contiguous(memory_format=torch.channels_last)
    torch.testing.assert_close(y, module(x))


def test_numpy_backend_keeps_layout():
    """The Kernel API path (no direct C calls) reads a permuted, contiguous view."""
    module = SWISH.to_torch(learnable=True, backend="numpy").double()
    x = _layouts()["channels_last"].detach().requires_grad_()
    y = module(x)
    assert y.is_contiguous(memory_format=torch.channels_last)
    torch.testing.assert_close(y, _reference(x, 1.3), rtol=1e-12, atol=1e-12)
    g = torch.randn_like(y)
    gx, gb = torch.autograd.grad(y, (x, module.constants.beta), g)
    beta = torch.tensor(1.3, dtype=torch.float64, requires_grad=True)
    xr = x.detach().requires_grad_()
    gxr, gbr = torch.autograd.grad(_reference(xr, beta), (xr, beta), g)
    torch.testing.assert_close(gx, gxr, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gb, gbr, rtol=1e-10, atol=1e-12)
