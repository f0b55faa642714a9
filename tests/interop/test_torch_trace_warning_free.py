"""``torch.jit.trace`` of ``symnb.to_torch_layer`` warned twice per call
(TracerWarning "Converting a tensor to a Python boolean"): the layer's checks of
x's length along ``dim`` and of its constant vectors' sizes compared traced sizes.
Tracing is now warning-free; eager mode keeps both errors, and a traced layer still
refuses an input of the wrong length (the operator checks it)."""

from __future__ import annotations

import re
import warnings

import pytest

import symnb

torch = pytest.importorskip("torch")

ACT = symnb.Activation("a*x + b*x**2", a=2.0, b=symnb.learnable(0.1), name="tw_act")


def strict_trace(module, example):
    """``torch.jit.trace`` with every warning an error, but its own deprecation."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings(
            "ignore", message=r".*torch\.jit\.trace", category=DeprecationWarning
        )
        return torch.jit.trace(module, example)


MODULES = {
    "activation": (lambda: ACT.to_torch(), (3, 4)),
    "activation learnable": (lambda: ACT.to_torch(learnable=True), (5,)),
    "layer": (lambda: symnb.to_torch_layer([ACT, "tanh", ACT]), (2, 3)),
    "layer dim 1": (lambda: symnb.to_torch_layer([ACT, ACT, "relu"], dim=1), (2, 3, 4)),
    "layer learnable": (
        lambda: symnb.to_torch_layer([ACT] * 3, learnable=True),
        (4, 3),
    ),
}


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("which", list(MODULES))
def test_tracing_is_warning_free(which, grad) -> None:
    make, shape = MODULES[which]
    module = make()
    with torch.set_grad_enabled(grad):
        traced = strict_trace(module, torch.randn(*shape))
        x = torch.linspace(-3, 3, torch.Size(shape).numel()).reshape(shape)
        torch.testing.assert_close(traced(x), module(x))


def test_a_traced_layer_refuses_the_wrong_length() -> None:
    traced = strict_trace(symnb.to_torch_layer([ACT, ACT, ACT]), torch.randn(2, 3))
    with pytest.raises(Exception, match=re.escape("dimension 1 has 4 entries")):
        traced(torch.randn(2, 4))


def test_eager_errors_are_kept() -> None:
    layer = symnb.to_torch_layer([ACT, ACT, ACT])
    with pytest.raises(ValueError, match="dimension -1 has 4 entries"):
        layer(torch.randn(2, 4))
    layer.fixed_values = torch.zeros(5, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"fixed_values has shape \(5,\)"):
        layer(torch.randn(2, 3))
