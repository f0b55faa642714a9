"""``c + m*f(u)`` with c = -+m a named constant: ``a*exp(u) - a`` is ``a*expm1(u)``,
``a + a*tanh(x)`` is ``2a*sigmoid(2x)`` (``stability._symbol_plus_term``).

The rewrites of ``exp(u) - 1``, ``1 + tanh(u)`` ... matched a numeric coefficient
only; a named constant is a symbol, so LINEX ``b*(exp(a*x) - a*x - 1)`` (Varian 1975)
with a = 1e-3 had the derivative ``b*(a*exp(a*x) - a)``, cancelling to 1e-4 relative
error near 0 in float32 (44 of 183 corpus points over the rule), and ``a + a*tanh(x)``
was 0 at x = -20 where it is 4.2e-18 (the rule's absolute part forgives that one; the
relative error is judged here). References: mpmath (53 bits), float32 kernels with
the constants also moved after compiling, as training moves them.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

_M = mpmath.mpf

#: (text, constants compiled with, constants judged at, points, f at the judged values)
CASES = [
    (
        "a + a*tanh(x)",
        {"a": 0.5},
        {"a": 3.0},
        [-30.0, -20.0, -5.0, 0.5],
        lambda x, c: c["a"] * (1 + mpmath.tanh(x)),
    ),
    (
        "a*exp(a*x) - a",
        {"a": 1e-3},
        {"a": 2e-3},
        [-3.0, -0.25, 1e-3, 2.0],
        lambda x, c: c["a"] * mpmath.expm1(c["a"] * x),
    ),
    (
        "k - k*sigmoid(x)",
        {"k": 3.0},
        {"k": 0.2},
        [20.0, 40.0, 80.0],
        lambda x, c: c["k"] * (1 - 1 / (1 + mpmath.exp(-x))),
    ),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(("text", "constants", "moved", "points", "ref"), CASES)
def test_named_unit_sum_is_relatively_accurate(
    text, constants, moved, points, ref, backend
):
    kernel = symnb.Activation(text, **constants).compile(backend, dtype="float32")
    for judged in (constants, moved):
        kernel.set_constants(**judged)
        got = kernel.forward(np.array(points, dtype=np.float32))
        exact = {k: _M(float(np.float32(v))) for k, v in judged.items()}
        for x, g in zip(points, got.tolist()):
            want = float(ref(_M(float(np.float32(x))), exact))
            assert g == pytest.approx(want, rel=2e-5), (text, judged, x)


@pytest.mark.parametrize("backend", backend_params())
def test_linex_derivative_with_named_constants(backend):
    act = symnb.Activation("b*(exp(a*x) - a*x - 1)", a=1e-3, b=1e6)
    kernel = act.compile(backend, dtype="float32")
    xs = np.array([-2.625, -1.0, -0.01, 0.3, 1.0, 30.0], dtype=np.float32)
    _, dy = kernel.forward_with_derivative(xs)
    a = _M(float(np.float32(1e-3)))
    for x, got in zip(xs.tolist(), dy.tolist()):
        ref = _M(1e6) * a * mpmath.expm1(a * x)
        assert got == pytest.approx(float(ref), rel=2e-5)
