"""The excerpt under a FormulaError printed the formula line raw: a lone surrogate
(U+D800, e.g. from a broken paste or surrogateescape'd bytes) made the message
unencodable, so print(err) (and a notebook's error display) failed with
UnicodeEncodeError; NUL and ESC went to the terminal as they were. The excerpt now
shows each such character as U+FFFD in its column (the caret still points at it)."""

from __future__ import annotations

import pytest

import symnb
from symnb.errors import FormulaError


@pytest.mark.parametrize("char", ["\ud800", "\x00", "\x1b", "\u200b", "\ue000"])
def test_the_message_is_printable_utf8_with_the_caret_under_the_character(
    char,
) -> None:
    with pytest.raises(FormulaError) as info:
        symnb.Activation(f"x+{char}+1")
    message = str(info.value)
    message.encode("utf-8")  # raised UnicodeEncodeError for U+D800
    assert f"U+{ord(char):04X}" in message
    assert char not in message
    lines = message.splitlines()
    excerpt, caret = lines[1], lines[2]
    assert excerpt == "    x+\ufffd+1"
    assert caret.index("^") == excerpt.index("\ufffd")


def test_a_tab_in_the_excerpt_is_a_space() -> None:
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x\t+ 2\u00d7x")
    lines = str(info.value).splitlines()
    assert lines[1] == "    x + 2\u00d7x"
    assert lines[2].index("^") == lines[1].index("\u00d7")
