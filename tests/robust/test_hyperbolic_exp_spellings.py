"""sinh and cosh typed with exp, and sinh(x)/x past sinh's overflow, against mpmath.

``(exp(x) - exp(-x))/2`` overflowed one step before sinh: inf at x = 89 in float32
(sinh(89) = 2.2e38) and at x = 709.8 in float64; the sum is now 2*sinh (2*cosh).
``sinh(x)/x`` was inf at x = 90 in float32 (6.8e36) and its f' NaN (inf - inf) from
|x| = 1e19: the exp-of-log regime now opens sinh and cosh into exps.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus_reference import RULE

_EDGE = {"float32": [88.9, 89.2, -89.2], "float64": [709.8, 710.2, -710.2]}


def _close(got, ref, dtype, scale) -> bool:
    rtol, stol = RULE[dtype]
    big = float(np.finfo(dtype).max)
    if abs(ref) > big:
        return bool(np.isinf(got) and np.sign(got) == np.sign(ref))
    return bool(np.isfinite(got) and abs(got - ref) <= rtol * abs(ref) + stol * scale)


def _check(text, f_ref, df_ref, xs, backend, dtype):
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    x = np.array(xs, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    with mp.workdps(50):
        for xi, yi, di in zip(x.tolist(), y.tolist(), dy.tolist()):
            v, d = f_ref(mp.mpf(xi)), df_ref(mp.mpf(xi))
            assert _close(yi, float(v), dtype, 1.0), (text, dtype, xi, yi, v)
            assert _close(di, float(d), dtype, 1.0), (text, dtype, xi, di, d)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinh_and_cosh_typed_with_exp_reach_the_overflow_edge(backend, dtype):
    xs = _EDGE[dtype] + [0.5, -3.0]
    _check("(exp(x) - exp(-x))/2", mp.sinh, mp.cosh, xs, backend, dtype)
    _check("(exp(x) + exp(-x))/2", mp.cosh, mp.sinh, xs, backend, dtype)
    _check(
        "3*exp(x) - 3*exp(-x) + x",
        lambda v: 6 * mp.sinh(v) + v,
        lambda v: 6 * mp.cosh(v) + 1,
        [30.0, -2.0, 0.25],
        backend,
        dtype,
    )


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_of_exp_pair_stays_stable(backend, dtype):
    """log(exp(x) + exp(-x)) becomes log(2) + log(cosh(x)), then log-cosh's stable form."""
    _check(
        "log(exp(x) + exp(-x))",
        lambda v: mp.log(mp.exp(v) + mp.exp(-v)),
        mp.tanh,
        [1e3, -1e5, 90.0, 1e-3, 0.0],
        backend,
        dtype,
    )


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", ["sinh(x)/x", "(exp(x) - exp(-x))/(2*x)"])
def test_sinh_over_x_past_the_overflow_of_sinh(text, backend, dtype):
    edge = {"float32": [90.0, -90.0], "float64": [711.0, -711.0]}[dtype]
    _check(
        text,
        lambda v: mp.sinh(v) / v,
        lambda v: mp.cosh(v) / v - mp.sinh(v) / v**2,
        edge + [1e19, -1e19, 2.5],
        backend,
        dtype,
    )


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cosh_over_x_past_the_overflow_of_cosh(backend, dtype):
    edge = {"float32": [90.0, -90.0], "float64": [711.0, -711.0]}[dtype]
    _check(
        "cosh(x)/x",
        lambda v: mp.cosh(v) / v,
        lambda v: mp.sinh(v) / v - mp.cosh(v) / v**2,
        edge + [1e19, -1e19, 2.5],
        backend,
        dtype,
    )
