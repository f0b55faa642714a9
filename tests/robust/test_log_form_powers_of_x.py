"""Quotients of exponentials by powers of x past the overflow of exp, against mpmath.

The exp-of-log regime wrote a sum as ``v + log(sum*exp(-v))`` and left the powers of x
in the sum: f' of ``(exp(x) - 1 - x)/x**2`` became exp(x + log(x**-2 - 2/x**3 + ...)),
f' of ``(cosh(x) - 1)/x**2`` exp(x + log(1/(2x^2) - 1/x^3 + ...)). x^3 overflows from
x = 7e12 in float32, the sum is 0 there and its log -inf, so the regime failed its
measurement and was dropped: f' stayed the direct formula, which was NaN (inf - inf)
at x = 89, 100, 700 in float32 and inf at x = 710 in float64 where f' is 4.4e302, and
-inf at x = 89 for the cosh quotient (2*cosh(89) overflows; f' is +2.8e34). The highest
power of x is now taken out of the sum as a logarithm too, and a power of x left
with an exponential goes into it (x^2 exp(-x) as exp(-x + 2 log x)).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from tests.conftest import backend_params
from tests.robust.kernel_values import kernel_values

#: Largest relative error allowed (float32: about 170 ulps, float64: about 4500 ulps;
#: exp of a sum of logarithms near 89 / 710 loses the rounding of its argument, x*eps).
RTOL = {"float32": 2e-5, "float64": 1e-12}

_POINTS = {
    "float32": [0.5, 3.0, 20.0, 50.0, 80.0, 85.0, 88.0, 88.5, 88.7, 88.73, 89.0, 89.5]
    + [90.0, 95.0, 100.0, 700.0, 1e3, 1e10, 1e13, 1e19, 1e20, 1e30, 3e38],
    "float64": [0.5, 3.0, 20.0, 500.0, 700.0, 709.0, 709.5, 709.78, 709.8, 710.0]
    + [710.5, 711.0, 712.0, 1e3, 1e10, 1e100, 1e200, 1e300, 1.7e308],
}


def _exp_quotient(v):
    return (mp.exp(v) - 1 - v) / v**2


def _exp_quotient_d(v):
    return ((v - 2) * mp.exp(v) + v + 2) / v**3


def _cosh_quotient(v):
    return (mp.cosh(v) - 1) / v**2


def _cosh_quotient_d(v):
    return mp.sinh(v) / v**2 - 2 * (mp.cosh(v) - 1) / v**3


def _expected(v, dtype: str) -> float:
    """The reference rounded to dtype: +-inf beyond its largest finite value."""
    big = mp.mpf(float(np.finfo(dtype).max))
    if abs(v) > big:
        return float(mp.sign(v)) * np.inf
    return float(np.asarray(float(v), dtype=dtype))


def _check(text: str, backend: str, xs, refs, dtype: str) -> None:
    x, y, dy = kernel_values(text, backend, dtype, xs)
    bad = []
    with mp.workdps(60):
        for xi, yi, di in zip(x.tolist(), y.tolist(), dy.tolist()):
            for name, got, ref in (("f", yi, refs[0]), ("f'", di, refs[1])):
                want = _expected(ref(mp.mpf(xi)), dtype)
                if np.isinf(want):
                    ok = got == want
                else:
                    ok = np.isfinite(got) and abs(got - want) <= RTOL[dtype] * abs(want)
                if not ok:
                    bad.append((name, xi, got, want))
    assert not bad, (text, dtype, backend, bad)


def _poly_quotient(v):
    return mp.exp(v) / (v**3 + v)


def _poly_quotient_d(v):
    return mp.exp(v) / (v**3 + v) - mp.exp(v) * (3 * v**2 + 1) / (v**3 + v) ** 2


def _cosh_over_square(v):
    return mp.cosh(v) / (1 + v**2)


def _cosh_over_square_d(v):
    return mp.sinh(v) / (1 + v**2) - 2 * v * mp.cosh(v) / (1 + v**2) ** 2


def _exp_cubic(v):
    return (mp.exp(v) - 1 - v - v**2 / 2) / v**3


def _exp_cubic_d(v):
    return (mp.exp(v) - 1 - v) / v**3 - 3 * (mp.exp(v) - 1 - v - v**2 / 2) / v**4


#: text: (f, f') in mpmath, the smallest positive point, the negative points ("all":
#: every positive point negated); exp(x)/(x^3 + x) has a pole at 0, so from x = 3
_CASES = {
    "(exp(x) - 1 - x)/x**2": (
        (_exp_quotient, _exp_quotient_d),
        0.0,
        [-0.5, -3.0, -20.0, -100.0],
    ),
    "(cosh(x) - 1)/x**2": ((_cosh_quotient, _cosh_quotient_d), 0.0, "all"),
    "exp(x)/(x**3 + x)": ((_poly_quotient, _poly_quotient_d), 3.0, []),
    # x^2 exp(-x) left in the sum was inf*0 = NaN from x = 1.8e19 (float32), and a
    # denominator multiplied by exp(x) hid its powers of x: f, f' were not rewritten
    "(exp(x) - 1 - x - x**2/2)/x**3": (
        (_exp_cubic, _exp_cubic_d),
        0.0,
        [-0.5, -3.0, -20.0, -100.0],
    ),
    "cosh(x)/(1 + x**2)": ((_cosh_over_square, _cosh_over_square_d), 0.0, "all"),
}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", list(_CASES))
def test_quotient_past_the_overflow_of_exp_is_finite_or_signed_inf(
    text, backend, dtype
):
    refs, lowest, negatives = _CASES[text]
    xs = [p for p in _POINTS[dtype] if p >= lowest]
    xs += [-p for p in xs] if negatives == "all" else negatives
    _check(text, backend, xs, refs, dtype)
