"""Two silent wrong results of the torch modules, and one library error.

* ``torch.jit.trace`` (also the TorchScript route of ONNX export): the eager path
  calls the kernel through ctypes, which the tracer does not see; under no_grad the
  traced graph kept only ``empty_like`` and returned uninitialised memory for the
  next input (errors of 400 seen), with grad the trace failed its own sanity check.
  While tracing, the modules now call the ``symnb::`` operators, which the graph
  records.
* Tensors with the negative bit (``z.conj().imag``, ``Tensor._neg_view``): the
  kernel read the raw memory, so f(-x) came back for f(x) when the view was
  contiguous (one element of ``z.conj().imag``).
* Nested tensors: "Internal error: NestedTensorImpl doesn't support sizes. Please
  file an issue"; now a TypeError naming them and the way out.
"""

from __future__ import annotations

import warnings

import pytest

import symnb

torch = pytest.importorskip("torch")

SWISH = symnb.Activation("x*sigmoid(beta*x)", beta=symnb.learnable(1.5), name="sw_tr")


def swish(x):
    return x * torch.sigmoid(1.5 * x)


def layer_reference(x):
    return torch.stack([swish(x[:, 0]), torch.tanh(x[:, 1])], 1)


def trace(module, example):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TracerWarnings of PyTorch's own
        return torch.jit.trace(module, example)


@pytest.mark.parametrize("grad", [False, True])
def test_a_traced_activation_computes_new_inputs(grad):
    module = SWISH.to_torch()
    x1, x2 = torch.randn(6), torch.linspace(-4, 4, 6)
    with torch.set_grad_enabled(grad):
        traced = trace(module, x1)
        y = traced(x2)
    assert "symnb::elementwise" in str(traced.graph)
    torch.testing.assert_close(y, swish(x2), rtol=1e-6, atol=1e-7)
    relu = trace(symnb.activation("relu").to_torch(), x1)
    torch.testing.assert_close(relu(x2), torch.relu(x2))


@pytest.mark.parametrize("grad", [False, True])
def test_a_traced_layer_computes_new_inputs(grad):
    layer = symnb.to_torch_layer([SWISH, "tanh"], dim=1)
    x1, x2 = torch.randn(3, 2), torch.linspace(-4, 4, 10).reshape(5, 2)
    with torch.set_grad_enabled(grad):
        traced = trace(layer, x1)
        y = traced(x2)
    assert "symnb::layer" in str(traced.graph)
    torch.testing.assert_close(y, layer_reference(x2), rtol=1e-6, atol=1e-7)


def test_a_traced_activation_trains_its_constant():
    module = SWISH.to_torch().double()
    x = torch.linspace(-3, 3, 7, dtype=torch.float64)
    traced = trace(module, x)
    traced(x).sum().backward()
    beta = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    (x * torch.sigmoid(beta * x)).sum().backward()
    torch.testing.assert_close(module.constants.beta.grad, beta.grad)


def negative_views():
    one = torch.tensor([0.75 - 0.5j], dtype=torch.complex64).conj().imag
    many = torch.linspace(-3, 3, 8, dtype=torch.float64).neg()._neg_view()
    return [one, many]


@pytest.mark.parametrize("x", negative_views(), ids=["conj_imag", "neg_view"])
def test_a_negative_view_is_read_as_its_values(x):
    assert x.is_neg() and x.is_contiguous()
    values = x.resolve_neg()
    module = SWISH.to_torch().to(x.dtype)
    torch.testing.assert_close(module(x), swish(values))
    layer = symnb.to_torch_layer([SWISH] * x.shape[-1], dim=-1).to(x.dtype)
    torch.testing.assert_close(layer(x), swish(values))
    leaf = x.detach().requires_grad_()
    module(leaf).sum().backward()
    plain = values.detach().clone().requires_grad_()
    swish(plain).sum().backward()
    torch.testing.assert_close(leaf.grad, plain.grad)


@pytest.mark.parametrize("layout", [torch.jagged, torch.strided])
def test_a_nested_tensor_is_named(layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "prototype stage" of the strided layout
        x = torch.nested.nested_tensor([torch.randn(2), torch.randn(3)], layout=layout)
    with pytest.raises(TypeError, match="nested tensor.*to_padded_tensor"):
        SWISH.to_torch()(x)
    with pytest.raises(TypeError, match="nested tensor"):
        symnb.to_torch_layer([SWISH])(x)


def test_tracing_an_activation_warns_nothing_from_symnb():
    """The device check read numel() of the traced constants first, which PyTorch
    reports as "Converting a tensor to a Python boolean might cause the trace to be
    incorrect" (a warning pointing into symnb for every traced activation)."""
    module = SWISH.to_torch(learnable=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(module, torch.randn(4, 3))
    ours = [w for w in caught if "symnb" in w.filename]
    assert ours == [], [f"{w.filename}:{w.lineno}: {w.message}" for w in ours]
    x = torch.randn(2, 5)
    torch.testing.assert_close(traced(x), swish(x))
