"""Long polynomials compile on the C backends (Horner's rule as a chain of statements).

The printer rewrites a polynomial as Horner's rule, one nested ``x*(c + x*(c + ...))``;
from degree 110 printing it passed Python's recursion limit and the compile failed with
"the formula is nested too deeply" (numpy compiled 200 terms). The scheme is now cut into
statements of ``HORNER_CHUNK`` steps. Values are checked against exact sums in mpmath at
points where the polynomial stays inside float64's range.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from symnb.backends import status
from symnb.codegen import printer

X = sp.Symbol("x", real=True)

POINTS = [-1.01, -0.999, -0.5, 0.0, 1e-3, 0.3, 0.7, 0.99, 1.0, 1.004]


def _text(n: int, coeff=lambda k: "") -> str:
    return "+".join(f"{coeff(k)}x**{k}" for k in range(1, n + 1))


def _exact(n: int, x: float, coeff=lambda k: 1, derivative: bool = False) -> float:
    with mpmath.workdps(60):
        t = mpmath.mpf(x)
        if derivative:
            s = mpmath.fsum(coeff(k) * k * t ** (k - 1) for k in range(1, n + 1))
        else:
            s = mpmath.fsum(coeff(k) * t**k for k in range(1, n + 1))
        return float(s)


def _cpp_or_skip():
    st = status("cpp")
    if not st.usable:
        pytest.skip(f"cpp backend: {st.reason}")


@pytest.mark.parametrize("n", [110, 300])
def test_long_polynomial_compiles_on_cpp_and_matches_exact_sums(n) -> None:
    """Degree 110 (was refused) and 300: f and f' in float64 within a few ulps of the
    condition-scaled error of Horner's rule (sum |x|^k as the scale)."""
    _cpp_or_skip()
    act = symnb.Activation(_text(n))
    k = act.compile(backend="cpp", dtype="float64")
    x = np.array(POINTS)
    y = k.forward(x)
    dy = k.backward(x, np.ones_like(x))
    kn = act.compile(backend="numpy", dtype="float64")
    yn = kn.forward(x)
    for i, t in enumerate(POINTS):
        scale = _exact(n, abs(t))  # sum |x|^k: Horner's error is a few ulps of it
        dscale = _exact(n, abs(t), derivative=True)
        assert abs(y[i] - _exact(n, t)) <= 1e-13 * max(scale, 1e-300) + 1e-300, t
        assert abs(yn[i] - _exact(n, t)) <= 1e-13 * max(scale, 1e-300) + 1e-300, t
        want = _exact(n, t, derivative=True)
        assert abs(dy[i] - want) <= 1e-13 * max(dscale, 1.0), t


def test_long_polynomial_with_coefficients_float32_and_float64() -> None:
    """Coefficients (-1)^k/k (log(1 + x)'s series, degree 200): float32 and float64
    kernels against the exact sum; f' is the geometric sum of -(-x)^k."""
    _cpp_or_skip()
    n = 200

    def coeff_text(k: int) -> str:
        return f"{(-1) ** (k + 1)}/{k}*"

    def coeff(k: int):
        return mpmath.mpf((-1) ** (k + 1)) / k

    act = symnb.Activation(_text(n, coeff_text))
    for dtype, tol in (("float32", 2e-6), ("float64", 1e-14)):
        k = act.compile(backend="cpp", dtype=dtype)
        x = np.array([-0.9, -0.5, 0.0, 0.25, 0.9], dtype=dtype)
        y = k.forward(x).astype(np.float64)
        dy = k.backward(x, np.ones_like(x)).astype(np.float64)
        for i, t in enumerate(x.astype(np.float64)):
            want = _exact(n, t, coeff)
            scale = _exact(n, abs(t), lambda j: abs(coeff(j)))
            assert abs(y[i] - want) <= tol * max(scale, 1.0), (dtype, t, y[i], want)
            dwant = _exact(n, t, coeff, derivative=True)
            dscale = _exact(n, abs(t), lambda j: abs(coeff(j)), derivative=True)
            assert abs(dy[i] - dwant) <= tol * max(dscale, 1.0), (dtype, t)


def test_lowered_statements_are_shallow() -> None:
    """Degree 1000: every statement holds at most one piece of the scheme
    (HORNER_CHUNK steps), and the chain computes the exact sum."""
    n = 1000
    e = sp.Add(*[X**k for k in range(1, n + 1)])
    low = printer.lower((e,), ((X, "a0"),), "float64")
    longest = max(s.count("*") for s in (*low.statements, *low.results))
    assert longest <= printer.HORNER_CHUNK + 2
    assert len(low.statements) >= n // printer.HORNER_CHUNK - 1
    # run the statements as Python (the C is plain arithmetic on doubles)
    env = {"a0": 0.995}
    for s in low.statements:
        name, rhs = s.removeprefix("const symnb_real ").rstrip(";").split(" = ", 1)
        env[name] = eval(rhs, {}, env)  # noqa: S307 - our own arithmetic text
    got = eval(low.results[0], {}, env)  # noqa: S307
    assert got == pytest.approx(_exact(n, 0.995), rel=1e-13)


def test_short_polynomials_keep_one_horner_expression() -> None:
    """Up to HORNER_CHUNK steps nothing changes: one nested expression, no temporary."""
    e = sp.Add(*[X**k for k in range(1, printer.HORNER_CHUNK + 1)])
    low = printer.lower((e,), ((X, "a0"),), "float64")
    assert low.statements == ()
    assert low.results[0].count("a0") == printer.HORNER_CHUNK
