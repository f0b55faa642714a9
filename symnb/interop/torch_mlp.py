"""``MLP.to_torch``'s module: an ``nn.Sequential`` that names a wrong input.

A plain Sequential handed a wrong ``x`` to its first ``nn.Linear``, and PyTorch
answered from inside it: "mat1 and mat2 shapes cannot be multiplied (4x3 and 2x3)"
for a feature count the model was not trained on, "mat1 and mat2 must have the same
dtype, but got Double and Float" for a float64 batch, "linear(): argument 'input'
must be Tensor, not numpy.ndarray", "Tensor on device cpu is not on the expected
device meta!" for x on another device than the weights. Each now says what ``x`` was and what to pass.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn


def _autocast(x: Tensor) -> bool:
    """Whether autocast is on for ``x``'s device (it casts for the Linear itself)."""
    try:
        return torch.is_autocast_enabled(x.device.type)
    except TypeError:  # pragma: no cover - PyTorch before 2.4
        return torch.is_autocast_enabled()


class MLPSequential(nn.Sequential):
    """``nn.Sequential`` of ``nn.Linear`` and symnb activation modules (what
    ``MLP.to_torch`` returns); its first layer's ``in_features`` and dtype check
    ``x`` before PyTorch sees it."""

    def forward(self, x: Any) -> Any:
        first = self[0] if len(self) else None
        if isinstance(first, nn.Linear):
            _check_x(x, first)
        return super().forward(x)


def _check_x(x: Any, first: nn.Linear) -> None:
    what = "the MLP's torch module"
    want = first.weight.dtype
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{what} expects x as a torch.Tensor of shape (batch, "
            f"{first.in_features}), got {type(x).__name__}; pass "
            f"torch.as_tensor(x, dtype={want})"
        )
    if x.ndim == 0:
        raise ValueError(
            f"{what} expects x of shape (batch, {first.in_features}) or "
            f"({first.in_features},), got a 0-d tensor; pass x.reshape(1, -1)"
        )
    if x.shape[-1] != first.in_features:
        raise ValueError(
            f"{what} takes {first.in_features} input feature(s) in x's last "
            f"dimension, got x of shape {tuple(x.shape)}; pass the model's "
            f"{first.in_features} features, in the order it was trained on"
        )
    if x.device != first.weight.device:
        raise ValueError(
            f"{what} has its weights on {first.weight.device} but x is on "
            f"{x.device}; pass x.to('{first.weight.device}'), or move the module "
            f"with module.to('{x.device}')"
        )
    if x.dtype != want and not _autocast(x):
        fix = f"pass x.to({want})"
        if x.is_floating_point():
            fix += f", or convert the module with module.to({x.dtype})"
        raise TypeError(f"{what} has {want} weights but x has dtype {x.dtype}; {fix}")
