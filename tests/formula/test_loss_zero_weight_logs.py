"""Losses that weight a logarithm by the target: 0*log(0) = 0 (torch.xlogy's rule).

Typed binary cross-entropy was NaN (value and gradient) at y_pred = y_true = 1 and at
y_pred = y_true = 0 (a float32 sigmoid output is exactly 1.0 from x = 17), and a typed
KL divergence at y_true = 0. The reference is the loss restricted to the given target
(the weighted term dropped where its weight is 0, as the definitions of KLDivLoss and
xlogy say), evaluated with mpmath; the gradient is its derivative in y_pred, by a
central difference at 60 digits.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params


def _xlogy(w, u):
    return mp.mpf(0) if w == 0 else w * mp.log(u)


LOSSES = {
    "-(y_true*log(y_pred) + (1 - y_true)*log(1 - y_pred))": lambda p, t: (
        -(_xlogy(t, p) + _xlogy(1 - t, 1 - p))
    ),
    "y_true*log(y_true/y_pred) - y_true + y_pred": lambda p, t: (
        _xlogy(t, t) - _xlogy(t, p) - t + p
    ),
    "y_true*(log(y_true) - log(y_pred))": lambda p, t: _xlogy(t, t) - _xlogy(t, p),
}

#: (y_pred, y_true): weights exactly 0 with the log at 0, and ordinary points.
POINTS = [(1.0, 1.0), (0.0, 0.0), (0.25, 0.0), (0.75, 1.0), (0.3, 0.6), (0.9, 0.1)]


def _reference(fn, p, t):
    """(value, d value / d y_pred) at (p, t); the restricted loss is defined on both
    sides of every point used (a zero-weighted log is never evaluated)."""
    with mp.workdps(60):
        p, t = mp.mpf(p), mp.mpf(t)
        h = mp.mpf(10) ** -25
        value = fn(p, t)
        grad = (fn(p + h, t) - fn(p - h, t)) / (2 * h)
        return float(value), float(grad)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", list(LOSSES))
def test_target_weighted_logs_vanish_with_their_weight(text, backend, dtype):
    kernel = symnb.Loss(text).compile(backend=backend, dtype=dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-9
    for p, t in POINTS:
        pa, ta = np.array([p], dtype=dtype), np.array([t], dtype=dtype)
        value = kernel.value(pa, ta)
        grad = float(kernel.gradient(pa, ta)[0])
        ref_value, ref_grad = _reference(LOSSES[text], float(pa[0]), float(ta[0]))
        assert value == pytest.approx(ref_value, rel=rtol, abs=rtol), (p, t, value)
        assert grad == pytest.approx(ref_grad, rel=1e-4, abs=1e-4), (p, t, grad)


@pytest.mark.parametrize("backend", backend_params())
def test_nan_inputs_still_give_nan(backend):
    kernel = symnb.Loss(next(iter(LOSSES))).compile(backend=backend)
    for p, t in [(np.nan, 0.0), (np.nan, 1.0), (0.5, np.nan)]:
        pa, ta = np.array([p], "float32"), np.array([t], "float32")
        assert np.isnan(kernel.value(pa, ta))
        assert np.isnan(kernel.gradient(pa, ta)).all()


def test_activations_are_untouched():
    """Only a loss's target weights a log: an activation's x*log(x) keeps its limit rule."""
    act = symnb.Activation("x*log(x)")
    assert "xlogy" not in " ".join(act.notes)
