"""One check of a plot range for every face: ``%%symact --range`` had its own copy
(``_plot_range`` in the magic) of ``symnb.plotting.checked_range`` with other
messages. Now the magic hands its LOW:HIGH text to ``checked_range``, which also
takes that text from the API. Before, ``x_range="12"`` was read character by
character as (1.0, 2.0) and plotted without a word; ``x_range="-2:2"`` was refused
as "not a pair"."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import symnb
from symnb import plotting


@pytest.fixture(scope="module")
def tanh():
    return symnb.activation("tanh")


@pytest.mark.parametrize(
    "text", ["-1e308:1e308", "1:1.00000001", "-inf:inf", "1:0", "garbage"]
)
def test_the_magic_says_what_the_library_says(shell, text) -> None:
    with pytest.raises(ValueError) as library:
        plotting.checked_range(text, "float32", "--range")
    with pytest.raises(UsageError) as magic, capture_output():
        shell.run_cell_magic(
            "symact", f"--backend numpy --no-compile --range={text}", "fg(x) = 2*x"
        )
    assert str(magic.value) == str(library.value)
    assert str(magic.value).startswith("--range") and "fg" not in shell.user_ns


@pytest.mark.parametrize("text", ["12", "-4", "1:2:3", "a:b"])
def test_a_range_text_that_is_not_low_high_is_refused(tanh, text) -> None:
    with pytest.raises(ValueError) as info:
        plotting.activation_values(tanh, text)
    message = str(info.value)
    assert message.startswith("x_range: ") and "LOW:HIGH, e.g. -4:4" in message


def test_a_low_high_text_plots_the_range_it_names(tanh) -> None:
    x, y, dy = plotting.activation_values(tanh, "-2:3", points=11)
    assert x[0] == -2.0 and x[-1] == 3.0
    reference = np.tanh(x.astype(np.float64))
    np.testing.assert_allclose(y, reference, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dy, 1.0 - reference**2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("span", "words"),
    [
        ((4, -4), "x_range=(4, -4) needs finite low < high, e.g. x_range=(-4, 4)"),
        ((-1e39, 1e39), "does not fit the float32 plot grid"),
        ("-1e39:1e39", "x_range '-1e39:1e39' does not fit the float32 plot grid"),
    ],
)
def test_messages_show_the_example_in_the_form_given(tanh, span, words) -> None:
    with pytest.raises(ValueError) as info:
        plotting.activation_values(tanh, span)
    assert words in str(info.value)
