"""Constants replaced by hand with a tensor of another shape (``module.constants.beta
= nn.Parameter(torch.tensor([1.0, 2.0]))`` hoping for one value per channel, or a
layer's ``learnable_values`` of another length). load_state_dict checks shapes, plain
assignment does not: an activation said "unhashable type: 'list'", and a layer used
the first entries and ignored the rest without a word. Both now name the constant,
the shape found and the shape expected."""

from __future__ import annotations

import math
import re

import pytest

import symnb

torch = pytest.importorskip("torch")
nn = torch.nn

SWISH = symnb.Activation("x*sigmoid(beta*x)", beta=symnb.learnable(1.5), name="sw_rep")


@pytest.mark.parametrize("shape", [(2,), (3, 1), (1,), (1, 1)])
def test_an_activation_constant_of_another_shape_is_named(shape):
    module = SWISH.to_torch()
    module.constants.beta = nn.Parameter(torch.full(shape, 2.0))
    if math.prod(shape) == 1:  # one number: taken
        x = torch.linspace(-2, 2, 5)
        torch.testing.assert_close(module(x), x * torch.sigmoid(2.0 * x))
        return
    message = f"constant 'beta' of activation 'sw_rep' has shape {shape}"
    with pytest.raises(ValueError, match=re.escape(message) + ".*one number"):
        module(torch.ones(3))


@pytest.mark.parametrize("length", [0, 1, 3])
def test_a_layer_vector_of_another_length_is_named(length):
    layer = symnb.to_torch_layer([SWISH, "tanh", SWISH], learnable=True)
    layer.learnable_values = nn.Parameter(torch.ones(length, dtype=torch.float64))
    with pytest.raises(
        ValueError, match=rf"learnable_values has shape \({length},?\).*\(2,\)"
    ):
        layer(torch.ones(4, 3))


def test_a_layer_with_the_right_length_still_runs():
    layer = symnb.to_torch_layer([SWISH, "tanh", SWISH], learnable=True)
    layer.learnable_values = nn.Parameter(torch.tensor([2.0, 0.5], dtype=torch.float64))
    x = torch.linspace(-2, 2, 12).reshape(4, 3)
    want = torch.stack(
        [
            x[:, 0] * torch.sigmoid(2.0 * x[:, 0]),
            torch.tanh(x[:, 1]),
            x[:, 2] * torch.sigmoid(0.5 * x[:, 2]),
        ],
        1,
    )
    torch.testing.assert_close(layer(x), want)
