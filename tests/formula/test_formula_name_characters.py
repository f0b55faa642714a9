"""Names of activations and losses with control or invisible characters: a newline,
tab, NUL, escape, right-to-left override or line separator in ``name=`` was kept,
and the name goes into LaTeX, plot legends, messages, file names and widget labels.
Now a ``FormulaError`` names the character, its position and a printable name. A
dollar sign is a fine name, but matplotlib read 'a$$b' or '$\\foo$' as mathtext and
raised ValueError when the plot was drawn."""

from __future__ import annotations

import pytest

import symnb
from symnb import plotting
from symnb.errors import FormulaError
from symnb.widgets import register_activation


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a\nb", "a control character (U+000A) at position 1"),
        ("ab\t", "a control character (U+0009) at position 2"),
        ("a\x00b", "(U+0000)"),
        ("\x1b[31mred", "(U+001B) at position 0"),
        ("a\u202eb", "RIGHT-TO-LEFT OVERRIDE (U+202E)"),
        ("a\u200bb", "ZERO WIDTH SPACE (U+200B)"),
        ("a\u2028b", "LINE SEPARATOR (U+2028)"),
    ],
)
@pytest.mark.parametrize("cls", [symnb.Activation, symnb.Loss])
def test_a_name_with_a_control_character_is_refused(cls, name, shown) -> None:
    text = "x" if cls is symnb.Activation else "(y_pred - y_true)**2"
    with pytest.raises(FormulaError) as info:
        cls(text, name=name, _register=False)
    message = str(info.value)
    assert f"{cls.__name__.lower()} name" in message and shown in message
    assert "hint: use printable characters only, e.g. 'ab'" in message or (
        "\x1b" in name and "'[31mred'" in message
    )


def test_a_constant_name_with_a_control_character_is_refused() -> None:
    with pytest.raises(FormulaError, match=r"constant name 'c\\n' holds"):
        symnb.Activation("x", **{"c\n": 1.0})


def test_register_activation_refuses_a_control_character() -> None:
    with pytest.raises(FormulaError, match="register_activation: name"):
        register_activation("relu", name="my\nrelu")


@pytest.mark.parametrize("name", ["a b", "é漢", "a$b", "cost in $", "my-act.v2"])
def test_printable_names_are_kept(name) -> None:
    assert symnb.Activation("2*x", name=name, _register=False).name == name


@pytest.mark.parametrize("name", ["a$$b", "$\\foo$", "$x^$"])
def test_dollar_signs_in_a_name_are_drawn_as_text(name) -> None:
    act = symnb.Activation("x*sigmoid(x)", name=name, _register=False)
    fig = plotting.plot_activation(act)
    assert plotting.figure_to_png(fig).startswith(b"\x89PNG")
    assert fig.axes[0].get_title() == name.replace("$", r"\$")
    loss = symnb.Loss("(y_pred - y_true)**2", name=name, _register=False)
    assert plotting.figure_to_png(plotting.plot_loss(loss)).startswith(b"\x89PNG")
