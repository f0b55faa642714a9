"""A compiled activation judged against PyTorch running the same function: values
and autograd slopes in float64 (shared by the pasted-code and object tests)."""

from __future__ import annotations

import numpy as np

#: Points away from the kinks of the activations these tests read.
XS = np.array([-9.0, -3.3, -1.0, -0.4, -0.1, 0.2, 0.9, 1.7, 2.5, 4.0, 12.0])


def judge(act, fn, rtol: float = 1e-12, xs: np.ndarray = XS) -> None:
    """``act`` (numpy backend, float64) against ``fn`` applied to a float64 tensor
    (given a copy: an in-place method must not touch the leaf)."""
    import torch

    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    y = fn(t.clone())
    (slope,) = torch.autograd.grad(y.sum(), t)
    k = act.compile("numpy", dtype="float64")
    np.testing.assert_allclose(k.forward(xs), y.detach().numpy(), rtol=rtol, atol=1e-14)
    np.testing.assert_allclose(
        k.backward(xs, np.ones_like(xs)), slope.numpy(), rtol=rtol, atol=1e-14
    )
