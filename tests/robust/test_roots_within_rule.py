"""Roots whose square overflows inside a larger expression: the within-rule root
rewrite (robust.engine._far_better_within_rule) was tried only on a form that met the
rule as typed, and refused a finite candidate against an infinite error (1e307 ulps
times the gain overflowed). (x/sqrt(1 + x^2) + 1)/2 was 1/2 instead of 1 from
x = 1.3e154 (float64); (sqrt(1 + 4x^2) - 1)/(2x), which meets the rule only after its
root cancellation and asymptotes, was 0 instead of +-1 from |x| = 1e19 (float32) and
1e154 (float64). Against mpmath at 60 digits, on numpy and cpp.
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

import symnb
from symnb.backends.select import status

BACKENDS = ["numpy"] + (["cpp"] if status("cpp").usable else [])
POINTS = {
    "float32": [-3e38, -1e30, -1e20, -1e8, -30.0, -1.0, 0.5, 3.0, 1e8, 1e20, 1e30,
                3e38],
    "float64": [-1e300, -1e200, -1e160, -1e20, -30.0, -1.0, 0.5, 3.0, 1e20, 1e160,
                1e200, 1e300],
}


def _alg_sigmoid(v):
    return (v / mpmath.sqrt(1 + v**2) + 1) / 2


def _sqrt_quotient(v):
    return (mpmath.sqrt(1 + 4 * v**2) - 1) / (2 * v)


# text, reference, absolute error allowed for x < 0 (in units of eps): the algebraic
# sigmoid's 1/2 - 1/2(1 - 1/(2x^2)) cancels for x << 0 (forgiven by the rule, not
# what this test is about); relative elsewhere
CASES = [
    ("(x/sqrt(1 + x**2) + 1)/2", _alg_sigmoid, 8.0),
    ("(sqrt(1 + 4*x**2) - 1)/(2*x)", _sqrt_quotient, 0.0),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text, ref, negative", CASES, ids=[c[0] for c in CASES])
def test_square_overflow_inside_a_larger_expression(text, ref, negative, dtype):
    act = symnb.Activation(text)
    x = np.array(POINTS[dtype], dtype=dtype)
    eps, tiny = float(np.finfo(dtype).eps), float(np.finfo(dtype).tiny)
    with mpmath.workdps(60):
        want = np.array([float(ref(mpmath.mpf(float(v)))) for v in x])
        dwant = np.array([float(mpmath.diff(ref, mpmath.mpf(float(v)))) for v in x])
    for backend in BACKENDS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            kernel = act.compile(backend=backend, dtype=dtype)
        y, dy = (np.asarray(a, np.float64) for a in kernel.forward_with_derivative(x))
        # the value: a few ulps of it (for x < 0, `negative` eps absolute)
        tol = 8 * eps * np.abs(want) + np.where(x < 0, negative * eps, 0.0)
        assert np.all(np.abs(y - want) <= tol + tiny), (backend, x, y, want)
        # f' finite and within the rule's scale max(1, |x|, |x f'|) * 8 eps
        assert np.all(np.isfinite(dy)), (backend, x, dy)
        scale = np.maximum(1.0, np.abs(x.astype(np.float64) * dwant))
        assert np.all(np.abs(dy - dwant) <= 8 * eps * scale), (backend, x, dy, dwant)
