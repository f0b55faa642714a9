"""Sample points where x**2, x**3 and x**4 overflow (``measure._power_edges``).

float64's analysis grid steps 25 decades past float32's range, and a rewritten form
that squares x fails from 1.3e154 only: pseudo-Huber ``d**2*(sqrt(1 + (x/d)**2) - 1)``
with d = 1e3 took its cancellation-free quotient ``x**2/(sqrt(1 + (x/d)**2) + 1)``
(root cancellation) up to a threshold of 5e169, chosen between the sample points
1e145 and 1e170: f was inf for |x| in 1.3e154..5e169, where it is d*|x| (1e163 at
1e160). Judged against mpmath over the whole float range (``text_judge``) and at
1e160 against the exact value. The same gap hid float64 polynomials whose highest
power overflows before their value (``x + 0.1*x**3`` inf at 8e102, where it is
5.1e307): with a sample there, their Horner form is chosen.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

PSEUDO_HUBER = "delta**2*(sqrt(1 + (x/delta)**2) - 1)"


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("delta", [1e3, 30.0])
def test_pseudo_huber_meets_the_rule_in_float64(delta, backend):
    problems = rule_problems_of(PSEUDO_HUBER, backend, "float64", {"delta": delta})
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backend", backend_params())
def test_between_the_square_overflow_and_the_next_grid_point(backend):
    kernel = symnb.Activation(PSEUDO_HUBER, delta=1e3).compile(backend, dtype="float64")
    xs = np.array([2e154, -1e160, 3e165])
    y, dy = kernel.forward_with_derivative(xs)
    for x, got, dgot in zip(xs.tolist(), y.tolist(), dy.tolist()):
        with mpmath.workdps(40):
            d, u = mpmath.mpf(1000), mpmath.mpf(x)
            ref = d**2 * (mpmath.sqrt(1 + (u / d) ** 2) - 1)
            dref = u / mpmath.sqrt(1 + (u / d) ** 2)
        assert got == pytest.approx(float(ref), rel=1e-12)
        assert dgot == pytest.approx(float(dref), rel=1e-12)


#: polynomials whose highest power overflows float64 before their value does (the
#: README's "float64 polynomials still overflow where x^3 does"): x**3 from 5.6e102,
#: x**4 from 1.16e77; no analysis sample lay there, so Horner form was never chosen
POLYNOMIALS = [
    ("x + 0.1*x**3", [8e102, -8e102, 1.1e103]),
    ("(x**3 - 3*x)/4", [6e102, -8e102]),
    ("x**4/24 + x**2/2", [1.5e77, -2e77, 2.5e77]),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(("text", "points"), POLYNOMIALS)
def test_polynomials_past_their_highest_power_overflow(text, points, backend):
    import sympy as sp

    x = sp.Symbol("x")
    f = sp.sympify(text, locals={"x": x})
    fn = sp.lambdify(x, f, "mpmath")
    dfn = sp.lambdify(x, sp.diff(f, x), "mpmath")
    kernel = symnb.Activation(text).compile(backend, dtype="float64")
    y, dy = kernel.forward_with_derivative(np.array(points))
    for p, got, dgot in zip(points, y.tolist(), dy.tolist()):
        with mpmath.workdps(40):
            ref, dref = float(fn(mpmath.mpf(p))), float(dfn(mpmath.mpf(p)))
        assert np.isfinite(ref) and np.isfinite(dref)
        assert got == pytest.approx(ref, rel=1e-12), (text, p)
        assert dgot == pytest.approx(dref, rel=1e-12), (text, p)
