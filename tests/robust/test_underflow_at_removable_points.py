"""Removable singularities at 0 whose two sides underflow together far below 1e-12.

The Einstein function x**2*exp(x)/(exp(x)-1)**2 was NaN (0/0) from |x| = 1e-30 in
float32, and Planck's x**3/(exp(x)-1) had f' NaN there: the Taylor regime's radius
search started at 1e-12, where the direct form was still fine. References: mpmath.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import symnb
from symnb.backends import status

mp = mpmath.mp
RULE = {"float32": (2e-5, 1e-6), "float64": (1e-9, 1e-12)}

CASES = {
    "einstein": (
        "x**2*exp(x)/(exp(x)-1)**2",
        lambda x: x**2 * mp.exp(x) / mp.expm1(x) ** 2 if x != 0 else mp.mpf(1),
    ),
    "planck": (
        "x**3/(exp(x)-1)",
        lambda x: x**3 / mp.expm1(x) if x != 0 else mp.mpf(0),
    ),
}
TINY = [1e-38, 1e-35, 3e-33, 1e-30, 1e-27, 1e-25, 1e-22, 1e-20, 1e-15]
POINTS = [s * t for t in TINY for s in (1, -1)] + [0.0, 1e-3, -0.5, 2.0, -7.0]


def _ref(fn, x: float, order: int):
    with mp.workdps(120):
        if x == 0.0 or order == 0:
            return fn(mp.mpf(x)) if order == 0 else mp.diff(fn, mp.mpf(1e-60))
        return mp.diff(fn, mp.mpf(x))


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_tiny_inputs_near_a_removable_point_are_finite_and_right(name, backend):
    if backend == "cpp" and not status("cpp").usable:
        pytest.skip("cpp backend not usable here")
    text, fn = CASES[name]
    dtype = "float32"
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    x = np.array(POINTS, dtype=dtype)
    y, dy = kernel.forward_with_derivative(x)
    rel, ab = RULE[dtype]
    bad = []
    for xi, yi, di in zip(x.astype(float), y.astype(float), dy.astype(float)):
        f, d = _ref(fn, xi, 0), _ref(fn, xi, 1)
        scale = max(1.0, abs(xi), abs(xi * float(d)))
        for what, got, ref in (("f", yi, f), ("f'", di, d)):
            ok = math.isfinite(got) and abs(got - float(ref)) <= (
                rel * abs(float(ref)) + ab * scale
            )
            if not ok:
                bad.append((what, xi, got, float(ref)))
    assert not bad, bad
