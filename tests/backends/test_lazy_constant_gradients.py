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


def test_the_gradient_of_a_formula_analysed_for_another_object():
    """Two activations of one formula share f's analysis (the in-process memo). The
    second's gradients were analysed on top of the first's, whose gradients are other
    SymPy objects once SymPy's cache dropped them: taken (by identity) as rewritten,
    softplus(-|beta x|)/beta**2 stayed undivided, 0/0 = NaN once training moved beta
    to 1e-30 (found by the full suite, where other tests ran first)."""
    from sympy.core.cache import clear_cache

    engine.clear_memory_cache()
    text = "softplus(beta*x)/beta"
    symnb.Activation(text, beta=2.0).compile(backend="numpy", dtype="float32")
    clear_cache()
    act = symnb.Activation(text, beta=2.0)
    kernel = act.compile(backend="cpp", dtype="float32", strict=True)
    kernel.set_constants(beta=1e-30)
    xs = np.array([-1e35, -3.4e38, -1e36], dtype=np.float32)
    got = kernel.constant_gradient(xs, np.ones_like(xs))["beta"]
    # d/dbeta = x sigmoid(beta x)/beta - softplus(beta x)/beta^2, in mpmath
    mp.mp.dps = 60
    b = mp.mpf(1e-30)
    want = 0
    for x in map(mp.mpf, xs.astype(float)):
        sp_ = mp.log1p(mp.exp(b * x))
        want += x / (1 + mp.exp(-b * x)) / b - sp_ / b**2
    assert np.isfinite(got)
    assert got == pytest.approx(float(want), rel=1e-5, abs=1e-30)
