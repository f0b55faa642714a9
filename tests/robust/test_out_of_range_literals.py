"""Number literals beyond float32's range (``symnb.robust.literals``).

``x + 1e300*exp(-1e300*x**2)`` compiled for float32 printed both literals as inf:
``inf*exp(-inf*x*x)`` was NaN at every x (``inf*0``), where f is x (and 1e300 -> inf at
x = 0 only). Its f' holds ``2e600``, beyond float64 too: NaN at every x but 0 in float64.
The engine now applies such a literal as a power of two (``ldexp``) after the other
factors. Judged against SymPy + mpmath of the typed text over the whole float range
(``text_judge.rule_problems_of``).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

FORMULAS = [
    "x + 1e300*exp(-1e300*x**2)",  # the reported case
    "x*exp(-1e40*x**2)",  # f' holds 2e40
    "x + 1e39*exp(-x**2)",
    "1e-50*x + tanh(x)",  # below float32's normal range
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", FORMULAS)
def test_out_of_range_literals_meet_the_rule(text, dtype, backend):
    problems = rule_problems_of(text, backend, dtype)
    assert not problems, f"{text} on {backend} {dtype}:\n" + "\n".join(problems)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_float32_bump_is_x_away_from_0_and_inf_at_0(backend):
    """f = x + 1e300 exp(-1e300 x^2): exp(-1e300 x^2) < exp(-1e210) for every nonzero
    float32 x, so f(x) = x there; f(0) = 1e300, inf in float32."""
    kernel = symnb.Activation("x + 1e300*exp(-1e300*x**2)").compile(
        backend, dtype="float32"
    )
    x = np.array([-3e38, -1.0, -1e-30, -1e-45, 0.0, 1e-45, 1e-20, 2.0], np.float32)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    away = x != 0
    np.testing.assert_array_equal(y[away], x[away])
    np.testing.assert_array_equal(dy[away], 1.0)
    assert y[~away][0] == np.inf and dy[~away][0] == 1.0
