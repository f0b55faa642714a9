"""log(u**2) is 2*log|u|, and SymPy's d log|u| = sign(u)/|u| is 1/u, against mpmath.

``x**2*log(x**2)`` (the thin-plate spline) was NaN for tiny |x| in float32 (x**2 underflows
to 0, 0*log(0)) and its f' = 2x*log(x**2) + 2x was -inf where x**2 overflows (|x| > 1.8e19
in float32, 1.3e154 in float64) although f' is finite there.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import symnb
from tests.conftest import backend_params
from tests.robust.corpus_reference import RULE

_POINTS = {
    "float32": [1e-30, -1e-25, -1e-42, 2.5, -3e19, 1e30, -3e38],
    "float64": [1e-300, -1e-170, 2.5, -1e160, 1e300, -1.7e308],
}


def _scale(v, slope):
    return max(mp.mpf(1), abs(v), abs(v * slope))


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_thin_plate_spline(backend, dtype):
    kernel = symnb.Activation("x**2*log(x**2)").compile(backend=backend, dtype=dtype)
    x = np.array(_POINTS[dtype], dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    rtol, stol = RULE[dtype]
    big = float(np.finfo(dtype).max)
    with mp.workdps(60):
        for xi, yi, di in zip(x.tolist(), y.tolist(), dy.tolist()):
            v = mp.mpf(xi)
            f = v**2 * mp.log(v**2)
            df = 2 * v * mp.log(v**2) + 2 * v
            ddf = 2 * mp.log(v**2) + 6
            if abs(f) > big:
                assert yi == np.sign(float(f)) * np.inf, (dtype, xi, yi)
            else:
                assert abs(yi - float(f)) <= rtol * abs(f) + stol * _scale(v, df), (
                    dtype,
                    xi,
                    yi,
                    f,
                )
            if abs(df) > big:
                assert di == np.sign(float(df)) * np.inf, (dtype, xi, di)
            else:
                assert abs(di - float(df)) <= rtol * abs(df) + stol * _scale(v, ddf), (
                    dtype,
                    xi,
                    di,
                    df,
                )


def test_log_of_an_even_power_is_twice_the_log_of_the_magnitude():
    act = symnb.Activation("log(x**2) + log((x - 1)**4)")
    f = act.expr
    (x,) = f.free_symbols
    # the same function as typed (checked at points of both signs), without a power
    for v in (-3.5, -0.25, 0.75, 2.0, 40.0):
        typed = np.log(v**2) + np.log((v - 1) ** 4)
        assert float(f.subs(x, v)) == pytest.approx(typed, rel=1e-14)
    assert not any(
        isinstance(a, sp.log) and isinstance(a.args[0], sp.Pow)
        for a in sp.preorder_traversal(act.internal.f)
    )
    # and the derivative has no sign(u)/|u| left (it is 2/x + 4/(x - 1))
    assert not act.internal.df.has(sp.sign)
