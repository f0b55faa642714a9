"""Limits at infinity from the limits of a form's parts (symnb.robust.limit_parts).

``x*sigmoid(x)*sigmoid(2*x)*...*sigmoid(5*x)``: SymPy's limit of the whole f' ran
past its 3 s limit at both infinities, so the kernels gave NaN for f' at x = +-inf
(the limits are 1 and 0) after 6 s of waiting. The parts' limits, with a factor going
to 0 taken together with one going to +-oo, give it at once. Checked against SymPy's
limit of the whole expression (where that is quick) and mpmath far out.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from symnb.robust.limit_parts import limit_by_parts

t = sp.Symbol("t", positive=True)


def sig(u):
    return 1 / (1 + sp.exp(-u))


WHOLE = [
    t * sig(t) * sig(2 * t),  # oo * 1 * 1
    -t * sig(-t) * sig(-2 * t),  # -oo * 0 * 0: a 0*oo pair merged
    t**2 * sp.exp(-t) + sig(t),  # 0 + 1
    t - sp.sqrt(t**2 + 1),  # oo - oo: a merged pair
    sp.log(1 + sp.exp(t)) - t + 3 * sig(t),  # oo - oo, then + 3
    t * sp.exp(-t) * sp.exp(t / 2),  # oo * 0 * oo
    (t + 1) * sig(-t) + sp.atan(t),  # 0 + pi/2
    2 * t - t * sig(t),  # oo - oo
]


@pytest.mark.parametrize("e", WHOLE, ids=[str(e)[:40] for e in WHOLE])
def test_parts_give_sympys_limit_of_the_whole(e):
    got = limit_by_parts(e, t)
    assert got is not None
    assert sp.simplify(got - sp.limit(e, t, sp.oo)) == 0 or got == sp.limit(e, t, sp.oo)


@pytest.mark.parametrize(
    "e",
    [
        t * sp.sin(t),
        sp.sin(t) + 1,
        t * sp.cos(t) - t,
        sp.exp(t) * sp.exp(-t) * sp.sin(t),
    ],
    ids=["t*sin(t)", "sin(t)+1", "t*cos(t)-t", "oscillating"],
)
def test_no_limit_is_none_not_a_number(e):
    assert limit_by_parts(e, t) is None


def test_a_single_function_is_left_to_sympy():
    assert limit_by_parts(sig(t), t) is None  # no sum or product: the caller's


PRODUCT = "x*sigmoid(x)*sigmoid(2*x)*sigmoid(3*x)*sigmoid(4*x)*sigmoid(5*x)"


def _reference_derivative(x: float) -> float:
    """f' of PRODUCT in mpmath at 60 digits (finite differences of no kind: the
    product rule written out)."""
    with mpmath.workdps(60):
        xs = mpmath.mpf(x)
        s = [1 / (1 + mpmath.exp(-k * xs)) for k in range(1, 6)]
        prod = xs * s[0] * s[1] * s[2] * s[3] * s[4]
        d = prod / xs + sum(prod * k * (1 - s[k - 1]) for k in range(1, 6))
        return float(d)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_a_product_of_sigmoids_has_its_derivative_at_infinity(backend, dtype):
    act = symnb.Activation(PRODUCT)
    k = act.compile(backend=backend, dtype=dtype)
    x = np.array([-np.inf, -200.0, 200.0, np.inf], dtype=dtype)
    y, d = k.forward_with_derivative(x)
    assert not np.isnan(d).any(), d
    want = [
        _reference_derivative(-400),
        _reference_derivative(-200),
        _reference_derivative(200),
        _reference_derivative(400),
    ]
    np.testing.assert_allclose(d.astype(np.float64), want, rtol=1e-6, atol=1e-30)
    np.testing.assert_array_equal(y[[0, 3]], np.array([0.0, np.inf], dtype=dtype))
