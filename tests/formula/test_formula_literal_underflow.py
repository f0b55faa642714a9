"""A number literal too small for float64 in a formula was read as 0.0 without a
word: ``symnb.Activation('x*1e-400')`` became f = 0 (``%%symact`` already refused
such a constant, and ``1e400`` was refused). Now it is a FormulaError at the number."""

from __future__ import annotations

import pytest

import symnb
from symnb.errors import FormulaError


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("x*1e-400", 3),
        ("x + 0.0001e-321*x", 5),
        ("x*1_0E-400", 3),
        ("-2.5e-999 + x", 2),
    ],
)
def test_underflowing_literal_is_refused(text, column) -> None:
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text)
    assert "too small for a float" in str(info.value)
    assert info.value.column == column


def test_underflowing_literal_in_a_given_derivative_is_refused() -> None:
    with pytest.raises(FormulaError, match="too small for a float"):
        symnb.Activation("x", derivative="1e-400")


@pytest.mark.parametrize("text", ["x*0e5 + x", "x*0.000e-400 + x", "x*0.0 + x"])
def test_written_zeros_stay_zero(text) -> None:
    assert symnb.Activation(text).expr == symnb.Activation("x").expr
