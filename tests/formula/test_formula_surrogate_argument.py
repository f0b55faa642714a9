"""``symnb.Activation(..., surrogate=...)`` read the argument with ``or``:
``surrogate=0``, ``False`` or ``""`` silently meant the ATan surrogate, and a
number such as 3 was 'unknown surrogate gradient 3'. A non-string is now a
TypeError and the empty name is unknown; None still means "atan"."""

from __future__ import annotations

import pytest

import symnb


@pytest.mark.parametrize("value", [0, False, 3, 1.5, ["atan"]])
def test_surrogate_must_be_a_name(value) -> None:
    with pytest.raises(TypeError, match="surrogate must be a name"):
        symnb.Activation("heaviside(x)", surrogate=value)


def test_empty_surrogate_is_unknown() -> None:
    with pytest.raises(symnb.FormulaError, match="unknown surrogate gradient ''"):
        symnb.Activation("heaviside(x)", surrogate="")


@pytest.mark.parametrize(("value", "used"), [(None, "atan"), ("sigmoid", "sigmoid")])
def test_named_surrogates_are_used(value, used) -> None:
    assert symnb.Activation("heaviside(x)", surrogate=value).surrogate == used
