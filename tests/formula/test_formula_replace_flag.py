"""``symnb.Activation(text, name=..., replace="no")`` read the string as True: a
definition named like a library activation replaced it for the whole session
(``Activation('2*x', name='gelu', replace='no')``, then ``gelu(x)`` in any later
formula computed 2*x). ``replace`` is now checked as a flag (TypeError)."""

from __future__ import annotations

import pytest
import sympy as sp

import symnb
from symnb.formula import compose


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None])
def test_replace_must_be_a_flag(value) -> None:
    with pytest.raises(TypeError, match="replace must be True or False"):
        symnb.Activation("2*x", name="gelu", replace=value)
    x = sp.Symbol("x", real=True)
    assert symnb.Activation("gelu(x)").expr != 2 * x


def test_replace_true_still_replaces_and_false_still_refuses() -> None:
    with pytest.raises(symnb.FormulaError, match="shadows the library activation"):
        symnb.Activation("2*x", name="softsign", replace=False)
    try:
        symnb.Activation("3*x", name="zz_replaced", replace=True)
        assert symnb.Activation("zz_replaced(x)").expr == 3 * sp.Symbol("x", real=True)
    finally:
        compose.unregister("zz_replaced")
