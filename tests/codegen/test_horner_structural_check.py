"""Horner schemes are looked for only in sums that are polynomials by their structure.

``log(1 + erf(x))`` (the log of the normal CDF's relative, in probit likelihoods) lowers
in float32 to a far form with a continued fraction in 1/x**2; the printer handed each
of its sums to ``sympy.Poly``, which expands what it is given before refusing it: the
C++ kernel took 55 s to render (22 s on a quiet machine) and the formula failed the
10 s build limit. ``Expr.is_polynomial`` now refuses such sums first.

Values are judged against mpmath (f = log(1 + erf x), f' = 2 exp(-x^2)/(sqrt(pi)
(1 + erf x)), 50 digits) where float32 holds them.
"""

from __future__ import annotations

import time

import mpmath
import numpy as np
import pytest

import symnb
from symnb.backends import status
from symnb.codegen.kernels import render_program
from symnb.robust import engine

TEXTS = ("log(1 + erf(x))", "log(0.5*erfc(-x/sqrt(2)))")


def _reference(text: str, x: float) -> tuple[float, float]:
    with mpmath.workdps(50):
        u = mpmath.mpf(x)
        if text.startswith("log(1"):
            g = mpmath.erfc(-u)  # 1 + erf(u), without the cancellation
            dg = 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-u * u)
        else:
            v = -u / mpmath.sqrt(2)
            g = mpmath.erfc(v) / 2
            dg = mpmath.exp(-v * v) / mpmath.sqrt(2 * mpmath.pi)
        return float(mpmath.log(g)), float(dg / g)


@pytest.mark.parametrize("text", TEXTS)
def test_far_form_renders_quickly(text):
    form = engine.lower(symnb.Activation(text).internal, "float32")
    start = time.thread_time()
    render_program((form,), "elementwise", dialect="cpp", dtype="float32")
    assert time.thread_time() - start < 10.0


@pytest.mark.parametrize("text", TEXTS)
def test_compiled_values_match_mpmath(text):
    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    x = np.array([-1e4, -300.0, -30.0, -5.0, -1.0, 0.0, 0.5, 1.0, 3.0], np.float32)
    y, dy = (
        symnb.Activation(text)
        .compile("cpp", dtype="float32")
        .forward_with_derivative(x)
    )
    for xi, yi, dyi in zip(x.tolist(), y.tolist(), dy.tolist()):
        f, df = _reference(text, xi)
        assert yi == pytest.approx(f, rel=2e-5, abs=1e-6), (text, xi)
        assert dyi == pytest.approx(df, rel=2e-5, abs=1e-6), (text, xi)
