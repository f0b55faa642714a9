"""``\\begin{cases}`` whose conditions leave an interval of x to no case.

The last case is read as the otherwise, so ``x & x > 1 \\\\ -x & x < -1`` gave -x on
[-1, 1] without a word (h112's LaTeX probe 16 left it). Such a display is refused,
naming the x no case takes; conditions that cover every x (complements, three
ranges), a single point left out (papers' ``x > 0`` / ``x < 0`` at a kink, read as
before) and ``\\text{otherwise}`` read as they did, with their values checked against
NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb

GAPS = [
    (r"\begin{cases} x & x > 1 \\ -x & x < -1 \end{cases}", "x in [-1, 1] ("),
    (
        r"\begin{cases} 1 & 0 < x < 1 \\ 0 & x > 2 \end{cases}",
        "x in (-inf, 0] U [1, 2] (",
    ),
    (
        r"\begin{cases} x^2 & x \ge 3 \\ 0 & x \le -3 \end{cases}",
        "x in (-3, 3) (",
    ),
]


@pytest.mark.parametrize(("text", "gap"), GAPS)
def test_cases_leaving_an_interval_are_refused(text, gap):
    with pytest.raises(symnb.FormulaError) as err:
        symnb.Activation(text)
    message = str(err.value)
    assert "no case takes x" in message and gap in message
    # the fix is to the cases, not the generic "type that part as code"
    assert "hint: add a case for those x, or make the last case" in message
    assert "as code" not in message


def test_a_case_without_condition_before_the_last_names_the_fix():
    with pytest.raises(symnb.FormulaError) as err:
        symnb.Activation(r"\begin{cases} x \\ 0 & x < 0 \\ -x & x > 1 \end{cases}")
    message = str(err.value)
    assert "case 1 of 3 has no condition" in message
    assert "hint: give case 1 a condition, or put it last" in message
    assert "as code" not in message


def test_an_unknown_command_still_suggests_code():
    with pytest.raises(symnb.FormulaError) as err:
        symnb.Activation(r"\frobnicate{x}")
    assert "as code" in str(err.value) and "\\frobnicate" in str(err.value)


X = np.array([-5.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 5.0])

COVERED = [
    (
        r"\begin{cases} x & x > 0 \\ 0.01x & x \le 0 \end{cases}",
        np.where(X > 0, X, 0.01 * X),
    ),
    (r"\begin{cases} x & x > 0 \\ 0 & x < 0 \end{cases}", np.maximum(X, 0.0)),
    (
        r"\begin{cases} x & x \ge 1 \\ x^3 & |x| < 1 \\ -1 & x \le -1 \end{cases}",
        np.where(X >= 1, X, np.where(np.abs(X) < 1, X**3, -1.0)),
    ),
    (
        r"\begin{cases} x & x > 0 \\ e^x - 1 & \text{otherwise} \end{cases}",
        np.where(X > 0, X, np.expm1(X)),
    ),
]


@pytest.mark.parametrize(("text", "want"), COVERED)
def test_cases_that_cover_every_x_read_as_before(text, want):
    kernel = symnb.Activation(text).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(kernel.forward(X), want, rtol=1e-15, atol=0)


def test_conditions_with_constants_are_not_judged():
    """``x > alpha`` / ``x < -alpha`` covers every x only for alpha <= 0: not
    decided at parse time, read as before (the last case the otherwise)."""
    act = symnb.Activation(
        r"\begin{cases} x & x > \alpha \\ 0 & x < -\alpha \end{cases}", alpha=1.0
    )
    got = act.compile(backend="numpy", dtype="float64").forward(X)
    np.testing.assert_array_equal(got, np.where(X > 1.0, X, 0.0))
