"""The constants' gradients of an elementwise kernel are analysed when first asked for.

Compiling ``x*sigmoid(beta*x)`` on a CPU backend analyses f and f' only (most
constants are never learned, and the gradients' analysis took about twice as long);
the first ``constant_gradient`` analyses d/dbeta, and the kernel then computes the
rewritten gradient: x^2 sigmoid(beta x) sigmoid(-beta x) as derived is inf*0 = NaN
from |x| = 1.8e19 in float32, where the true value is 0.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from symnb.robust import engine

BETA = 1.3125  # not the library's default: no shipped analysis


def _reference(xs: np.ndarray, g: np.ndarray) -> float:
    """sum_i g_i * d/dbeta [x sigmoid(beta x)] at x_i, in mpmath."""
    mp.mp.dps = 40
    total = mp.mpf(0)
    for x, gi in zip(xs.astype(float), g.astype(float)):
        s = 1 / (1 + mp.exp(-BETA * mp.mpf(x)))
        total += gi * mp.mpf(x) ** 2 * s * (1 - s)
    return float(total)


def _targets(act: symnb.Activation, dtype: str) -> list[str]:
    report = engine.cached_report(act.internal, dtype)
    assert report is not None
    return [t.what for t in report.targets]


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_gradient_analysis_waits_for_the_first_constant_gradient(backend):
    engine.clear_memory_cache()
    act = symnb.Activation("x*sigmoid(beta*x)", beta=BETA)
    kernel = act.compile(backend=backend, dtype="float32", strict=True)
    assert "d/dbeta" not in _targets(act, "float32")  # f and f' only, so far
    xs = np.array([3.0, -2.5, 1e20, -1e20, 4e30], dtype=np.float32)
    g = np.array([1.0, 0.5, 1.0, 2.0, 1.0], dtype=np.float32)
    got = kernel.constant_gradient(xs, g)["beta"]
    assert "d/dbeta" in _targets(act, "float32")  # analysed and rewritten now
    want = _reference(xs, g)
    assert np.isfinite(got)
    assert got == pytest.approx(want, rel=1e-5)
    # f and f' are the ones the kernel compiled first
    y = kernel(xs[:2])
    ref = [float(x / (1 + mp.exp(-BETA * float(x)))) for x in xs[:2]]
    np.testing.assert_allclose(y, ref, rtol=1e-6)


def test_a_learned_swish_trains_through_the_lazy_gradient():
    """to_torch with a learnable beta: its gradient comes from the lazily lowered
    kernel and matches PyTorch's autograd of the same formula in float64."""
    torch = pytest.importorskip("torch")
    engine.clear_memory_cache()
    act = symnb.Activation("x*sigmoid(beta*x)", beta=BETA)
    module = act.to_torch(learnable=True)
    x = torch.linspace(-6, 6, 257, dtype=torch.float64)
    module(x).sum().backward()
    beta = torch.tensor(BETA, dtype=torch.float64, requires_grad=True)
    (x * torch.sigmoid(beta * x)).sum().backward()
    got = next(p for n, p in module.named_parameters() if n.endswith("beta")).grad
    assert float(got) == pytest.approx(float(beta.grad), rel=1e-12)
