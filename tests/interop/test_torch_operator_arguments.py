"""The custom operators called directly (torch.ops.symnb.*) with arguments the modules
never pass.

Before: an integer x was a KeyError ('torch.int64'), a 2-D constants tensor
"unhashable type: 'list'", a layer dim out of range an IndexError, and a grad of
another shape than x was read past x's length without a word."""

from __future__ import annotations

import pytest

import symnb

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")


def _handles():
    act = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3)
    return act.to_torch().handle, symnb.to_torch_layer(["relu", "tanh"]).handle


def test_bad_arguments_are_named():
    h, hl = _handles()
    ops = torch.ops.symnb
    one = torch.ones(1, dtype=torch.float64)
    with pytest.raises(TypeError, match="floating-point x.*int64"):
        ops.elementwise(torch.arange(3), one, h)
    with pytest.raises(ValueError, match=r"1-D tensor.*\(1, 1\)"):
        ops.elementwise(torch.randn(3), torch.ones(1, 1), h)
    with pytest.raises(ValueError, match="no dimension 7"):
        ops.layer(torch.randn(3, 2), torch.zeros(0), hl, 7)
    with pytest.raises(ValueError, match="dimension 1 has 5 entries"):
        ops.layer(torch.randn(3, 5), torch.zeros(0), hl, 1)
    with pytest.raises(ValueError, match=r"grad has shape \(4,\) but x has \(3,\)"):
        ops.elementwise_backward(torch.randn(3), torch.randn(4), one, h, True)
    with pytest.raises(ValueError, match=r"grad has shape"):
        ops.layer_backward(
            torch.randn(3, 2), torch.randn(2, 3), torch.zeros(0), hl, 1, False
        )


def test_good_arguments_still_run():
    h, hl = _handles()
    x = torch.randn(3, 2)
    y = torch.ops.symnb.elementwise(x, torch.tensor([1.3], dtype=torch.float64), h)
    torch.testing.assert_close(y, x * torch.sigmoid(1.3 * x))
    z = torch.ops.symnb.layer(x, torch.zeros(0), hl, 1)
    torch.testing.assert_close(z, torch.stack([x[:, 0].relu(), x[:, 1].tanh()], 1))
