"""Binary cross-entropy with the prediction clipped to [eps, 1 - eps], typed out.

Keras clips ``output`` to ``[epsilon, 1 - epsilon]`` so that ``log(1 - output)`` stays
at least ``log(epsilon)``. In float32, ``1 - eps`` rounds to 1 for eps below 3e-8
(``1 - 1e-8 == 1``), so the typed ``log(1 - clip(p, eps, 1 - eps))`` was -inf at p = 1
and the loss inf, where its value is -log(eps) = 18.4. The stability rewrite takes the
``1 -`` into the clip, ``log(clip(1 - p, eps, 1 - eps))``: 1 - p is exact near 1 and eps
is kept. Values and gradients against mpmath of the formula at the float inputs.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb

TEXT = (
    "-(y_true*log(clip(y_pred, eps, 1 - eps))"
    " + (1 - y_true)*log(1 - clip(y_pred, eps, 1 - eps)))"
)
PAIRS = [(1.0, 0.0), (1.0, 0.3), (0.0, 1.0), (0.5, 1.0), (0.999, 0.0), (1e-12, 0.2)]


def _reference(p: float, y: float, eps: float) -> tuple[float, float]:
    with mp.workdps(50):
        p, y, e = mp.mpf(p), mp.mpf(y), mp.mpf(eps)
        lo, hi = e, 1 - e
        c = min(max(p, lo), hi)
        value = -(y * mp.log(c) + (1 - y) * mp.log(1 - c))
        inside = lo < p < hi
        grad = (-y / p + (1 - y) / (1 - p)) if inside else mp.mpf(0)
        return float(value), float(grad)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("eps", [1e-7, 1e-8, 1e-9])
def test_clipped_bce_is_finite_and_right(eps, dtype, backend):
    kernel = symnb.Loss(TEXT, eps=eps).compile(backend, dtype=dtype)
    rel = 2e-5 if dtype == "float32" else 1e-9
    for p, y in PAIRS:
        pa, ya = np.array([p], dtype), np.array([y], dtype)
        # the kernel's eps is the constant rounded to the dtype, as its inputs are
        e = float(np.asarray(eps, dtype))
        want, want_g = _reference(float(pa[0]), float(ya[0]), e)
        got, got_g = float(kernel.value(pa, ya)), float(kernel.gradient(pa, ya)[0])
        assert got == pytest.approx(want, rel=rel, abs=1e-6), (p, y, got, want)
        assert got_g == pytest.approx(want_g, rel=rel, abs=1e-6), (p, y, got_g, want_g)
