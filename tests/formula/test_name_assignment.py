"""Names assigned after construction, misspelled keyword options, and library look-ups
by something that is not a name.

``act.name = 5`` or ``act.name = "a\\nb"`` was kept unchecked (construction checks
``name=``), and broke later faces far from the assignment: ``to_source`` raised
re's "expected string or bytes-like object", ``compile_layer`` a comparison between
str and int, ``MLP`` an AttributeError from the initialiser. ``derivatve='...'`` was
refused as a constant with the hint to pass ``derivatve=1.0``; ``symnb.activation(None)``
said "unknown activation None" instead of asking for a name."""

from __future__ import annotations

import pytest

import symnb
from symnb.errors import FormulaError


@pytest.mark.parametrize("cls", [symnb.Activation, symnb.Loss])
@pytest.mark.parametrize("bad", [5, 1.5, b"name", ["a"]])
def test_assigning_a_name_that_is_no_string_is_refused(cls, bad) -> None:
    text = "tanh(x)" if cls is symnb.Activation else "(y_pred - y_true)**2"
    formula = cls(text, name="good", _register=False)
    with pytest.raises(TypeError) as info:
        formula.name = bad
    message = str(info.value)
    assert f"{formula.kind} name must be a string" in message
    assert type(bad).__name__ in message
    assert formula.name == "good"  # the old name is kept


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("a\nb", "(U+000A) at position 1"),
        ("a\u202eb", "RIGHT-TO-LEFT OVERRIDE"),
        ("n" * 101, "101 characters long"),
    ],
)
def test_assigning_a_name_gets_the_construction_checks(bad, said) -> None:
    act = symnb.Activation("tanh(x)", name="good", _register=False)
    with pytest.raises(FormulaError) as info:
        act.name = bad
    assert "activation name" in str(info.value) and said in str(info.value)
    assert act.name == "good"


@pytest.mark.parametrize("blank", [None, "", "   "])
def test_a_blank_assigned_name_means_the_default_as_at_construction(blank) -> None:
    act = symnb.Activation("tanh(x)", name="good", _register=False)
    act.name = blank
    assert act.name == symnb.Activation("tanh(x)", name=blank).name == "f"
    loss = symnb.Loss("(y_pred - y_true)**2", name="good")
    loss.name = blank
    assert loss.name == "loss"


def test_an_assigned_name_reaches_the_faces_that_use_it() -> None:
    act = symnb.Activation("tanh(x)", _register=False)
    act.name = "my_tanh"
    assert "activation my_tanh" in act.to_source()
    assert "my_tanh" in repr(act.compile(backend="numpy"))
    assert "my_tanh" in repr(symnb.compile_layer([act, "relu"], backend="numpy"))


@pytest.mark.parametrize(
    ("keyword", "option"),
    [
        ("derivatve", "derivative"),
        ("surogate", "surrogate"),
        ("nmae", "name"),
        ("replce", "replace"),
    ],
)
def test_a_misspelled_option_is_pointed_at(keyword, option) -> None:
    with pytest.raises(FormulaError) as info:
        symnb.Activation("tanh(x)", **{keyword: "1 - tanh(x)**2"})
    message = str(info.value)
    assert f"constant {keyword!r}" in message
    assert f"did you mean the option {option}=?" in message


def test_a_constant_far_from_every_option_keeps_its_plain_hint() -> None:
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x*sigmoid(beta*x)", beta="one")
    message = str(info.value)
    assert "constant 'beta'" in message and "e.g. beta=1.0" in message
    assert "did you mean" not in message


@pytest.mark.parametrize("factory", [symnb.activation, symnb.loss])
@pytest.mark.parametrize("bad", [None, 5, symnb.Activation])
def test_a_library_look_up_by_something_other_than_a_name_is_a_type_error(
    factory, bad
) -> None:
    with pytest.raises(TypeError) as info:
        factory(bad)
    message = str(info.value)
    assert f"symnb.{factory.__name__}() takes the name" in message
    assert type(bad).__name__ in message


@pytest.mark.parametrize(
    ("derivative", "said"),
    [("", "empty formula"), ("2*y", "unknown symbol 'y'"), ("x*(", "never closed")],
)
def test_an_error_in_the_derivative_says_it_is_the_derivative(derivative, said) -> None:
    """derivative='' said only "empty formula", as if the formula were empty."""
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x**2", derivative=derivative)
    message = str(info.value)
    assert message.startswith(f"derivative={derivative!r}: ") and said in message
