"""abs, sign, floor and ceiling of arguments SymPy cannot prove real differentiate by
the real rules: |u|' = sign(u) u', floor(u)' = 0, sign(u)' through the surrogate.

These were refused ("the result contains re(log1p(x))", "Subs(0, _xi_1, 2*x)") or shown
as complex-analysis forms (``log(x/sign(x))*sign(x)**2*sign(log(x))/(x*log(x))``).
References: mpmath's numerical derivative of independently typed functions.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import symnb

mp.mp.dps = 40

ABS_CASES = [
    ("abs(log(x))", lambda t: abs(mp.log(t)), [0.3, 0.5, 2.0, 7.0]),
    ("abs(log1p(x))", lambda t: abs(mp.log1p(t)), [-0.5, 0.3, 2.0]),
    ("abs(asin(x))", lambda t: abs(mp.asin(t)), [-0.5, 0.3, 0.9]),
    ("abs(atanh(x))", lambda t: abs(mp.atanh(t)), [-0.5, 0.3, 0.9]),
    ("abs(acosh(x))", lambda t: abs(mp.acosh(t)), [1.5, 2.0, 10.0]),
    ("abs(x**beta)", lambda t: abs(t**1.5), [0.3, 2.0]),
    ("abs(sqrt(x))", lambda t: abs(mp.sqrt(t)), [0.3, 2.0]),
    ("abs(x - log(x))", lambda t: abs(t - mp.log(t)), [0.3, 2.0]),
    ("sqrt(abs(log(x)))", lambda t: mp.sqrt(abs(mp.log(t))), [0.3, 0.5, 2.0]),
    ("x*abs(log(x))", lambda t: t * abs(mp.log(t)), [0.3, 2.0]),
]


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("text,g,points", ABS_CASES, ids=[c[0] for c in ABS_CASES])
def test_abs_of_a_not_provably_real_argument(text, g, points, backend):
    a = symnb.Activation(text, beta=1.5)
    shown = a.derivative
    assert not shown.has(sp.re, sp.im, sp.arg, sp.atan2), shown
    k = a.compile(backend=backend, dtype="float64")
    _, dy = k.forward_with_derivative(np.array(points))
    for x, got in zip(points, dy.tolist()):
        ref = float(mp.diff(g, mp.mpf(x)))
        assert math.isclose(got, ref, rel_tol=1e-12, abs_tol=1e-300), (x, got, ref)


STEP_CASES = [
    ("floor(2*x)", lambda t: math.floor(2 * t)),
    ("floor(4*x)/4", lambda t: math.floor(4 * t) / 4),
    ("ceiling(x/3)", lambda t: math.ceil(t / 3)),
    ("floor(log(x))", lambda t: math.floor(math.log(t))),
    ("x + floor(2*x)", lambda t: t + math.floor(2 * t)),
]


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("text,g", STEP_CASES, ids=[c[0] for c in STEP_CASES])
def test_floor_and_ceiling_of_any_argument(text, g, backend):
    """Quantisers (floor(k*x)/k) compile; their derivative is the continuous part's,
    with the note that the steps do not pass gradients."""
    a = symnb.Activation(text)
    assert any("floor/ceiling" in n for n in a.notes), a.notes
    points = [0.1, 0.37, 1.26, 2.9, 5.5]
    k = a.compile(backend=backend, dtype="float64")
    y, dy = k.forward_with_derivative(np.array(points))
    smooth = 1.0 if text.startswith("x +") else 0.0
    for x, got_y, got_dy in zip(points, y.tolist(), dy.tolist()):
        assert got_y == g(x), (x, got_y)
        assert got_dy == smooth, (x, got_dy)


@pytest.mark.parametrize("surrogate", ["atan", "zero"])
@pytest.mark.parametrize(
    "text,u,du",
    [
        ("sign(asin(x))", mp.asin, lambda t: 1 / mp.sqrt(1 - t * t)),
        ("sign(log(x))", mp.log, lambda t: 1 / t),
    ],
)
def test_sign_of_a_not_provably_real_argument(text, u, du, surrogate):
    """The chain rule through sign's own derivative in symnb (its surrogate), as for
    sign(x) itself."""
    a = symnb.Activation(text, surrogate=surrogate)
    base = symnb.Activation("sign(x)", surrogate=surrogate).compile(
        backend="numpy", dtype="float64"
    )
    k = a.compile(backend="cpp", dtype="float64")
    points = [0.3, 0.5, 0.8]
    _, dy = k.forward_with_derivative(np.array(points))
    for x, got in zip(points, dy.tolist()):
        inner = float(u(mp.mpf(x)))
        _, dsign = base.forward_with_derivative(np.array([inner]))
        ref = float(dsign[0]) * float(du(mp.mpf(x)))
        assert math.isclose(got, ref, rel_tol=1e-12, abs_tol=1e-300), (x, got, ref)
