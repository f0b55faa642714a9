"""``k - k*cos(u)`` evaluated as ``2*k*sin(u/2)**2`` (``symnb.robust.half_angle``).

``(1 - cos(a*x))/a**2`` with a = 1e-4 was 0 for 0.5 at x = 1 in float32: 94 of 183
points over the rule in float32, 46 of 353 in float64. Judged as the corpus is
(mpmath references over the whole float range).
"""

from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from symnb.robust.half_angle import cosine_as_half_angle
from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

CASES = [
    ("(1 - cos(a*x))/a**2", {"a": 1e-4}),
    ("c - c*cos(x/c)", {"c": 1e4}),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("text", "constants"), CASES)
def test_one_minus_cosine_meets_the_rule(text, constants, dtype, backend):
    problems = rule_problems_of(text, backend, dtype, constants)
    assert not problems, "\n".join(problems)


def test_the_half_angle_form_is_the_same_function():
    x, k = sp.symbols("x k", real=True)
    for expr in (
        1 - sp.cos(3 * x),
        k * sp.cos(x**2) - k + x,
        2 - 2 * sp.cos(x / 7) + sp.cos(x),
    ):
        new = cosine_as_half_angle(expr, x)
        assert new != expr
        assert not new.has(sp.cos(3 * x), sp.cos(x**2), sp.cos(x / 7))
        for value in (-2.5, 1e-3, 0.7, 40.0):
            with mp.workdps(40):
                at = (mp.mpf(value), mp.mpf("1.3"))
                a = sp.lambdify((x, k), expr, "mpmath")(*at)
                b = sp.lambdify((x, k), new, "mpmath")(*at)
                assert abs(a - b) <= mp.mpf(10) ** -30 * max(1, abs(a))


def test_cosines_without_the_matching_number_stay():
    x = sp.Symbol("x", real=True)
    for expr in (1 - 2 * sp.cos(x), sp.cos(x) + sp.sin(x), 1 - sp.cos(2.0)):
        assert cosine_as_half_angle(expr, x) == expr
